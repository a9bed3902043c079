import { Effect, Layer, Redacted } from "effect"
import { assert, describe, it } from "@effect/vitest"
import { LlmProviderHarness, llmProviderSuite } from "@coursekit/core/testing"
import { OpenAiProvider } from "../src/index.ts"
import { FakeOpenAiServer } from "../src/testing/index.ts"

const apiKey = "sk-test-openai-key-0123456789"

const harness = Layer.effect(
  LlmProviderHarness,
  Effect.gen(function*() {
    const fake = yield* FakeOpenAiServer.start()
    const provider = yield* OpenAiProvider.make({ model: "gpt-test", apiKey: Redacted.make(apiKey), baseUrl: fake.baseUrl })
    return LlmProviderHarness.of({ provider, script: fake.script })
  })
)

llmProviderSuite("openai (the openai SDK against a chat-completions server on loopback)", harness)

describe("OpenAiProvider", () => {
  it.effect("sends the key as a bearer token and names provider and model", () =>
    Effect.gen(function*() {
      const fake = yield* FakeOpenAiServer.start()
      const provider = yield* OpenAiProvider.make({ model: "llama-3.3-70b", apiKey: Redacted.make(apiKey), baseUrl: fake.baseUrl, providerName: "groq" })
      assert.strictEqual(yield* provider.generate({ prompt: "p", system: "s" }), "<p>Hello.</p>")
      assert.deepStrictEqual(fake.keys, [apiKey])
      assert.strictEqual(provider.provider, "groq")
      assert.strictEqual(provider.model, "llama-3.3-70b")
    }).pipe(Effect.scoped))

  it.effect("its endpoint (the cool-down's place) is the base URL without credentials, query or trailing slash", () =>
    Effect.gen(function*() {
      const endpointOf = (baseUrl?: string) =>
        OpenAiProvider.make({ model: "m", apiKey: Redacted.make(apiKey), ...(baseUrl === undefined ? {} : { baseUrl }) }).pipe(
          Effect.map((provider) => provider.endpoint)
        )
      assert.strictEqual(yield* endpointOf(), "https://api.openai.com/v1")
      assert.strictEqual(yield* endpointOf("https://user:sk-secret@api.groq.com/openai/v1/?key=sk-secret#x"), "https://api.groq.com/openai/v1")
      assert.strictEqual(yield* endpointOf("http://localhost:11434/v1"), "http://localhost:11434/v1")
    }))

  it.effect("no failure names the key", () =>
    Effect.gen(function*() {
      const fake = yield* FakeOpenAiServer.start()
      const provider = yield* OpenAiProvider.make({ model: "m", apiKey: Redacted.make(apiKey), baseUrl: fake.baseUrl })
      for (const status of [400, 401, 429, 500]) {
        fake.script.answerWith({ _tag: "Status", status })
        const failure = yield* Effect.flip(provider.generate({ prompt: "p", system: "s" }))
        assert.notInclude(JSON.stringify(failure) + failure.message, apiKey)
      }
    }).pipe(Effect.scoped))

  it.effect("an endpoint nobody listens on is network_error", () =>
    Effect.gen(function*() {
      const provider = yield* OpenAiProvider.make({ model: "m", apiKey: Redacted.make(apiKey), baseUrl: "http://127.0.0.1:9/v1" })
      const failure = yield* Effect.flip(provider.generate({ prompt: "p", system: "s" }))
      assert.strictEqual(failure.kind, "network_error")
    }))
})
