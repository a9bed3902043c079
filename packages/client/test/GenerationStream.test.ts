/**
 * The client's view of the generation event stream, against the real standalone server
 * whose primary model is the real OpenAI adapter calling a loopback server that speaks
 * OpenAI's streaming wire format: the Effect `Stream` and the Promise client's async
 * iterator.
 */
import { modelScript, ModelAnswer } from "@coursekit/core/testing"
import { FakeOpenAiServer } from "@coursekit/llm-openai/testing"
import { assert, describe, layer } from "@effect/vitest"
import { Context, Duration, Effect, Layer, Option, Redacted, Stream } from "effect"
import { FetchHttpClient } from "effect/http"
import { adminToken, layerTestServer, TestServer } from "../../server/test/TestServer.ts"
import { CoursekitError, createClient, type GenerationEvent, streamGeneration } from "../src/index.ts"

class Model extends Context.Service<Model, FakeOpenAiServer.FakeOpenAiServer>()("test/ClientStreamModel") {}

const layerServer = Layer.unwrap(Effect.gen(function*() {
  const openai = yield* FakeOpenAiServer.start({ script: modelScript(), model: "gpt-test" })
  return Layer.merge(
    layerTestServer({
      aiModels: [{ prefix: "AI_PRIMARY", provider: "openai", model: "gpt-test", apiKey: Option.some(Redacted.make("sk-test")), baseUrl: Option.some(openai.baseUrl), prices: Option.none() }],
      aiCooldown: Duration.zero
    }),
    Layer.succeed(Model, openai)
  )
}))

const kinds = (events: ReadonlyArray<GenerationEvent>) => events.map((event) => event.event)

describe("@coursekit/client: the generation event stream", () => {
  layer(layerServer, { timeout: 60_000, excludeTestServices: true })((it) => {
    it.effect("streamGeneration is an Effect Stream of attempt, html and done events, decoded", () =>
      Effect.gen(function*() {
        const model = yield* Model
        const { url } = yield* TestServer
        model.script.answerWith(ModelAnswer.text("Here you go:\n<h2>Ownership</h2><p>One <b>owner</b>.</p><p>Moves.</p>", { chunkChars: 5 }))
        const events = yield* Stream.runCollect(streamGeneration({ baseUrl: url, adminToken }, { prompt: "A lesson" })).pipe(Effect.provide(FetchHttpClient.layer))
        assert.deepStrictEqual(kinds(events), ["html", "html", "html", "attempt", "done"])
        const html = events.flatMap((event) => event.event === "html" ? [event.data.html] : []).join("")
        const done = events.at(-1)!
        assert.strictEqual(done.event, "done")
        if (done.event !== "done") return
        assert.strictEqual(html, done.data.html)
        assert.strictEqual(html, "<h2>Ownership</h2><p>One <b>owner</b>.</p><p>Moves.</p>")
        assert.deepStrictEqual(done.data.attempts[0]!.usage, { input_tokens: 10, output_tokens: 10 })
      }))

    it.effect("an error event fails the Effect stream with GenerationStreamError carrying the problem; a missing token is a 401", () =>
      Effect.gen(function*() {
        const model = yield* Model
        const { url } = yield* TestServer
        model.script.answerWith(ModelAnswer.status(500))
        const failed = yield* Effect.flip(Stream.runCollect(streamGeneration({ baseUrl: url, adminToken }, { prompt: "A lesson" }))).pipe(Effect.provide(FetchHttpClient.layer))
        assert.strictEqual(failed._tag, "GenerationStreamError")
        assert.strictEqual(failed.status, 502)
        assert.deepStrictEqual(failed.problem.attempts?.map((attempt) => attempt.outcome), ["server_error"])
        const anonymous = yield* Effect.flip(Stream.runCollect(streamGeneration({ baseUrl: url }, { prompt: "A lesson" }))).pipe(Effect.provide(FetchHttpClient.layer))
        assert.strictEqual(anonymous.status, 401)
        assert.strictEqual(anonymous.problem.title, "Unauthorized")
      }))

    it.effect("the Promise client's async iterator yields the events; leaving the loop early stops the model's request", () =>
      Effect.gen(function*() {
        const model = yield* Model
        const { url } = yield* TestServer
        const kit = createClient({ baseUrl: url, adminToken })
        model.script.answerWith(ModelAnswer.text("<h2>A</h2><p>B</p>", { chunkChars: 3 }))
        const all = yield* Effect.promise(async () => {
          const seen: Array<GenerationEvent> = []
          for await (const event of kit.streamGeneration({ prompt: "A lesson" })) seen.push(event)
          return seen
        })
        assert.deepStrictEqual(kinds(all), ["html", "html", "attempt", "done"])

        model.script.answerWith(ModelAnswer.text(Array.from({ length: 40 }, (_, i) => `<p>Paragraph ${i}.</p>`).join(""), { chunkChars: 4, chunkDelayMs: 20 }))
        const abandonedBefore = model.script.abandoned
        const first = yield* Effect.promise(async () => {
          for await (const event of kit.streamGeneration({ prompt: "A long lesson" })) return event
          return undefined
        })
        assert.strictEqual(first?.event, "html")
        let abandoned = false
        for (let i = 0; i < 100 && !abandoned; i++) {
          yield* Effect.sleep(Duration.millis(20))
          abandoned = model.script.abandoned > abandonedBefore
        }
        assert.isTrue(abandoned, "leaving the loop did not stop the model's request")
        yield* Effect.promise(() => kit.dispose())
      }))

    it.effect("the Promise client's iterator rejects with a CoursekitError holding the error event's problem", () =>
      Effect.gen(function*() {
        const model = yield* Model
        const { url } = yield* TestServer
        const kit = createClient({ baseUrl: url, adminToken })
        model.script.answerWith(ModelAnswer.breakAfter("<h2>A</h2><p>B</p><p>C", "reset", { chunkChars: 4 }))
        const outcome = yield* Effect.promise(async () => {
          const seen: Array<string> = []
          try {
            for await (const event of kit.streamGeneration({ prompt: "A lesson" })) seen.push(event.event)
            return { seen, error: undefined }
          } catch (error) {
            return { seen, error }
          }
        })
        assert.deepStrictEqual(outcome.seen, ["html", "html", "attempt"])
        assert.instanceOf(outcome.error, CoursekitError)
        const error = outcome.error as CoursekitError
        assert.strictEqual(error.status, 502)
        assert.include(error.message, "after part of the answer had been sent")
        yield* Effect.promise(() => kit.dispose())
      }))
  })
})
