/**
 * Coursekit's `LlmProvider` on Google's Gen AI SDK (`@google/genai`, the successor of
 * `@google/generative-ai`): Gemini models through `generateContent` (`stream`:
 * `streamGenerateContent`), the base URL configurable. The SDK's retries are off: the chain decides what happens after a
 * failure. Every SDK error becomes an `LlmFailure` here; no SDK type or message crosses
 * this file (messages quote the provider's answer). The SDK is loaded when a provider is
 * made, so a process that configures no Gemini model never loads it (about 3 MiB of heap).
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

type Sdk = typeof import("@google/genai")

/** Options of {@link layer}. */
export interface Options {
  /** e.g. `gemini-2.5-flash`. */
  readonly model: string
  readonly apiKey: Redacted.Redacted<string>
  /** Default Google's (`https://generativelanguage.googleapis.com`). */
  readonly baseUrl?: string | undefined
  /** Shown to API callers as the provider; default `google`. */
  readonly providerName?: string | undefined
  /** Longest output, in tokens; default the model's. */
  readonly maxOutputTokens?: number | undefined
  /** The Gemini API version in the path; default `v1` (`v1beta` for preview features). */
  readonly apiVersion?: string | undefined
}

/**
 * Gemini puts its wait in the error body (`google.rpc.RetryInfo`, `"retryDelay": "30s"`),
 * which the SDK keeps as the error's message.
 */
const retryDelayOf = (message: string): number | undefined => {
  const delay = /"retryDelay"\s*:\s*"(\d+(?:\.\d+)?)s"/.exec(message)?.[1]
  return delay === undefined ? undefined : Math.round(Number(delay) * 1000)
}

const unreadable = new LlmFailure({ kind: "bad_response", detail: "the provider's answer could not be read" })

/**
 * Gemini's `usageMetadata` as the port's; `null` when the answer has none. Thinking
 * tokens are billed as output, and Gemini counts them apart from the candidates'.
 */
const usageOf = (metadata: unknown): LlmUsage | null => {
  if (typeof metadata !== "object" || metadata === null) return null
  const counts = metadata as { readonly promptTokenCount?: unknown; readonly candidatesTokenCount?: unknown; readonly thoughtsTokenCount?: unknown }
  const candidates = reportedTokenCount(counts.candidatesTokenCount)
  const thoughts = reportedTokenCount(counts.thoughtsTokenCount)
  return {
    input_tokens: reportedTokenCount(counts.promptTokenCount),
    output_tokens: candidates === null && thoughts === null ? null : (candidates ?? 0) + (thoughts ?? 0)
  }
}

/** The text of an answer: the first candidate's text parts (no candidate, no text). */
const textOf = (response: { readonly text: string | undefined }): string => response.text ?? ""

/** The provider for `options`, once the SDK is loaded. */
const fromSdk = ({ ApiError, GoogleGenAI }: Sdk, options: Options): LlmProvider["Service"] => {
  const baseUrl = options.baseUrl ?? "https://generativelanguage.googleapis.com"
  // Everything explicit, so that no GOOGLE_GENAI_* / GOOGLE_GEMINI_* variable of the host
  // switches the client to Vertex AI, another URL or another API version.
  const client = new GoogleGenAI({
    apiKey: Redacted.value(options.apiKey),
    vertexai: false,
    apiVersion: options.apiVersion ?? "v1",
    httpOptions: { baseUrl, retryOptions: { attempts: 1 } }
  })
  /**
   * The call's parameters, and how to classify a failure before the answer starts. The
   * SDK's error keeps the status, not the headers: a fetch of this call's own keeps
   * Retry-After.
   */
  const call = (request: LlmRequest) => {
    let retryAfterHeader: string | null = null
    const fetchKeepingRetryAfter: typeof fetch = async (input, init) => {
      const response = await fetch(input, init)
      if (!response.ok) retryAfterHeader = response.headers.get("retry-after")
      return response
    }
    return {
      params: (abortSignal: AbortSignal) => ({
        model: options.model,
        contents: request.prompt,
        config: {
          systemInstruction: request.system,
          abortSignal,
          httpOptions: { fetch: fetchKeepingRetryAfter },
          ...(options.maxOutputTokens === undefined ? {} : { maxOutputTokens: options.maxOutputTokens })
        }
      }),
      toFailure: (error: unknown): LlmFailure => {
        if (error instanceof ApiError) {
          return failureOfStatus(error.status, parseRetryAfter(retryAfterHeader) ?? retryDelayOf(error.message))
        }
        if (error instanceof SyntaxError) return unreadable
        return new LlmFailure({ kind: "network_error", detail: "the provider could not be reached" })
      }
    }
  }
  /**
   * A failure while reading a streamed answer. The SDK throws Gemini's in-stream error
   * object (`data: {"error": {"code": 500, …}}`) as an `ApiError` with that code.
   */
  const toStreamFailure = (error: unknown): LlmFailure => {
    if (error instanceof ApiError) {
      const retryAfterMillis = retryDelayOf(error.message)
      return new LlmFailure({
        kind: failureKindOfStatus(error.status),
        detail: `the provider ended the answer with an error (${error.status})`,
        status: error.status,
        ...(retryAfterMillis === undefined ? {} : { retryAfterMillis })
      })
    }
    if (error instanceof SyntaxError) return new LlmFailure({ kind: "bad_response", detail: "a chunk of the provider's answer could not be read" })
    // The body broke off (undici's "terminated") or ended inside an event.
    return new LlmFailure({ kind: "network_error", detail: "the connection to the provider was lost mid-answer" })
  }
  const endpoint = endpointOfBaseUrl(baseUrl)
  return LlmProvider.of({
    provider: options.providerName ?? "google",
    model: options.model,
    ...(endpoint === undefined ? {} : { endpoint }),
    generate: (request) =>
      Effect.suspend(() => {
        const { params, toFailure } = call(request)
        return Effect.tryPromise({ try: (signal) => client.models.generateContent(params(signal)), catch: toFailure })
      }).pipe(
        Effect.flatMap((response) =>
          Effect.try({
            try: () => ({ text: textOf(response), usage: usageOf(response.usageMetadata) }),
            catch: () => unreadable
          })
        ),
        Effect.withSpan("GeminiProvider.generate", { attributes: { model: options.model } })
      ),
    stream: (request) =>
      Stream.unwrap(Effect.gen(function*() {
        // Aborted when the stream ends for any reason (done, failed, interrupted), also
        // while a read is pending.
        const controller = yield* Effect.acquireRelease(
          Effect.sync(() => new AbortController()),
          (controller) => Effect.sync(() => controller.abort())
        )
        const { params, toFailure } = call(request)
        const chunks = yield* Effect.tryPromise({
          try: () => client.models.generateContentStream(params(controller.signal)),
          catch: toFailure
        })
        return Stream.fromAsyncIterable(chunks, toStreamFailure).pipe(
          Stream.mapEffect((chunk) =>
            Effect.try({
              try: (): ReadonlyArray<LlmStreamPart> => {
                const text = textOf(chunk)
                const usage = usageOf(chunk.usageMetadata)
                return [...(text === "" ? [] : [StreamPart.textDelta(text)]), ...(usage === null ? [] : [StreamPart.usage(usage)])]
              },
              catch: () => unreadable
            })
          ),
          Stream.flattenIterable
        )
      })).pipe(Stream.withSpan("GeminiProvider.stream", { attributes: { model: options.model } }))
  })
}

/** The provider for `options`: loads the SDK (once per process), then builds its client. */
export const make = (options: Options): Effect.Effect<LlmProvider["Service"]> =>
  Effect.map(Effect.promise(() => import("@google/genai")), (sdk) => fromSdk(sdk, options))

/** The provider for `options`, as a layer. */
export const layer = (options: Options): Layer.Layer<LlmProvider> => Layer.effect(LlmProvider, make(options))
