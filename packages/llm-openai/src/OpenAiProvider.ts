/**
 * Coursekit's `LlmProvider` on the `openai` SDK's chat completions: OpenAI itself and every
 * OpenAI-compatible endpoint (Groq, OpenRouter, Together, Ollama, vLLM, llama.cpp) by
 * its base URL; `stream` with `stream: true`. The SDK's own retries are off: the chain
 * decides what happens after a failure. Every SDK error becomes an `LlmFailure` here; no
 * SDK type or message crosses this file (messages can quote a key). The SDK is loaded
 * when a provider is made, so a process that configures no OpenAI model never loads it
 * (about 4 MiB of heap).
 *
 * @since 0.1.0
 */
import {
  endpointOfBaseUrl,
  failureKindOfStatus,
  failureOfStatus,
  LlmFailure,
  LlmProvider,
  type LlmRequest,
  type LlmStreamPart,
  LlmStreamPart as StreamPart,
  type LlmUsage,
  parseRetryAfter,
  reportedTokenCount
} from "@coursekit/core"
import { Effect, Layer, Redacted, Stream } from "effect"
import type OpenAI from "openai"

type Sdk = typeof OpenAI

/** Options of {@link layer}. */
export interface Options {
  readonly model: string
  /** Absent only for self-hosted endpoints that take none (Ollama, vLLM, llama.cpp). */
  readonly apiKey?: Redacted.Redacted<string> | undefined
  /** Default `https://api.openai.com/v1`; e.g. `https://api.groq.com/openai/v1`, `http://localhost:11434/v1` (Ollama). */
  readonly baseUrl?: string | undefined
  /** Shown to API callers as the provider; default `openai`. */
  readonly providerName?: string | undefined
  /** Longest output, in tokens; default the endpoint's. */
  readonly maxOutputTokens?: number | undefined
  /**
   * Whether `stream` asks for the usage (`stream_options: {include_usage: true}`); default
   * true. Turn it off for an endpoint that rejects the option (Mistral answers 422, some
   * gateways 400); its streamed answers then carry no usage.
   */
  readonly streamUsage?: boolean | undefined
}

const toFailure = (OpenAI: Sdk, error: unknown): LlmFailure => {
  if (error instanceof OpenAI.APIConnectionTimeoutError) return new LlmFailure({ kind: "timeout", detail: "the provider did not answer in time" })
  if (error instanceof OpenAI.APIConnectionError) return new LlmFailure({ kind: "network_error", detail: "the provider could not be reached" })
  if (error instanceof OpenAI.APIError && error.status !== undefined) {
    return failureOfStatus(error.status, parseRetryAfter(error.headers?.get("retry-after")))
  }
  // A 200 whose body is not the JSON the SDK expects.
  return unreadable
}

const unreadable = new LlmFailure({ kind: "bad_response", detail: "the provider's answer could not be read" })

/**
 * A failure while reading a streamed answer. The SDK throws an in-stream error event
 * (`data: {"error": …}`) as an `APIError` without a status; its `code` is a status on
 * some endpoints (vLLM, proxies), a word or null on OpenAI's.
 */
const toStreamFailure = (OpenAI: Sdk, error: unknown): LlmFailure => {
  if (error instanceof OpenAI.APIConnectionError) return toFailure(OpenAI, error)
  if (error instanceof OpenAI.APIError) {
    if (error.status !== undefined) return toFailure(OpenAI, error)
    const code = typeof error.code === "string" && /^\d{3}$/.test(error.code) ? Number(error.code) : error.code
    return typeof code === "number" && code >= 400 && code <= 599
      ? new LlmFailure({ kind: failureKindOfStatus(code), detail: `the provider ended the answer with an error (${code})`, status: code })
      : new LlmFailure({ kind: "server_error", detail: "the provider ended the answer with an error" })
  }
  if (error instanceof SyntaxError) return new LlmFailure({ kind: "bad_response", detail: "a chunk of the provider's answer could not be read" })
  // The body broke off (undici's "terminated") or another transport failure.
  return new LlmFailure({ kind: "network_error", detail: "the connection to the provider was lost mid-answer" })
}

/** OpenAI's `usage` as the port's; `null` when the answer has none. */
const usageOf = (usage: unknown): LlmUsage | null => {
  if (typeof usage !== "object" || usage === null) return null
  const counts = usage as { readonly prompt_tokens?: unknown; readonly completion_tokens?: unknown }
  return { input_tokens: reportedTokenCount(counts.prompt_tokens), output_tokens: reportedTokenCount(counts.completion_tokens) }
}

/** The parts in one streamed chunk: its text (first choice), then its usage. */
const partsOf = (chunk: unknown): ReadonlyArray<LlmStreamPart> => {
  if (typeof chunk !== "object" || chunk === null) return []
  const { choices, usage } = chunk as { readonly choices?: unknown; readonly usage?: unknown }
  const first: unknown = Array.isArray(choices) ? choices[0] : undefined
  const delta: unknown = typeof first === "object" && first !== null ? (first as { readonly delta?: unknown }).delta : undefined
  const content: unknown = typeof delta === "object" && delta !== null ? (delta as { readonly content?: unknown }).content : undefined
  const reported = usageOf(usage)
  return [
    ...(typeof content === "string" && content !== "" ? [StreamPart.textDelta(content)] : []),
    ...(reported === null ? [] : [StreamPart.usage(reported)])
  ]
}

/** The provider for `options`, once the SDK is loaded. */
const fromSdk = (OpenAI: Sdk, options: Options): LlmProvider["Service"] => {
  const baseURL = options.baseUrl ?? "https://api.openai.com/v1"
  const client = new OpenAI({
    // The SDK insists on a key (else it reads OPENAI_API_KEY); keyless endpoints ignore it.
    apiKey: options.apiKey === undefined ? "no-key" : Redacted.value(options.apiKey),
    // Never the SDK's environment defaults (OPENAI_BASE_URL): configuration comes in here.
    baseURL,
    maxRetries: 0,
    // Nor anything else from OPENAI_* (organization, project, admin key, log level): the
    // host's environment must not change what this adapter sends or logs.
    organization: null,
    project: null,
    adminAPIKey: null,
    webhookSecret: null,
    logLevel: "off",
    // The chain's deadline interrupts (and so aborts) the call first.
    timeout: 10 * 60 * 1000
  })
  const body = (request: LlmRequest) => ({
    model: options.model,
    messages: [{ role: "system" as const, content: request.system }, { role: "user" as const, content: request.prompt }],
    ...(options.maxOutputTokens === undefined ? {} : { max_completion_tokens: options.maxOutputTokens })
  })
  const endpoint = endpointOfBaseUrl(baseURL)
  return LlmProvider.of({
    provider: options.providerName ?? "openai",
    model: options.model,
    ...(endpoint === undefined ? {} : { endpoint }),
    generate: (request) =>
      Effect.tryPromise({
        try: (signal) => client.chat.completions.create(body(request), { signal }),
        catch: (error) => toFailure(OpenAI, error)
      }).pipe(
        Effect.flatMap((completion) => {
          const choice = Array.isArray(completion.choices) ? completion.choices[0] : undefined
          if (choice === undefined || typeof choice !== "object") {
            return Effect.fail(new LlmFailure({ kind: "bad_response", detail: "the provider's answer held no choice" }))
          }
          return Effect.succeed({
            text: typeof choice.message?.content === "string" ? choice.message.content : "",
            usage: usageOf(completion.usage)
          })
        }),
        Effect.withSpan("OpenAiProvider.generate", { attributes: { model: options.model } })
      ),
    stream: (request) =>
      Stream.unwrap(Effect.gen(function*() {
        // Aborted when the stream ends for any reason (done, failed, interrupted): the
        // SDK's own abort on early exit waits for a pending read, so it cannot be relied on.
        const controller = yield* Effect.acquireRelease(
          Effect.sync(() => new AbortController()),
          (controller) => Effect.sync(() => controller.abort())
        )
        const chunks = yield* Effect.tryPromise({
          try: () =>
            client.chat.completions.create({
              ...body(request),
              stream: true,
              ...(options.streamUsage === false ? {} : { stream_options: { include_usage: true } })
            }, { signal: controller.signal }),
          catch: (error) => toFailure(OpenAI, error)
        })
        return Stream.fromAsyncIterable(chunks, (error) => toStreamFailure(OpenAI, error)).pipe(
          Stream.map(partsOf),
          Stream.flattenIterable
        )
      })).pipe(Stream.withSpan("OpenAiProvider.stream", { attributes: { model: options.model } }))
  })
}

/** The provider for `options`: loads the SDK (once per process), then builds its client. */
export const make = (options: Options): Effect.Effect<LlmProvider["Service"]> =>
  Effect.map(Effect.promise(() => import("openai")), (sdk) => fromSdk(sdk.default, options))

/** The provider for `options`, as a layer. */
export const layer = (options: Options): Layer.Layer<LlmProvider> => Layer.effect(LlmProvider, make(options))
