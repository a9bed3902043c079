import { Effect, Layer, Redacted, Stream } from "effect"
import { assert, describe, it } from "@effect/vitest"
import { LlmProviderHarness, llmProviderSuite, ModelAnswer, writingTimeMs } from "@coursekit/core/testing"
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
      assert.deepStrictEqual(yield* provider.generate({ prompt: "p", system: "s" }), { text: "<p>Hello.</p>", usage: { input_tokens: 10, output_tokens: 10 } })
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
        const streamed = yield* Effect.flip(Stream.runDrain(provider.stream({ prompt: "p", system: "s" })))
        assert.notInclude(JSON.stringify(streamed) + streamed.message, apiKey)
      }
    }).pipe(Effect.scoped))

  it.effect("an endpoint nobody listens on is network_error", () =>
    Effect.gen(function*() {
      const provider = yield* OpenAiProvider.make({ model: "m", apiKey: Redacted.make(apiKey), baseUrl: "http://127.0.0.1:9/v1" })
      const failure = yield* Effect.flip(provider.generate({ prompt: "p", system: "s" }))
      assert.strictEqual(failure.kind, "network_error")
      const streamed = yield* Effect.flip(Stream.runDrain(provider.stream({ prompt: "p", system: "s" })))
      assert.strictEqual(streamed.kind, "network_error")
    }))

  it.effect("its endpoint is the base URL's origin and path, without userinfo, query or fragment", () =>
    Effect.gen(function*() {
      const gateway = yield* OpenAiProvider.make({ model: "m", apiKey: Redacted.make(apiKey), baseUrl: "https://user:sk-secret@gw.example:8443/openai/v1/?api-key=sk-x#frag" })
      assert.strictEqual(gateway.endpoint, "https://gw.example:8443/openai/v1")
      const direct = yield* OpenAiProvider.make({ model: "m", apiKey: Redacted.make(apiKey) })
      assert.strictEqual(direct.endpoint, "https://api.openai.com/v1")
    }))

  it.effect("with streamUsage off, a stream asks for no usage and reports none", () =>
    Effect.gen(function*() {
      const fake = yield* FakeOpenAiServer.start()
      const provider = yield* OpenAiProvider.make({ model: "m", apiKey: Redacted.make(apiKey), baseUrl: fake.baseUrl, streamUsage: false })
      fake.script.answerWith(ModelAnswer.text("<p>Counted?</p>", { usage: { input_tokens: 3, output_tokens: 4 } }))
      const parts = Array.from(yield* Stream.runCollect(provider.stream({ prompt: "p", system: "s" })))
      assert.deepStrictEqual(parts.filter((part) => part._tag === "Usage"), [])
      assert.strictEqual(parts.map((part) => part._tag === "TextDelta" ? part.text : "").join(""), "<p>Counted?</p>")
    }).pipe(Effect.scoped))

  it.live("a paced answer streams its first part long before its last; a whole one comes when the last would have", () =>
    Effect.gen(function*() {
      const fake = yield* FakeOpenAiServer.start()
      const provider = yield* OpenAiProvider.make({ model: "m", apiKey: Redacted.make(apiKey), baseUrl: fake.baseUrl })
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
