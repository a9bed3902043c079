/**
 * The language model port: one hosted model that writes text from a prompt and a
 * system instruction. Adapters (the OpenAI SDK for OpenAI-compatible endpoints, Google's
 * Gen AI SDK for Gemini, the scripted layer here) pass the conformance suite in
 * `@coursekit/core/testing`. `ContentGenerator` chains several of them.
 *
 * @since 0.1.0
 */
import { Context, Effect, Schema } from "effect"

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
 * A hosted language model.
 *
 * - `provider` names the adapter's kind (`openai`, `google`, …) and `model` the model;
 *   both are shown to API callers, so they hold no secret.
 * - `endpoint`, when the adapter knows it: where requests go (origin and path, no
 *   credentials): one model served at two places is cooled down separately.
 * - `generate` answers the model's text, as it came (possibly empty), or fails with an
 *   `LlmFailure` of the right kind: 429 → `rate_limited` (with `retryAfterMillis` when
 *   the provider said), 5xx → `server_error`, 401/403 → `auth_error`, another 4xx →
 *   `model_error`, no connection → `network_error`, a body it cannot read →
 *   `bad_response`. Interrupting it aborts the request.
 */
export class LlmProvider extends Context.Service<LlmProvider, {
  readonly provider: string
  readonly model: string
  /** Where requests go (origin and path, no credentials): one model served at two places is cooled down separately. */
  readonly endpoint?: string | undefined
  generate(request: LlmRequest): Effect.Effect<string, LlmFailure>
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

/**
 * A base URL as an `endpoint`: origin and path, without user, password, query or
 * fragment (which can carry a key) and without a trailing slash; none when it is not a
 * URL. For adapters.
 */
export const endpointOf = (baseUrl: string): string | undefined => {
  if (!URL.canParse(baseUrl)) return undefined
  const url = new URL(baseUrl)
  return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, "")}`
}
