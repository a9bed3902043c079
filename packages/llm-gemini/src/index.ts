/**
 * Coursekit's `LlmProvider` for Google Gemini: `GeminiProvider.layer({ model, apiKey, baseUrl })`.
 *
 * @since 0.1.0
 */
export * as GeminiProvider from "./GeminiProvider.ts"
