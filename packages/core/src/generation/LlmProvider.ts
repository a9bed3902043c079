/**
 * The language model port: one hosted model that writes text from a prompt and a
 * system instruction. Adapters (the OpenAI SDK for OpenAI-compatible endpoints, Google's
 * Gen AI SDK for Gemini, the scripted layer here) pass the conformance suite in
 * `@coursekit/core/testing`. `ContentGenerator` chains several of them.
 *
 * @since 0.1.0
 */
import { Context, type Effect, Schema, type Stream } from "effect"

/** Why a model call failed, in terms the chain acts on. */
export const LlmFailureKind = Schema.Literals([
  "rate_limited",
  "server_error",
  "timeout",
  "network_error",
  "auth_error",
  "model_error",
  "bad_response"
])
export type LlmFailureKind = typeof LlmFailureKind.Type

/**
 * A model call failed. `detail` is written by the adapter, never copied from the
 * provider's answer, so it cannot carry a key. `retryAfterMillis` is the provider's
 * `Retry-After` (or its equivalent), when it sent one.
 */
export class LlmFailure extends Schema.TaggedError<LlmFailure>()("LlmFailure", {
  kind: LlmFailureKind,
  detail: Schema.String,
  status: Schema.optionalKey(Schema.Int),
  retryAfterMillis: Schema.optionalKey(Schema.Number)
}) {
  override get message(): string {
    return `${this.kind}: ${this.detail}`
  }
}

/** One request to a model. */
export interface LlmRequest {
  /** What to write. */
  readonly prompt: string
  /** How to write it: the rules the output must follow. */
  readonly system: string
}

/**
 * Token counts of one call as the provider reported them: a count it did not report is
 * `null` (never a guess).
 */
export const LlmUsage = Schema.Struct({
  input_tokens: Schema.NullOr(Schema.Int).annotate({ description: "Tokens of the prompt and system instruction, as the provider counted them." }),
  output_tokens: Schema.NullOr(Schema.Int).annotate({ description: "Tokens the model wrote, as the provider counted them." })
}).annotate({ identifier: "LlmUsage" })
export type LlmUsage = typeof LlmUsage.Type

/** A model's whole answer: its text, as it came, and the usage, `null` when the provider reported none. */
export interface LlmAnswer {
  readonly text: string
  readonly usage: LlmUsage | null
}

/**
 * One piece of a streamed answer: the next `text` of the answer, or the usage so far (a
 * later `Usage` replaces an earlier one; providers send it at or near the end).
 */
export type LlmStreamPart =
  | { readonly _tag: "TextDelta"; readonly text: string }
  | { readonly _tag: "Usage"; readonly usage: LlmUsage }

/** Constructors of {@link LlmStreamPart}. */
export const LlmStreamPart = {
  textDelta: (text: string): LlmStreamPart => ({ _tag: "TextDelta", text }),
  usage: (usage: LlmUsage): LlmStreamPart => ({ _tag: "Usage", usage })
}

/**
 * A hosted language model.
 *
 * - `provider` names the adapter's kind (`openai`, `google`, …) and `model` the model;
 *   both are shown to API callers, so they hold no secret.
 * - `endpoint` (optional) says where requests go — origin and path, no credentials — so
 *   that one model served at two places is told apart (cool-downs are kept per provider,
 *   model and endpoint).
 * - `generate` answers the model's text, as it came (possibly empty), with its usage, or
 *   fails with an `LlmFailure` of the right kind: 429 → `rate_limited` (with
 *   `retryAfterMillis` when the provider said), 5xx → `server_error`, 401/403 →
 *   `auth_error`, another 4xx → `model_error`, no connection → `network_error`, a body it
 *   cannot read → `bad_response`. Interrupting it aborts the request.
 * - `stream` is the same call with the provider's streaming API: the text arrives as
 *   `TextDelta`s whose concatenation is what `generate` would have answered, and the usage
 *   as `Usage` parts. A failure before the first part is classified as for `generate`; a
 *   connection lost mid-answer is `network_error`, a chunk it cannot read `bad_response`,
 *   and an answer the provider ends with an error event is classified by that event's
 *   status when it has one (else `server_error`). Interrupting the stream aborts the
 *   request.
 */
export class LlmProvider extends Context.Service<LlmProvider, {
  readonly provider: string
  readonly model: string
  readonly endpoint?: string | undefined
  generate(request: LlmRequest): Effect.Effect<LlmAnswer, LlmFailure>
  stream(request: LlmRequest): Stream.Stream<LlmStreamPart, LlmFailure>
}>()("@coursekit/core/LlmProvider") {
}

/**
 * `Retry-After` as milliseconds: delay-seconds or an HTTP date (RFC 9110 §10.2.3);
 * none when absent or unreadable. For adapters.
 */
export const parseRetryAfter = (value: string | null | undefined, now: number = Date.now()): number | undefined => {
  if (value === null || value === undefined || value.trim() === "") return undefined
  const trimmed = value.trim()
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000
  const date = Date.parse(trimmed)
  return Number.isNaN(date) ? undefined : Math.max(0, date - now)
}

/** Sorts an HTTP status into a failure kind. For adapters. */
export const failureKindOfStatus = (status: number): LlmFailureKind =>
  status === 429 ? "rate_limited"
  : status >= 500 ? "server_error"
  : status === 401 || status === 403 ? "auth_error"
  : "model_error"

/** Builds the failure for an HTTP status. For adapters. */
export const failureOfStatus = (status: number, retryAfterMillis: number | undefined): LlmFailure =>
  new LlmFailure({
    kind: failureKindOfStatus(status),
    detail: `the provider answered HTTP ${status}`,
    status,
    ...(retryAfterMillis === undefined ? {} : { retryAfterMillis })
  })

/** A token count as a provider reported it: a non-negative integer, else `null`. For adapters. */
export const reportedTokenCount = (value: unknown): number | null =>
  typeof value === "number" && Number.isSafeInteger(value) && value >= 0 ? value : null

/**
 * The `endpoint` of a provider whose base URL is `baseUrl`: its origin and path, without
 * userinfo, query, fragment or trailing slash (so no credential a URL can carry there);
 * none when `baseUrl` is not an http(s) URL. For adapters.
 */
export const endpointOfBaseUrl = (baseUrl: string): string | undefined => {
  if (!URL.canParse(baseUrl)) return undefined
  const url = new URL(baseUrl)
  if (url.protocol !== "http:" && url.protocol !== "https:") return undefined
  return `${url.origin}${url.pathname.replace(/\/+$/, "")}`
}
