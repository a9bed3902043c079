/**
 * Coursekit's `LlmProvider` on Google's Gen AI SDK (`@google/genai`, the successor of
 * `@google/generative-ai`): Gemini models through `generateContent`, the base URL
 * configurable. The SDK's retries are off: the chain decides what happens after a
 * failure. Every SDK error becomes an `LlmFailure` here; no SDK type or message crosses
 * this file (messages quote the provider's answer). The SDK is loaded when a provider is
 * made, so a process that configures no Gemini model never loads it (about 3 MiB of heap).
 *
 * @since 0.1.0
 */
import { endpointOf, failureOfStatus, LlmFailure, LlmProvider, parseRetryAfter } from "@coursekit/core"
import { Effect, Layer, Redacted } from "effect"

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

/** The provider for `options`, once the SDK is loaded. */
const fromSdk = ({ ApiError, GoogleGenAI }: Sdk, options: Options): LlmProvider["Service"] => {
  // Everything explicit, so that no GOOGLE_GENAI_* / GOOGLE_GEMINI_* variable of the host
  // switches the client to Vertex AI, another URL or another API version.
  const baseUrl = options.baseUrl ?? "https://generativelanguage.googleapis.com"
  const client = new GoogleGenAI({
    apiKey: Redacted.value(options.apiKey),
    vertexai: false,
    apiVersion: options.apiVersion ?? "v1",
    httpOptions: {
      baseUrl,
      retryOptions: { attempts: 1 }
    }
  })
  return LlmProvider.of({
    provider: options.providerName ?? "google",
    model: options.model,
    endpoint: endpointOf(baseUrl),
    generate: (request) => {
      // The SDK's error keeps the status, not the headers: a fetch of this call's own
      // keeps Retry-After.
      let retryAfterHeader: string | null = null
      const fetchKeepingRetryAfter: typeof fetch = async (input, init) => {
        const response = await fetch(input, init)
        if (!response.ok) retryAfterHeader = response.headers.get("retry-after")
        return response
      }
      return Effect.tryPromise({
        try: (signal) =>
          client.models.generateContent({
            model: options.model,
            contents: request.prompt,
            config: {
              systemInstruction: request.system,
              abortSignal: signal,
              httpOptions: { fetch: fetchKeepingRetryAfter },
              ...(options.maxOutputTokens === undefined ? {} : { maxOutputTokens: options.maxOutputTokens })
            }
          }),
        catch: (error): LlmFailure => {
          if (error instanceof ApiError) {
            return failureOfStatus(error.status, parseRetryAfter(retryAfterHeader) ?? retryDelayOf(error.message))
          }
          if (error instanceof SyntaxError) return new LlmFailure({ kind: "bad_response", detail: "the provider's answer could not be read" })
          return new LlmFailure({ kind: "network_error", detail: "the provider could not be reached" })
        }
      }).pipe(
        Effect.flatMap((response) =>
          Effect.try({
            // `text` joins the first candidate's text parts; no candidate is no text.
            try: () => response.text ?? "",
            catch: () => new LlmFailure({ kind: "bad_response", detail: "the provider's answer could not be read" })
          })
        ),
        Effect.withSpan("GeminiProvider.generate", { attributes: { model: options.model } })
      )
    }
  })
}

/** The provider for `options`: loads the SDK (once per process), then builds its client. */
export const make = (options: Options): Effect.Effect<LlmProvider["Service"]> =>
  Effect.map(Effect.promise(() => import("@google/genai")), (sdk) => fromSdk(sdk, options))

/** The provider for `options`, as a layer. */
export const layer = (options: Options): Layer.Layer<LlmProvider> => Layer.effect(LlmProvider, make(options))
