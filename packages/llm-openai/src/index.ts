/**
 * Coursekit's `LlmProvider` for OpenAI and OpenAI-compatible chat-completions endpoints:
 * `OpenAiProvider.layer({ model, apiKey, baseUrl })`.
 *
 * @since 0.1.0
 */
export * as OpenAiProvider from "./OpenAiProvider.ts"
