/**
 * The records of AI generation — the request, the attempts, the content, the streamed
 * events and the failures — apart from the `ContentGenerator` that produces them, so the
 * HTTP contract (and a browser bundle of its client) names them without the sanitizer.
 *
 * @since 0.3.0
 */
import { Schema } from "effect"
import { storableText } from "../shared/StorableText.ts"
import { LlmFailureKind, LlmUsage as LlmUsageSchema } from "./LlmProvider.ts"

/** Longest accepted prompt, in characters. */
export const promptMaxLength = 20_000

/** The body of `POST /admin/ai/generate`. */
export const GenerateRequest = Schema.Struct({
  // Checked on the string as sent (not a trimming transformation), so that the OpenAPI
  // document carries the limits; the generator trims before calling a model.
  prompt: Schema.String.check(
    Schema.isPattern(/\S/u, { message: "prompt must not be empty or blank" }),
    Schema.isMaxLength(promptMaxLength, { message: `prompt must be at most ${promptMaxLength} characters` }),
    storableText("prompt")
  ).annotate({
    description: `What to write, e.g. "A lesson on Rust ownership for beginners"; at most ${promptMaxLength} characters, not blank.`
  })
}).annotate({ identifier: "GenerateRequest" })
export type GenerateRequest = typeof GenerateRequest.Type

/** How one attempt ended. */
export const AttemptOutcome = Schema.Literals(["success", ...LlmFailureKind.literals, "empty_output", "too_long", "too_complex", "cooling_down"])
export type AttemptOutcome = typeof AttemptOutcome.Type

/** One try of one model. Never holds a key or the provider's own error text. */
export const GenerationAttempt = Schema.Struct({
  provider: Schema.String,
  model: Schema.String,
  outcome: AttemptOutcome,
  duration_ms: Schema.Number,
  detail: Schema.optionalKey(Schema.String),
  usage: Schema.NullOr(LlmUsageSchema).annotate({
    description: "Tokens as the provider reported them for this attempt; null when it reported none (a failure, a skipped model)."
  }),
  cost_usd: Schema.NullOr(Schema.Number).annotate({
    description: "usage priced with the step's AI_<STEP>_PRICE_INPUT and AI_<STEP>_PRICE_OUTPUT (US dollars per million tokens), " +
      "rounded to 1e-9; null without prices or usage."
  })
}).annotate({ identifier: "GenerationAttempt" })
export type GenerationAttempt = typeof GenerationAttempt.Type

/** What `POST /admin/ai/generate` answers. */
export const GeneratedContent = Schema.Struct({
  html: Schema.String.annotate({ description: "The model's HTML after all three sanitization stages." }),
  provider: Schema.String,
  model: Schema.String,
  attempts: Schema.Array(GenerationAttempt)
}).annotate({ identifier: "GeneratedContent" })
export type GeneratedContent = typeof GeneratedContent.Type

/** One piece of sanitized HTML of a streamed answer; the pieces concatenate to the content's `html`. */
export const GeneratedHtml = Schema.Struct({
  html: Schema.String.annotate({ description: "The next top-level blocks of the answer, sanitized." })
}).annotate({ identifier: "GeneratedHtml" })
export type GeneratedHtml = typeof GeneratedHtml.Type

/** What `ContentGenerator.stream` emits, in order: attempts and HTML as they come, then the content. */
export type GenerationEvent =
  /** An attempt ended (a success comes after its HTML). */
  | { readonly _tag: "Attempt"; readonly attempt: GenerationAttempt }
  /** The next sanitized blocks. */
  | { readonly _tag: "Html"; readonly html: string }
  /** The answer is complete: the same content `generate` answers. */
  | { readonly _tag: "Done"; readonly content: GeneratedContent }

/** Every model failed (or was cooling down). */
export class GenerationFailed extends Schema.TaggedError<GenerationFailed>()("GenerationFailed", {
  attempts: Schema.Array(GenerationAttempt)
}) {
  override get message(): string {
    return `Every language model failed: ${this.attempts.map((attempt) => `${attempt.provider}/${attempt.model} ${attempt.outcome}`).join(", ")}.`
  }
}

/**
 * A model failed after part of its answer had been sent (streaming only): the answer is
 * incomplete and no other model takes over, since the reader already has the first part.
 * Generate again.
 */
export class GenerationInterrupted extends Schema.TaggedError<GenerationInterrupted>()("GenerationInterrupted", {
  provider: Schema.String,
  model: Schema.String,
  outcome: AttemptOutcome,
  attempts: Schema.Array(GenerationAttempt)
}) {
  override get message(): string {
    return `${this.provider}/${this.model} failed (${this.outcome}) after part of the answer had been sent; the answer is incomplete. Generate again.`
  }
}

/** The chain holds no model. */
export class NoModelConfigured extends Schema.TaggedError<NoModelConfigured>()("NoModelConfigured", {
  hint: Schema.String
}) {
  override get message(): string {
    return `No language model is configured. ${this.hint}`
  }
}

