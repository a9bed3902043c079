import { Effect, Layer, Redacted } from "effect"
import { assert, describe, it } from "@effect/vitest"
import { LlmProviderHarness, llmProviderSuite } from "@coursekit/core/testing"
import { GeminiProvider } from "../src/index.ts"
import { FakeGeminiServer } from "../src/testing/index.ts"

const apiKey = "AIza-test-gemini-key-0123456789"

const harness = Layer.effect(
  LlmProviderHarness,
  Effect.gen(function*() {
    const fake = yield* FakeGeminiServer.start()
    const provider = yield* GeminiProvider.make({ model: "gemini-test", apiKey: Redacted.make(apiKey), baseUrl: fake.baseUrl })
    return LlmProviderHarness.of({ provider, script: fake.script })
  })
)

llmProviderSuite("gemini (@google/genai against a generateContent server on loopback)", harness)

describe("GeminiProvider", () => {
  it.effect("sends the key as x-goog-api-key, the model in the path, and names provider and model", () =>
    Effect.gen(function*() {
      const fake = yield* FakeGeminiServer.start()
      const provider = yield* GeminiProvider.make({ model: "gemini-2.5-flash", apiKey: Redacted.make(apiKey), baseUrl: fake.baseUrl, providerName: "vertex-proxy" })
      assert.strictEqual(yield* provider.generate({ prompt: "p", system: "s" }), "<p>Hello.</p>")
      assert.deepStrictEqual(fake.keys, [apiKey])
      assert.deepStrictEqual(fake.models, ["gemini-2.5-flash"])
      assert.strictEqual(provider.provider, "vertex-proxy")
      assert.strictEqual(provider.model, "gemini-2.5-flash")
    }).pipe(Effect.scoped))

  it.effect("its endpoint (the cool-down's place) is the base URL without credentials, query or trailing slash", () =>
    Effect.gen(function*() {
      const endpointOf = (baseUrl?: string) =>
        GeminiProvider.make({ model: "m", apiKey: Redacted.make(apiKey), ...(baseUrl === undefined ? {} : { baseUrl }) }).pipe(
          Effect.map((provider) => provider.endpoint)
        )
      assert.strictEqual(yield* endpointOf(), "https://generativelanguage.googleapis.com")
      assert.strictEqual(yield* endpointOf("https://proxy:AIza-secret@gemini.example.com/google/?key=AIza-secret"), "https://gemini.example.com/google")
    }))

  it.effect("no failure names the key", () =>
    Effect.gen(function*() {
      const fake = yield* FakeGeminiServer.start()
      const provider = yield* GeminiProvider.make({ model: "m", apiKey: Redacted.make(apiKey), baseUrl: fake.baseUrl })
      for (const status of [400, 401, 429, 500]) {
        fake.script.answerWith({ _tag: "Status", status })
        const failure = yield* Effect.flip(provider.generate({ prompt: "p", system: "s" }))
        assert.notInclude(JSON.stringify(failure) + failure.message, apiKey)
      }
    }).pipe(Effect.scoped))

  it.effect("an endpoint nobody listens on is network_error", () =>
    Effect.gen(function*() {
      const provider = yield* GeminiProvider.make({ model: "m", apiKey: Redacted.make(apiKey), baseUrl: "http://127.0.0.1:9" })
      const failure = yield* Effect.flip(provider.generate({ prompt: "p", system: "s" }))
      assert.strictEqual(failure.kind, "network_error")
    }))
})
