/**
 * Test support for code that uses `@coursekit/llm-openai`: a loopback server speaking
 * OpenAI's chat-completions wire format, scripted per test.
 *
 * @since 0.1.0
 */
export * as FakeOpenAiServer from "./FakeOpenAiServer.ts"
export { FakeOpenAi } from "./FakeOpenAiServer.ts"
