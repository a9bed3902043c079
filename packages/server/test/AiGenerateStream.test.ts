/**
 * `POST /admin/ai/generate` with `Accept: text/event-stream`, end to end: the standalone
 * server, the real OpenAI and Gemini adapters (their SDKs' streaming APIs) and loopback
 * servers speaking each provider's streaming wire format, paced like a model writing.
 * The primary is "OpenAI" (priced), the secondary "Gemini" (no prices).
 */
import { modelScript, ModelAnswer, writingTimeMs } from "@coursekit/core/testing"
import { FakeGeminiServer } from "@coursekit/llm-gemini/testing"
import { FakeOpenAiServer } from "@coursekit/llm-openai/testing"
import { assert, describe, layer } from "@effect/vitest"
import { Context, Duration, Effect, Layer, Option, Redacted } from "effect"
import { adminToken, callAt, layerTestServer, TestServer } from "./TestServer.ts"

const openAiKey = "sk-proj-primary-SECRET-0123456789abcdef"
const geminiKey = "AIzaSy-secondary-SECRET-0123456789abcd"

const lesson = "Sure! Here is the lesson:\n```html\n" +
  Array.from({ length: 6 }, (_, i) => `<h2>Part ${i + 1}</h2>\n<p>Each value has <b>one</b> owner, part ${i + 1}.</p>\n<script>alert(${i})</script>\n`).join("") +
  "```\nLet me know if you want more!"

class Models extends Context.Service<Models, {
  readonly openai: FakeOpenAiServer.FakeOpenAiServer
  readonly gemini: FakeGeminiServer.FakeGeminiServer
}>()("test/StreamModels") {}

const layerServerWithModels = Layer.unwrap(Effect.gen(function*() {
  const openai = yield* FakeOpenAiServer.start({ script: modelScript(), model: "gpt-test" })
  const gemini = yield* FakeGeminiServer.start({ script: modelScript() })
  const server = layerTestServer({
    aiModels: [
      {
        prefix: "AI_PRIMARY",
        provider: "openai",
        model: "gpt-test",
        apiKey: Option.some(Redacted.make(openAiKey)),
        baseUrl: Option.some(openai.baseUrl),
        prices: Option.some({ inputPerMillion: 0.15, outputPerMillion: 0.6 })
      },
      { prefix: "AI_SECONDARY", provider: "google", model: "gemini-test", apiKey: Option.some(Redacted.make(geminiKey)), baseUrl: Option.some(gemini.baseUrl), prices: Option.none() }
    ],
    aiTimeout: Duration.seconds(5),
    aiCooldown: Duration.zero
  })
  return Layer.merge(server, Layer.succeed(Models, Models.of({ openai, gemini })))
}))

/** One server-sent event as it arrived, with when (ms after the request). */
interface Received {
  readonly event: string
  readonly data: any
  readonly at: number
}

/** POSTs `prompt` asking for the event stream; reads events until the end, or until `stopAfter` says so (then closes). */
const streamed = (prompt: string, options: { readonly stopAfter?: (event: Received) => boolean; readonly headers?: Record<string, string> } = {}) =>
  Effect.gen(function*() {
    const { url } = yield* TestServer
    return yield* Effect.promise(async () => {
      const started = Date.now()
      const controller = new AbortController()
      const response = await fetch(`${url}/admin/ai/generate`, {
        method: "POST",
        headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json", accept: "text/event-stream", ...options.headers },
        body: JSON.stringify({ prompt }),
        signal: controller.signal
      })
      const events: Array<Received> = []
      let raw = ""
      if (response.body === null) return { response, events, raw }
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader()
      let buffer = ""
      reading: while (true) {
        const { value, done } = await reader.read()
        if (done) break
        raw += value
        buffer += value
        let end: number
        while ((end = buffer.indexOf("\n\n")) !== -1) {
          const block = buffer.slice(0, end)
          buffer = buffer.slice(end + 2)
          const lines = block.split("\n")
          const name = lines.find((line) => line.startsWith("event: "))?.slice(7)
          const data = lines.find((line) => line.startsWith("data: "))?.slice(6)
          if (name === undefined || data === undefined) continue
          const event = { event: name, data: JSON.parse(data), at: Date.now() - started }
          events.push(event)
          if (options.stopAfter?.(event)) {
            controller.abort()
            break reading
          }
        }
      }
      return { response, events, raw }
    })
  })

const names = (events: ReadonlyArray<Received>) =>
  events.map((event) => event.event === "attempt" ? `attempt:${event.data.provider}:${event.data.outcome}` : event.event)

const htmlOf = (events: ReadonlyArray<Received>) => events.filter((event) => event.event === "html").map((event) => event.data.html).join("")

describe("POST /admin/ai/generate as server-sent events", () => {
  layer(layerServerWithModels, { timeout: 60_000, excludeTestServices: true })((it) => {
    it.effect("sanitized blocks arrive while the model is still writing; they make up done's html, which equals the JSON answer's", () =>
      Effect.gen(function*() {
        const { openai, gemini } = yield* Models
        // ~100 tokens/s: 8 characters every 20 ms, after 100 ms to the first token.
        const pacing = { firstChunkDelayMs: 100, chunkChars: 8, chunkDelayMs: 20 }
        openai.script.answerWith(ModelAnswer.text(lesson, { usage: { input_tokens: 1200, output_tokens: 800 }, ...pacing }))
        const geminiBefore = gemini.script.received.length
        const { response, events, raw } = yield* streamed("A lesson on ownership")
        assert.strictEqual(response.status, 200)
        assert.match(response.headers.get("content-type") ?? "", /^text\/event-stream/)
        assert.strictEqual(response.headers.get("cache-control"), "no-store")
        assert.deepStrictEqual(names(events), [...Array.from({ length: 12 }, () => "html"), "attempt:openai:success", "done"])
        const done = events.at(-1)!.data
        assert.strictEqual(htmlOf(events), done.html)
        assert.notMatch(done.html, /script|alert|Sure|```|Let me know/)
        assert.strictEqual(done.provider, "openai")
        assert.deepStrictEqual(done.attempts[0].usage, { input_tokens: 1200, output_tokens: 800 })
        // (1200 × 0.15 + 800 × 0.6) / 1e6
        assert.strictEqual(done.attempts[0].cost_usd, 0.00066)
        // The first block went out before the model finished writing. The loopback model starts
        // after this client did and sends its last chunk no sooner than `writingTimeMs` after
        // that, so a first block before that mark cannot have waited for the whole answer. A
        // loaded machine only makes the last chunk later, where a share of done's time failed.
        const firstHtml = events.find((event) => event.event === "html")!
        const lastChunkNoSooner = writingTimeMs(lesson, pacing)
        assert.isBelow(firstHtml.at, lastChunkNoSooner, `first html at ${firstHtml.at} ms, last chunk no sooner than ${lastChunkNoSooner} ms`)
        // The same model output answered as JSON is the same HTML.
        openai.script.answerWith(ModelAnswer.text(lesson))
        const json = yield* callAt((yield* TestServer).url, "/admin/ai/generate", { method: "POST", admin: true, json: { prompt: "A lesson on ownership" } })
        assert.strictEqual(json.status, 200)
        assert.strictEqual(json.body.html, done.html)
        assert.strictEqual(gemini.script.received.length, geminiBefore)
        assert.notInclude(raw, openAiKey)
        assert.notInclude(raw, "SECRET")
      }))

    it.effect("a primary that fails before streaming falls back: its attempt, then the secondary's streamed blocks", () =>
      Effect.gen(function*() {
        const { openai, gemini } = yield* Models
        openai.script.answerWith(ModelAnswer.status(429))
        gemini.script.answerWith(ModelAnswer.text("<h2>From Gemini</h2><p>Streamed.</p>", { chunkChars: 5, chunkDelayMs: 5 }))
        const { events, raw } = yield* streamed("A lesson")
        assert.deepStrictEqual(names(events), ["attempt:openai:rate_limited", "html", "html", "attempt:google:success", "done"])
        assert.strictEqual(htmlOf(events), "<h2>From Gemini</h2><p>Streamed.</p>")
        assert.strictEqual(events.at(-1)!.data.provider, "google")
        assert.deepStrictEqual(events[0]!.data.usage, null)
        // Gemini has no prices configured: usage, no cost.
        assert.deepStrictEqual(events.at(-1)!.data.attempts[1].usage, { input_tokens: 10, output_tokens: 10 })
        assert.isNull(events.at(-1)!.data.attempts[1].cost_usd)
        assert.notInclude(raw, geminiKey)
      }))

    it.effect("a primary that breaks mid-answer, after HTML went out, ends the stream with a 502 error event; the secondary is not asked", () =>
      Effect.gen(function*() {
        const { openai, gemini } = yield* Models
        openai.script.answerWith(ModelAnswer.breakAfter("<h2>One</h2><p>Two</p><p>Thr", "reset", { chunkChars: 6, chunkDelayMs: 5 }))
        const geminiBefore = gemini.script.received.length
        const { events } = yield* streamed("A lesson")
        assert.deepStrictEqual(names(events), ["html", "html", "attempt:openai:network_error", "error"])
        assert.strictEqual(htmlOf(events), "<h2>One</h2><p>Two</p>")
        const problem = events.at(-1)!.data
        assert.strictEqual(problem.status, 502)
        assert.strictEqual(problem.title, "Bad Gateway")
        assert.include(problem.detail, "after part of the answer had been sent")
        assert.deepStrictEqual(problem.attempts.map((attempt: { outcome: string }) => attempt.outcome), ["network_error"])
        assert.strictEqual(gemini.script.received.length, geminiBefore)
      }))

    it.effect("the provider's in-stream error event mid-answer is classified by its status", () =>
      Effect.gen(function*() {
        const { openai } = yield* Models
        openai.script.answerWith(ModelAnswer.breakAfter("<h2>One</h2><p>Two</p>", { status: 503 }, { chunkChars: 6 }))
        const { events } = yield* streamed("A lesson")
        assert.deepStrictEqual(names(events).slice(-2), ["attempt:openai:server_error", "error"])
      }))

    it.effect("every model failing ends the stream with a 502 error event holding the attempts", () =>
      Effect.gen(function*() {
        const { openai, gemini } = yield* Models
        openai.script.answerWith(ModelAnswer.status(500))
        gemini.script.answerWith(ModelAnswer.status(401))
        const { response, events } = yield* streamed("A lesson")
        assert.strictEqual(response.status, 200)
        assert.deepStrictEqual(names(events), ["attempt:openai:server_error", "attempt:google:auth_error", "error"])
        assert.strictEqual(events.at(-1)!.data.status, 502)
        assert.strictEqual(events.at(-1)!.data.attempts.length, 2)
      }))

    it.effect("a reader that goes away mid-stream stops the generation: the provider's request is aborted", () =>
      Effect.gen(function*() {
        const { openai } = yield* Models
        openai.script.answerWith(ModelAnswer.text(lesson, { chunkChars: 4, chunkDelayMs: 20 }))
        const abandonedBefore = openai.script.abandoned
        const { events } = yield* streamed("A lesson", { stopAfter: (event) => event.event === "html" })
        assert.deepStrictEqual(names(events), ["html"])
        let abandoned = false
        for (let i = 0; i < 100 && !abandoned; i++) {
          yield* Effect.sleep(Duration.millis(20))
          abandoned = openai.script.abandoned > abandonedBefore
        }
        assert.isTrue(abandoned, "the provider's streaming request was not aborted")
      }))

    it.effect("JSON stays the answer without Accept, with */*, and when event-stream has q=0", () =>
      Effect.gen(function*() {
        const { openai } = yield* Models
        openai.script.answerWith(ModelAnswer.text("<p>Plain.</p>"))
        const { url } = yield* TestServer
        for (const accept of [undefined, "*/*", "application/json", "text/event-stream;q=0, application/json"]) {
          const reply = yield* callAt(url, "/admin/ai/generate", {
            method: "POST",
            admin: true,
            json: { prompt: "x" },
            headers: accept === undefined ? {} : { accept }
          })
          assert.strictEqual(reply.status, 200, String(accept))
          assert.match(reply.headers.get("content-type") ?? "", /application\/json/, String(accept))
          assert.strictEqual(reply.body.html, "<p>Plain.</p>")
        }
      }))

    it.effect("asking for the stream does not skip the checks: no token is a 401 and a blank prompt a 400, as problems", () =>
      Effect.gen(function*() {
        const { openai } = yield* Models
        const before = openai.script.received.length
        const anonymous = yield* streamed("A lesson", { headers: { authorization: "" } })
        assert.strictEqual(anonymous.response.status, 401)
        assert.match(anonymous.response.headers.get("content-type") ?? "", /problem\+json/)
        const blank = yield* streamed("   ")
        assert.strictEqual(blank.response.status, 400)
        assert.include(blank.raw, "prompt")
        assert.strictEqual(openai.script.received.length, before)
      }))
  })
})

describe("POST /admin/ai/generate as server-sent events: no model configured", () => {
  layer(layerTestServer(), { timeout: 60_000, excludeTestServices: true })((it) => {
    it.effect("the stream's only event is a 503 error naming the variables to set", () =>
      Effect.gen(function*() {
        const { response, events } = yield* streamed("A lesson")
        assert.strictEqual(response.status, 200)
        assert.deepStrictEqual(names(events), ["error"])
        assert.strictEqual(events[0]!.data.status, 503)
        assert.include(events[0]!.data.detail, "AI_PRIMARY_PROVIDER")
      }))
  })
})
