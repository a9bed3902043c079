/**
 * AI-written HTML learning content (§1.1, DECISIONS §7): the models of an `LlmChain` are
 * tried in order as an Effect `ExecutionPlan`, each attempt with a deadline; the next one
 * takes over on any failure — 429, 5xx, time-out, network, auth or model errors, and
 * output that is empty once sanitized. A model that failed with 429, 5xx or a time-out is
 * skipped for a cool-down (its `Retry-After`, else a default), so later callers do not
 * wait for a failure that is already known; the cool-downs are `ProviderCooldowns`'
 * (shared by the instances on PostgreSQL). Every output passes all three sanitization
 * stages.
 *
 * @since 0.1.0
 */
import { Clock, Context, Duration, Effect, ExecutionPlan, Layer, Ref, Schema } from "effect"
import type { HtmlAllowList } from "./HtmlAllowList.ts"
import { HtmlSanitizer } from "./HtmlSanitizer.ts"
import { storableText } from "./StorableText.ts"
import { LlmFailure, LlmFailureKind, LlmProvider } from "./LlmProvider.ts"
import { cooldownKeys, ProviderCooldowns } from "./ProviderCooldowns.ts"

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
export const AttemptOutcome = Schema.Literals(["success", ...LlmFailureKind.literals, "empty_output", "cooling_down"])
export type AttemptOutcome = typeof AttemptOutcome.Type

/** One try of one model. Never holds a key or the provider's own error text. */
export const GenerationAttempt = Schema.Struct({
  provider: Schema.String,
  model: Schema.String,
  outcome: AttemptOutcome,
  duration_ms: Schema.Number,
  detail: Schema.optionalKey(Schema.String)
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

/** Every model failed (or was cooling down). */
export class GenerationFailed extends Schema.TaggedError<GenerationFailed>()("GenerationFailed", {
  attempts: Schema.Array(GenerationAttempt)
}) {
  override get message(): string {
    return `Every language model failed: ${this.attempts.map((attempt) => `${attempt.provider}/${attempt.model} ${attempt.outcome}`).join(", ")}.`
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

/** The models to try, in order; `whenEmpty` tells an operator how to configure one. */
export class LlmChain extends Context.Service<LlmChain, {
  readonly models: ReadonlyArray<LlmProvider["Service"]>
  readonly whenEmpty: string
}>()("@coursekit/core/LlmChain") {
  /**
   * The chain of `models`, each a provider layer built once here (SDK clients are made
   * once, not per call).
   */
  static readonly layer = <E = never, R = never>(
    models: ReadonlyArray<Layer.Layer<LlmProvider, E, R>>,
    options: { readonly whenEmpty?: string | undefined } = {}
  ): Layer.Layer<LlmChain, E, R> =>
    Layer.effect(
      LlmChain,
      Effect.gen(function*() {
        const built: Array<LlmProvider["Service"]> = []
        for (const model of models) {
          const context = yield* Layer.build(model)
          built.push(Context.get(context, LlmProvider))
        }
        return LlmChain.of({ models: built, whenEmpty: options.whenEmpty ?? "Provide LlmProvider layers to LlmChain.layer." })
      })
    )
}

/** Options of {@link ContentGenerator.layerNoDeps}. */
export interface ContentGeneratorOptions {
  /** Deadline of each attempt. Default 30 seconds. */
  readonly timeout?: Duration.Duration | undefined
  /** Cool-down after a 429, 5xx or time-out without `Retry-After`. Default 60 seconds. */
  readonly cooldown?: Duration.Duration | undefined
  /** Longest cool-down a `Retry-After` may ask for. Default 1 hour. */
  readonly maxCooldown?: Duration.Duration | undefined
}

/** Outcomes after which a model is left alone for a while. */
const coolingOutcomes: ReadonlySet<AttemptOutcome> = new Set(["rate_limited", "server_error", "timeout"])

/** The system instruction: what HTML to write, in terms of what the sanitizer keeps. */
export const systemInstruction = (allowList: HtmlAllowList): string =>
  [
    "You write HTML learning content for an online course.",
    "Answer with an HTML fragment only: no Markdown, no code fences, no <html>, <head> or <body>, no sentences before or after the HTML.",
    `Use only these tags: ${Object.keys(allowList.tags).join(", ")}.`,
    `Use only these class names, and only for layout and emphasis: ${Object.keys(allowList.classes).join(", ")}.`,
    "Do not use style, id or event handler attributes, scripts, forms, iframes or SVG. Links use https: or mailto: URLs.",
    "Structure the content with headings, short paragraphs, lists, tables and <details>/<summary> where they help a learner."
  ].join("\n")

/** Writes HTML content with the chain's models. */
export class ContentGenerator extends Context.Service<ContentGenerator, {
  generate(request: GenerateRequest): Effect.Effect<GeneratedContent, GenerationFailed | NoModelConfigured>
}>()("@coursekit/core/ContentGenerator") {
  static readonly layerNoDeps = (
    options: ContentGeneratorOptions = {}
  ): Layer.Layer<ContentGenerator, never, LlmChain | HtmlSanitizer | ProviderCooldowns> =>
    Layer.effect(
      ContentGenerator,
      Effect.gen(function*() {
        const chain = yield* LlmChain
        const sanitizer = yield* HtmlSanitizer
        const cooldowns = yield* ProviderCooldowns
        const timeout = options.timeout ?? Duration.seconds(30)
        const defaultCooldown = Duration.toMillis(options.cooldown ?? Duration.seconds(60))
        const maxCooldown = Duration.toMillis(options.maxCooldown ?? Duration.hours(1))
        const system = systemInstruction(sanitizer.allowList)
        /** Each step's cool-down key, by step index. */
        const keys = cooldownKeys(chain.models)

        const [first, ...rest] = chain.models.map((model) => ({ provide: Context.make(LlmProvider, model) }))
        const plan = first === undefined ? undefined : ExecutionPlan.make(first, ...rest)

        const generate = Effect.fn("ContentGenerator.generate")(function*(request: GenerateRequest) {
          if (plan === undefined) return yield* new NoModelConfigured({ hint: chain.whenEmpty })
          const attempts = yield* Ref.make<ReadonlyArray<GenerationAttempt>>([])
          const record = (attempt: GenerationAttempt) => Ref.update(attempts, (all) => [...all, attempt])
          // One read of every step's cool-down, as an end in this process's clock.
          const readAt = yield* Clock.currentTimeMillis
          const cooling = yield* cooldowns.remaining(keys)
          const coolingUntil = new Map(Array.from(cooling, ([key, left]) => [key, readAt + left]))

          const attempt = Effect.gen(function*() {
            const model = yield* LlmProvider
            const { stepIndex } = yield* ExecutionPlan.CurrentMetadata
            const start = yield* Clock.currentTimeMillis
            const key = keys[stepIndex]!
            const until = coolingUntil.get(key)
            if (until !== undefined && until > start) {
              yield* record({
                provider: model.provider,
                model: model.model,
                outcome: "cooling_down",
                duration_ms: 0,
                detail: `skipped: cooling down for another ${Math.ceil((until - start) / 1000)} s after a failure`
              })
              return yield* new LlmFailure({ kind: "server_error", detail: "cooling down" })
            }
            const finish = Effect.fnUntraced(function*(outcome: AttemptOutcome, detail?: string) {
              const end = yield* Clock.currentTimeMillis
              const attempt: GenerationAttempt = {
                provider: model.provider,
                model: model.model,
                outcome,
                duration_ms: end - start,
                ...(detail === undefined ? {} : { detail })
              }
              yield* record(attempt)
              // A failing model is worth knowing about even when the next one serves the
              // call. The attempt holds no key and no provider text.
              if (outcome !== "success") yield* Effect.logWarning("language model attempt failed", attempt)
              return end
            })
            const text = yield* model.generate({ prompt: request.prompt.trim(), system }).pipe(
              Effect.timeoutOrElse({
                duration: timeout,
                orElse: () => Effect.fail(new LlmFailure({ kind: "timeout", detail: `no answer within ${Duration.format(timeout)}` }))
              }),
              Effect.tapError((failure) =>
                Effect.gen(function*() {
                  yield* finish(failure.kind, failure.detail)
                  if (coolingOutcomes.has(failure.kind)) {
                    const wait = Math.min(failure.retryAfterMillis ?? defaultCooldown, maxCooldown)
                    if (wait > 0) yield* cooldowns.coolDown(key, wait)
                  }
                })
              )
            )
            const html = yield* sanitizer.sanitizeModelOutput(text)
            if (html.trim() === "") {
              yield* finish("empty_output", "nothing was left after sanitization")
              return yield* new LlmFailure({ kind: "bad_response", detail: "empty output" })
            }
            yield* finish("success")
            yield* cooldowns.clear(key)
            return { html, provider: model.provider, model: model.model }
          })

          const served = yield* Effect.withExecutionPlan(attempt, plan).pipe(
            Effect.catchTag("LlmFailure", () => Effect.flatMap(Ref.get(attempts), (all) => Effect.fail(new GenerationFailed({ attempts: all }))))
          )
          const content: GeneratedContent = { ...served, attempts: yield* Ref.get(attempts) }
          return content
        })

        return ContentGenerator.of({ generate })
      })
    )
}
