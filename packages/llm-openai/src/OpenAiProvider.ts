/**
 * Coursekit's `LlmProvider` on the `openai` SDK's chat completions: OpenAI itself and every
 * OpenAI-compatible endpoint (Groq, OpenRouter, Together, Ollama, vLLM, llama.cpp) by
 * its base URL. The SDK's own retries are off: the chain decides what happens after a
 * failure. Every SDK error becomes an `LlmFailure` here; no SDK type or message crosses
 * this file (messages can quote a key). The SDK is loaded when a provider is made, so a
 * process that configures no OpenAI model never loads it (about 4 MiB of heap).
 *
 * @since 0.1.0
 */
import { endpointOf, failureOfStatus, LlmFailure, LlmProvider, parseRetryAfter } from "@coursekit/core"
import { Effect, Layer, Redacted } from "effect"
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
}

const toFailure = (OpenAI: Sdk, error: unknown): LlmFailure => {
  if (error instanceof OpenAI.APIConnectionTimeoutError) return new LlmFailure({ kind: "timeout", detail: "the provider did not answer in time" })
  if (error instanceof OpenAI.APIConnectionError) return new LlmFailure({ kind: "network_error", detail: "the provider could not be reached" })
  if (error instanceof OpenAI.APIError && error.status !== undefined) {
    return failureOfStatus(error.status, parseRetryAfter(error.headers?.get("retry-after")))
  }
  // A 200 whose body is not the JSON the SDK expects.
  return new LlmFailure({ kind: "bad_response", detail: "the provider's answer could not be read" })
}

/** The provider for `options`, once the SDK is loaded. */
const fromSdk = (OpenAI: Sdk, options: Options): LlmProvider["Service"] => {
  const baseUrl = options.baseUrl ?? "https://api.openai.com/v1"
  const client = new OpenAI({
    // The SDK insists on a key (else it reads OPENAI_API_KEY); keyless endpoints ignore it.
    apiKey: options.apiKey === undefined ? "no-key" : Redacted.value(options.apiKey),
    // Never the SDK's environment defaults (OPENAI_BASE_URL): configuration comes in here.
    baseURL: baseUrl,
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
  return LlmProvider.of({
    provider: options.providerName ?? "openai",
    model: options.model,
    endpoint: endpointOf(baseUrl),
    generate: (request) =>
      Effect.tryPromise({
        try: (signal) =>
          client.chat.completions.create({
            model: options.model,
            messages: [{ role: "system", content: request.system }, { role: "user", content: request.prompt }],
            ...(options.maxOutputTokens === undefined ? {} : { max_completion_tokens: options.maxOutputTokens })
          }, { signal }),
        catch: (error) => toFailure(OpenAI, error)
      }).pipe(
        Effect.flatMap((completion) => {
          const choice = Array.isArray(completion.choices) ? completion.choices[0] : undefined
          if (choice === undefined || typeof choice !== "object") {
            return Effect.fail(new LlmFailure({ kind: "bad_response", detail: "the provider's answer held no choice" }))
          }
          return Effect.succeed(typeof choice.message?.content === "string" ? choice.message.content : "")
        }),
        Effect.withSpan("OpenAiProvider.generate", { attributes: { model: options.model } })
      )
  })
}

/** The provider for `options`: loads the SDK (once per process), then builds its client. */
export const make = (options: Options): Effect.Effect<LlmProvider["Service"]> =>
  Effect.map(Effect.promise(() => import("openai")), (sdk) => fromSdk(sdk.default, options))

/** The provider for `options`, as a layer. */
export const layer = (options: Options): Layer.Layer<LlmProvider> => Layer.effect(LlmProvider, make(options))
