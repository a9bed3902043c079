/**
 * Test support for code that uses `@coursekit/llm-gemini`: a loopback server speaking the
 * Gemini API's `generateContent` wire format, scripted per test.
 *
 * @since 0.1.0
 */
export * as FakeGeminiServer from "./FakeGeminiServer.ts"
export { FakeGemini } from "./FakeGeminiServer.ts"
