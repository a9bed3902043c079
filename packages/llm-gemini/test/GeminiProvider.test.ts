import { Effect, Layer, Redacted, Stream } from "effect"
import { assert, describe, it } from "@effect/vitest"
import { LlmProviderHarness, llmProviderSuite, ModelAnswer, writingTimeMs } from "@coursekit/core/testing"
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
      assert.deepStrictEqual(yield* provider.generate({ prompt: "p", system: "s" }), { text: "<p>Hello.</p>", usage: { input_tokens: 10, output_tokens: 10 } })
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
        const streamed = yield* Effect.flip(Stream.runDrain(provider.stream({ prompt: "p", system: "s" })))
        assert.notInclude(JSON.stringify(streamed) + streamed.message, apiKey)
      }
    }).pipe(Effect.scoped))

  it.effect("an endpoint nobody listens on is network_error", () =>
    Effect.gen(function*() {
      const provider = yield* GeminiProvider.make({ model: "m", apiKey: Redacted.make(apiKey), baseUrl: "http://127.0.0.1:9" })
      const failure = yield* Effect.flip(provider.generate({ prompt: "p", system: "s" }))
      assert.strictEqual(failure.kind, "network_error")
      const streamed = yield* Effect.flip(Stream.runDrain(provider.stream({ prompt: "p", system: "s" })))
      assert.strictEqual(streamed.kind, "network_error")
    }))

  it.effect("its endpoint is the base URL's origin and path, without userinfo, query or fragment", () =>
    Effect.gen(function*() {
      const gateway = yield* GeminiProvider.make({ model: "m", apiKey: Redacted.make(apiKey), baseUrl: "https://user:AIza-secret@gw.example/gemini/?key=AIza-x#frag" })
      assert.strictEqual(gateway.endpoint, "https://gw.example/gemini")
      const direct = yield* GeminiProvider.make({ model: "m", apiKey: Redacted.make(apiKey) })
      assert.strictEqual(direct.endpoint, "https://generativelanguage.googleapis.com")
    }))

  it.live("a paced answer streams its first part long before its last; a whole one comes when the last would have", () =>
    Effect.gen(function*() {
      const fake = yield* FakeGeminiServer.start()
      const provider = yield* GeminiProvider.make({ model: "m", apiKey: Redacted.make(apiKey), baseUrl: fake.baseUrl })
      const text = "<p>" + "word ".repeat(20) + "</p>"
      const pacing = { firstChunkDelayMs: 50, chunkChars: 10, chunkDelayMs: 100 }
      const paced = ModelAnswer.text(text, pacing)
      fake.script.answerWith(paced)
      const started = performance.now()
      const arrivals: Array<number> = []
      let streamedText = ""
      yield* Stream.runForEach(provider.stream({ prompt: "p", system: "s" }), (part) =>
        Effect.sync(() => {
          if (part._tag === "TextDelta") {
            arrivals.push(performance.now() - started)
            streamedText += part.text
          }
        }))
      // 11 chunks: the first after 50 ms, the last 10 × 100 ms later. The fake starts after
      // `started`, so its last chunk leaves no sooner than `lastDue`: a first part before
      // then was not held for the whole answer (a loaded machine only makes the last later).
      const lastDue = writingTimeMs(text, pacing)
      assert.strictEqual(lastDue, 1_050)
      assert.strictEqual(streamedText, text)
      assert.isAtLeast(arrivals[0]!, 45)
      assert.isBelow(arrivals[0]!, lastDue)
      assert.isAtLeast(arrivals.at(-1)!, lastDue - 5)
      const wholeStarted = performance.now()
      assert.strictEqual((yield* provider.generate({ prompt: "p", system: "s" })).text, text)
      assert.isAtLeast(performance.now() - wholeStarted, lastDue - 10)
    }).pipe(Effect.scoped))
})
