/**
 * The limit on HTML bodies holds on what is stored (issue #30): a body that grows past
 * 1,000,000 characters when sanitized (`&` is written back as `&amp;`, embeds are written
 * afresh) is a 422 naming content_html, for courses, lessons and generated HTML; a body
 * stored at the limit reads back and is written back unchanged.
 */
import { modelScript, ModelAnswer } from "@coursekit/core/testing"
import { FakeOpenAiServer } from "@coursekit/llm-openai/testing"
import { assert, describe, layer } from "@effect/vitest"
import { Duration, Effect, Layer, Option, Redacted } from "effect"
import { call, layerTestServer } from "./TestServer.ts"

/** `&` written out: five characters stored for each one sent. */
const ampersands = (count: number) => "&".repeat(count)

const script = modelScript()
const layerServer = Layer.unwrap(Effect.gen(function*() {
  const model = yield* FakeOpenAiServer.start({ script, model: "gpt-limits" })
  return layerTestServer({
    aiModels: [{
      prefix: "AI_PRIMARY",
      provider: "openai",
      model: "gpt-limits",
      apiKey: Option.some(Redacted.make("sk-test-limits-0123456789")),
      baseUrl: Option.some(model.baseUrl),
      prices: Option.none()
    }]
  })
}))

describe("stored HTML stays within what may be stored", () => {
  layer(layerServer, { timeout: 60_000 })((it) => {
    it.effect("a course body that grows past 1,000,000 characters once sanitized is a 422 naming content_html; nothing is stored", () =>
      Effect.gen(function*() {
        const created = yield* call("/courses", { method: "POST", admin: true, json: { title: "Limits", content_html: "<p>Before</p>" } })
        assert.strictEqual(created.status, 201)
        // 200,001 characters sent, 1,000,005 to store.
        const grown = yield* call(`/courses/${created.body.id}`, { method: "PATCH", admin: true, json: { content_html: ampersands(200_001) } })
        assert.strictEqual(grown.status, 422)
        assert.strictEqual(grown.body.detail, "Once sanitized, the HTML is longer than the 1000000 characters that may be stored.")
        assert.deepStrictEqual(grown.body.errors, [{ path: "body.content_html", message: grown.body.detail }])
        const unchanged = yield* call(`/courses/${created.body.id}`, { admin: true })
        assert.strictEqual(unchanged.body.content_html, "<p>Before</p>")
        const refusedCreate = yield* call("/courses", { method: "POST", admin: true, json: { title: "Too long", content_html: ampersands(200_001) } })
        assert.strictEqual(refusedCreate.status, 422)
      }))

    it.effect("a body stored at exactly the limit reads back, and written back unchanged is a 200 with the same body", () =>
      Effect.gen(function*() {
        const created = yield* call("/courses", { method: "POST", admin: true, json: { title: "At the limit", content_html: ampersands(200_000) } })
        assert.strictEqual(created.status, 201)
        assert.strictEqual(created.body.content_html.length, 1_000_000)
        const read = yield* call(`/courses/${created.body.id}`, { admin: true })
        assert.strictEqual(read.body.content_html.length, 1_000_000)
        const written = yield* call(`/courses/${created.body.id}`, { method: "PATCH", admin: true, json: { content_html: read.body.content_html } })
        assert.strictEqual(written.status, 200)
        assert.strictEqual(written.body.content_html, read.body.content_html)
      }))

    it.effect("a lesson body the same: 422 past the limit once sanitized, nothing stored", () =>
      Effect.gen(function*() {
        const course = yield* call("/courses", { method: "POST", admin: true, json: { title: "Lessons", content_html: "<p>x</p>" } })
        const refused = yield* call(`/courses/${course.body.id}/lessons`, {
          method: "POST",
          admin: true,
          json: { title: "Long", content_html: ampersands(200_001) }
        })
        assert.strictEqual(refused.status, 422)
        assert.strictEqual(refused.body.errors[0].path, "body.content_html")
        const lessons = yield* call(`/courses/${course.body.id}/lessons`, { admin: true })
        assert.deepStrictEqual(lessons.body, [])
      }))

    it.effect("generated HTML that grows past the limit once sanitized fails its attempt as too_long", () =>
      Effect.gen(function*() {
        // 600,000 bytes from the model (under its 1 MB), 3,000,007 characters once sanitized.
        script.answerWith(ModelAnswer.text(`<p>${ampersands(600_000)}</p>`))
        const reply = yield* call("/admin/ai/generate", { method: "POST", admin: true, json: { prompt: "A long lesson" } })
        assert.strictEqual(reply.status, 502)
        assert.deepStrictEqual(reply.body.attempts.map((attempt: { outcome: string }) => attempt.outcome), ["too_long"])
        assert.strictEqual(reply.body.attempts[0].detail, "Once sanitized, the HTML is longer than the 1000000 characters that may be stored.")
      }))
  })
})

describe("a full sanitizer queue", () => {
  layer(layerTestServer({
    sanitizer: { workers: 1, maxQueue: 0, timeBudget: Duration.seconds(10), idleTimeout: Duration.seconds(10), maxElements: 1_000_000 }
  }), { timeout: 60_000 })((it) => {
    it.effect("is a 503 with Retry-After that says nothing was stored; once the worker is free the same write goes through", () =>
      Effect.gen(function*() {
        const course = yield* call("/courses", { method: "POST", admin: true, json: { title: "Busy", content_html: "<p>warm</p>" } })
        // A body that keeps the one worker busy for a while, sent three times at once.
        const slow = "<b><p>x".repeat(60_000)
        const replies = yield* Effect.all(
          Array.from({ length: 3 }, () => call(`/courses/${course.body.id}`, { method: "PATCH", admin: true, json: { content_html: slow } })),
          { concurrency: "unbounded" }
        )
        const busy = replies.filter((reply) => reply.status === 503)
        assert.isAtLeast(busy.length, 1, replies.map((reply) => reply.status).join(", "))
        for (const reply of busy) {
          assert.strictEqual(reply.headers.get("retry-after"), "2")
          assert.strictEqual(reply.body.detail, "The HTML sanitizer is busy; try again shortly. Nothing was stored.")
        }
        assert.isTrue(replies.some((reply) => reply.status === 200))
        const again = yield* call(`/courses/${course.body.id}`, { method: "PATCH", admin: true, json: { content_html: "<p>later</p>" } })
        assert.strictEqual(again.status, 200)
      }))
  })
})
