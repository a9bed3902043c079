/**
 * `POST /admin/ai/generate` end to end: the standalone server with the real OpenAI and
 * Gemini adapters (their SDKs) calling loopback servers that speak each provider's wire
 * format, scripted per test. The primary is "OpenAI", the secondary "Gemini".
 */
import { promptMaxLength } from "@coursekit/core"
import { modelScript, ModelAnswer } from "@coursekit/core/testing"
import { FakeGeminiServer } from "@coursekit/llm-gemini/testing"
import { FakeOpenAiServer } from "@coursekit/llm-openai/testing"
import { assert, describe, it, layer } from "@effect/vitest"
import { Context, Duration, Effect, Layer, Option, Redacted } from "effect"
import { SignJWT } from "jose"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { ServerSettings } from "../src/ServerConfig.ts"
import { startServerProcess } from "./ServerProcess.ts"
import { adminToken, callAt, jwtSecret, layerTestServer, type Reply, TestServer } from "./TestServer.ts"

const openAiKey = "sk-proj-primary-SECRET-0123456789abcdef"
const geminiKey = "AIzaSy-secondary-SECRET-0123456789abcd"
const deadline = Duration.millis(1500)

const fenced = "Sure! Here is the lesson you asked for:\n```html\n<h2>Ownership</h2>\n<p style=\"color:red\" onclick=\"x()\">Each value has <b>one</b> owner.</p>\n<script>alert(1)</script>\n```\nLet me know if you want more!"

/** The two fake providers and the server configured to call them. */
class Models extends Context.Service<Models, {
  readonly openai: FakeOpenAiServer.FakeOpenAiServer
  readonly gemini: FakeGeminiServer.FakeGeminiServer
}>()("test/Models") {}

const layerServerWithModels = (overrides: Partial<ServerSettings>) =>
  Layer.unwrap(Effect.gen(function*() {
    const openai = yield* FakeOpenAiServer.start({ script: modelScript(), model: "gpt-test" })
    const gemini = yield* FakeGeminiServer.start({ script: modelScript() })
    const server = layerTestServer({
      aiModels: [
        { prefix: "AI_PRIMARY", provider: "openai", model: "gpt-test", apiKey: Option.some(Redacted.make(openAiKey)), baseUrl: Option.some(openai.baseUrl), prices: Option.some({ inputPerMillion: 0.15, outputPerMillion: 0.6 }) },
        { prefix: "AI_SECONDARY", provider: "google", model: "gemini-test", apiKey: Option.some(Redacted.make(geminiKey)), baseUrl: Option.some(gemini.baseUrl), prices: Option.none() }
      ],
      aiTimeout: deadline,
      ...overrides
    })
    return Layer.merge(server, Layer.succeed(Models, Models.of({ openai, gemini })))
  }))

const generate = (prompt: string, headers: Record<string, string> = { authorization: `Bearer ${adminToken}` }) =>
  Effect.gen(function*() {
    const { url } = yield* TestServer
    return yield* callAt(url, "/admin/ai/generate", { method: "POST", headers, json: { prompt } })
  })

const assertNoKey = (reply: Reply) => {
  assert.notInclude(reply.text, openAiKey)
  assert.notInclude(reply.text, geminiKey)
  assert.notInclude(reply.text, "SECRET")
}

describe("POST /admin/ai/generate: fallback (no cool-down)", () => {
  layer(layerServerWithModels({ aiCooldown: Duration.zero }), { timeout: 60_000, excludeTestServices: true })((it) => {
    it.effect("the primary's answer, through all three sanitization stages, with its attempt", () =>
      Effect.gen(function*() {
        const { openai, gemini } = yield* Models
        openai.script.answerWith(ModelAnswer.text(fenced))
        const geminiBefore = gemini.script.received.length
        const reply = yield* generate("A lesson on Rust ownership")
        assert.strictEqual(reply.status, 200)
        assert.strictEqual(reply.body.html, "<h2>Ownership</h2><p>Each value has <b>one</b> owner.</p>")
        assert.strictEqual(reply.body.provider, "openai")
        assert.strictEqual(reply.body.model, "gpt-test")
        assert.strictEqual(reply.body.attempts.length, 1)
        assert.include(reply.body.attempts[0], { provider: "openai", model: "gpt-test", outcome: "success" })
        assert.isNumber(reply.body.attempts[0].duration_ms)
        assert.strictEqual(gemini.script.received.length, geminiBefore, "the secondary was not called")
        // The model got the prompt and the instruction naming what the sanitizer keeps.
        const request = openai.script.received.at(-1)!
        assert.strictEqual(request.prompt, "A lesson on Rust ownership")
        assert.include(request.system, "details")
        assert.include(request.system, "text-center")
        assert.deepStrictEqual(openai.keys.at(-1), openAiKey)
        assertNoKey(reply)
      }))

    const failures: ReadonlyArray<readonly [string, ModelAnswer, string]> = [
      ["429 without Retry-After", ModelAnswer.status(429), "rate_limited"],
      ["500", ModelAnswer.status(500), "server_error"],
      ["503", ModelAnswer.status(503), "server_error"],
      ["401 (a wrong key)", ModelAnswer.status(401), "auth_error"],
      ["404 (an unknown model)", ModelAnswer.status(404), "model_error"],
      ["malformed JSON", ModelAnswer.malformed, "bad_response"],
      ["a connection closed without an answer", ModelAnswer.reset, "network_error"],
      ["empty content", ModelAnswer.text(""), "empty_output"],
      ["content that is empty once sanitized", ModelAnswer.text("```html\n<script>alert(1)</script><p> </p>\n```"), "empty_output"]
    ]
    for (const [name, answer, outcome] of failures) {
      it.effect(`the secondary takes over after ${name}`, () =>
        Effect.gen(function*() {
          const { openai, gemini } = yield* Models
          openai.script.answerWith(answer)
          gemini.script.answerWith(ModelAnswer.text("<p>From the secondary.</p>"))
          const reply = yield* generate("A lesson")
          assert.strictEqual(reply.status, 200, reply.text)
          assert.strictEqual(reply.body.html, "<p>From the secondary.</p>")
          assert.strictEqual(reply.body.provider, "google")
          assert.strictEqual(reply.body.model, "gemini-test")
          assert.deepStrictEqual(reply.body.attempts.map((attempt: { outcome: string }) => attempt.outcome), [outcome, "success"])
          assert.strictEqual(gemini.keys.at(-1), geminiKey)
          assertNoKey(reply)
        }))
    }

    it.effect("a primary that hangs past the deadline: the secondary answers within the deadline and a small margin", () =>
      Effect.gen(function*() {
        const { openai, gemini } = yield* Models
        openai.script.answerWith(ModelAnswer.hang)
        gemini.script.answerWith(ModelAnswer.text("<p>In time.</p>"))
        const abandonedBefore = openai.script.abandoned
        const started = Date.now()
        const reply = yield* generate("A lesson")
        const elapsed = Date.now() - started
        assert.strictEqual(reply.status, 200)
        assert.strictEqual(reply.body.html, "<p>In time.</p>")
        assert.strictEqual(reply.body.attempts[0].outcome, "timeout")
        assert.isAtLeast(reply.body.attempts[0].duration_ms, Duration.toMillis(deadline) - 5)
        assert.isAtLeast(elapsed, Duration.toMillis(deadline))
        assert.isBelow(elapsed, Duration.toMillis(deadline) + 1000)
        // The abandoned request was closed, not left open on the provider.
        yield* Effect.sleep(Duration.millis(100))
        assert.isAbove(openai.script.abandoned, abandonedBefore)
      }))

    it.effect("both models down: 502 problem listing the attempts, without a key", () =>
      Effect.gen(function*() {
        const { openai, gemini } = yield* Models
        openai.script.answerWith(ModelAnswer.status(500))
        gemini.script.answerWith(ModelAnswer.status(401))
        const reply = yield* generate("A lesson")
        assert.strictEqual(reply.status, 502)
        assert.strictEqual(reply.headers.get("content-type"), "application/problem+json")
        assert.strictEqual(reply.body.title, "Bad Gateway")
        assert.include(reply.body.detail, "Every language model failed")
        assert.deepStrictEqual(
          reply.body.attempts.map((attempt: { provider: string; model: string; outcome: string }) => [attempt.provider, attempt.model, attempt.outcome]),
          [["openai", "gpt-test", "server_error"], ["google", "gemini-test", "auth_error"]]
        )
        assertNoKey(reply)
      }))

    it.effect("an empty, blank or oversized prompt is a 400 and no model is called", () =>
      Effect.gen(function*() {
        const { openai } = yield* Models
        const before = openai.script.received.length
        for (const prompt of ["", "   \n ", "x".repeat(promptMaxLength + 1)]) {
          const reply = yield* generate(prompt)
          assert.strictEqual(reply.status, 400, prompt.slice(0, 10))
          assert.strictEqual(reply.body.errors[0].path, "body.prompt")
        }
        const { url } = yield* TestServer
        const missing = yield* callAt(url, "/admin/ai/generate", { method: "POST", admin: true, json: {} })
        assert.strictEqual(missing.status, 400)
        const unknown = yield* callAt(url, "/admin/ai/generate", { method: "POST", admin: true, json: { prompt: "p", temperature: 2 } })
        assert.strictEqual(unknown.status, 400)
        assert.strictEqual(openai.script.received.length, before)
        // The longest prompt allowed is accepted.
        openai.script.answerWith(ModelAnswer.text("<p>Long.</p>"))
        assert.strictEqual((yield* generate("x".repeat(promptMaxLength))).status, 200)
      }))

    it.effect("admin only: no token is 401, a viewer token is 403", () =>
      Effect.gen(function*() {
        const { openai } = yield* Models
        const before = openai.script.received.length
        assert.strictEqual((yield* generate("p", {})).status, 401)
        const viewer = yield* Effect.promise(() =>
          new SignJWT({}).setProtectedHeader({ alg: "HS256" }).setSubject("student-1").setIssuedAt().setExpirationTime("5m")
            .sign(new TextEncoder().encode(jwtSecret))
        )
        assert.strictEqual((yield* generate("p", { authorization: `Bearer ${viewer}` })).status, 403)
        assert.strictEqual(openai.script.received.length, before)
      }))
  })
})

describe("POST /admin/ai/generate: cool-down", () => {
  layer(layerServerWithModels({ aiCooldown: Duration.minutes(1) }), { timeout: 60_000, excludeTestServices: true })((it) => {
    it.effect("a primary that answered 500 is skipped on the next call; one whose Retry-After ran out is called again", () =>
      Effect.gen(function*() {
        const { openai, gemini } = yield* Models
        gemini.script.answerWith(ModelAnswer.text("<p>Secondary.</p>"))

        // 429 with Retry-After: 1 — a shorter wait than the 1-minute default.
        openai.script.answerWith(ModelAnswer.status(429, 1), ModelAnswer.text("<p>Primary is back.</p>"))
        const first = yield* generate("A lesson")
        assert.strictEqual(first.body.provider, "google")
        assert.strictEqual(openai.script.received.length, 1)

        const second = yield* generate("A lesson")
        assert.strictEqual(second.status, 200)
        assert.strictEqual(second.body.provider, "google")
        assert.strictEqual(openai.script.received.length, 1, "the cooling primary received no request")
        assert.strictEqual(second.body.attempts[0].outcome, "cooling_down")
        assert.strictEqual(second.body.attempts[0].duration_ms, 0)

        yield* Effect.sleep(Duration.millis(1100))
        const third = yield* generate("A lesson")
        assert.strictEqual(third.body.provider, "openai")
        assert.strictEqual(openai.script.received.length, 2)

        // 500 without Retry-After: the default cool-down (1 minute) applies.
        openai.script.answerWith(ModelAnswer.status(500), ModelAnswer.text("<p>Primary.</p>"))
        assert.strictEqual((yield* generate("A lesson")).body.provider, "google")
        assert.strictEqual(openai.script.received.length, 3)
        const skipped = yield* generate("A lesson")
        assert.strictEqual(skipped.body.provider, "google")
        assert.strictEqual(skipped.body.attempts[0].outcome, "cooling_down")
        assert.strictEqual(openai.script.received.length, 3, "the cooling primary received no request")
      }))

    it.effect("with the primary cooling down and the secondary failing, the answer is 502 at once", () =>
      Effect.gen(function*() {
        const { openai, gemini } = yield* Models
        const before = openai.script.received.length
        gemini.script.answerWith(ModelAnswer.status(503))
        const reply = yield* generate("A lesson")
        assert.strictEqual(reply.status, 502)
        assert.deepStrictEqual(reply.body.attempts.map((attempt: { outcome: string }) => attempt.outcome), ["cooling_down", "server_error"])
        assert.strictEqual(openai.script.received.length, before)
      }))
  })
})

describe("POST /admin/ai/generate: no model configured", () => {
  layer(layerTestServer(), { timeout: 60_000, excludeTestServices: true })((it) => {
    it.effect("503 problem naming the variables to set", () =>
      Effect.gen(function*() {
        const reply = yield* generate("A lesson")
        assert.strictEqual(reply.status, 503)
        assert.strictEqual(reply.headers.get("content-type"), "application/problem+json")
        assert.include(reply.body.detail, "AI_PRIMARY_PROVIDER")
        assert.include(reply.body.detail, "AI_PRIMARY_MODEL")
        assert.include(reply.body.detail, "AI_PRIMARY_API_KEY")
      }))

    it.effect("the OpenAPI document describes the endpoint: admin, prompt limits, 502 with attempts, 503, the event stream, usage and cost", () =>
      Effect.gen(function*() {
        const { url } = yield* TestServer
        const reply = yield* callAt(url, "/openapi.json")
        const operation = reply.body.paths["/admin/ai/generate"].post
        assert.includeMembers(Object.keys(operation.responses), ["200", "400", "401", "403", "502", "503"])
        assert.isNotEmpty(operation.security)
        const text = JSON.stringify(reply.body)
        assert.include(operation.description, "AI_PRIMARY")
        assert.deepInclude(reply.body.components.schemas.GenerateRequest.properties.prompt, { maxLength: promptMaxLength, pattern: "\\S" })
        assert.include(text, "GenerationAttempt")
        // The event stream is a second representation of the 200, its events named.
        const ok = operation.responses["200"]
        assert.deepStrictEqual(Object.keys(ok.content).sort(), ["application/json", "text/event-stream"])
        assert.deepStrictEqual(
          ok.content["text/event-stream"].schema.oneOf.map((event: { properties: { event: { enum: Array<string> } } }) => event.properties.event.enum[0]),
          ["attempt", "html", "done", "error"]
        )
        assert.include(ok.description, "text/event-stream")
        assert.deepStrictEqual(Object.keys(reply.body.components.schemas.GenerationAttempt.properties).sort(), [
          "cost_usd",
          "detail",
          "duration_ms",
          "model",
          "outcome",
          "provider",
          "usage"
        ])
      }))
  })
})

describe("POST /admin/ai/generate: the standalone process", () => {
  it.live("configured from AI_PRIMARY_* and AI_SECONDARY_*; no key in responses or logs, at any log level", () =>
    Effect.gen(function*() {
      const openai = yield* FakeOpenAiServer.start({ model: "gpt-env" })
      const gemini = yield* FakeGeminiServer.start()
      const dataDir = mkdtempSync(join(process.env.COURSEKIT_TEST_TMP ?? tmpdir(), "ai-process-"))
      const server = yield* Effect.acquireRelease(
        Effect.promise(() =>
          startServerProcess({
            DATA_DIR: dataDir,
            ADMIN_TOKENS: adminToken,
            LOG_LEVEL: "Debug",
            AI_PRIMARY_PROVIDER: "openai",
            AI_PRIMARY_MODEL: "gpt-env",
            AI_PRIMARY_API_KEY: openAiKey,
            AI_PRIMARY_BASE_URL: openai.baseUrl,
            AI_SECONDARY_PROVIDER: "google",
            AI_SECONDARY_MODEL: "gemini-env",
            AI_SECONDARY_API_KEY: geminiKey,
            AI_SECONDARY_BASE_URL: gemini.baseUrl,
            AI_TIMEOUT_MS: "800",
            AI_COOLDOWN_MS: "0"
          })
        ),
        (started) =>
          Effect.promise(async () => {
            started.child.kill("SIGTERM")
            await started.exit
          })
      )
      const call = (prompt: string) =>
        callAt(server.url, "/admin/ai/generate", { method: "POST", admin: true, json: { prompt } })

      const replies: Array<Reply> = []
      openai.script.answerWith(ModelAnswer.text("<p>Primary.</p>"))
      replies.push(yield* call("one"))
      assert.strictEqual(replies[0]!.body.model, "gpt-env")
      openai.script.answerWith(ModelAnswer.status(401))
      gemini.script.answerWith(ModelAnswer.text("<p>Secondary.</p>"))
      replies.push(yield* call("two"))
      assert.strictEqual(replies[1]!.body.model, "gemini-env")
      openai.script.answerWith(ModelAnswer.hang)
      gemini.script.answerWith(ModelAnswer.status(429, 5))
      replies.push(yield* call("three"))
      assert.strictEqual(replies[2]!.status, 502)
      assert.deepStrictEqual(gemini.models, ["gemini-env", "gemini-env"])
      assert.deepStrictEqual([...new Set(openai.keys)], [openAiKey])
      assert.deepStrictEqual([...new Set(gemini.keys)], [geminiKey])

      replies.forEach(assertNoKey)
      yield* Effect.sleep(Duration.millis(200))
      const logs = server.output.join("\n")
      assert.include(logs, "AI content generation: openai/gpt-env → google/gemini-env")
      assert.include(logs, "every language model failed")
      assert.include(logs, "language model attempt failed")
      assert.notInclude(logs, openAiKey)
      assert.notInclude(logs, geminiKey)
      assert.notInclude(logs, "SECRET")
    }).pipe(Effect.scoped), 60_000)

  it.live("an event stream is logged as it ends: 499 when its reader leaves mid-stream, 200 when read to the end", () =>
    Effect.gen(function*() {
      const openai = yield* FakeOpenAiServer.start({ model: "gpt-env" })
      const dataDir = mkdtempSync(join(process.env.COURSEKIT_TEST_TMP ?? tmpdir(), "ai-stream-log-"))
      const server = yield* Effect.acquireRelease(
        Effect.promise(() =>
          startServerProcess({
            DATA_DIR: dataDir,
            ADMIN_TOKENS: adminToken,
            LOG_LEVEL: "Info",
            AI_PRIMARY_PROVIDER: "openai",
            AI_PRIMARY_MODEL: "gpt-env",
            AI_PRIMARY_API_KEY: openAiKey,
            AI_PRIMARY_BASE_URL: openai.baseUrl
          })
        ),
        (started) =>
          Effect.promise(async () => {
            started.child.kill("SIGTERM")
            await started.exit
          })
      )
      const lesson = Array.from({ length: 20 }, (_, i) => `<h2>Part ${i + 1}</h2><p>Each value has one owner.</p>`).join("\n")
      /** Streams a generation under request id `id`; with `leaveAfterFirstEvent`, goes away after the first event. */
      const stream = (id: string, leaveAfterFirstEvent: boolean) =>
        Effect.promise(async () => {
          const controller = new AbortController()
          const response = await fetch(`${server.url}/admin/ai/generate`, {
            method: "POST",
            headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json", accept: "text/event-stream", "x-request-id": id },
            body: JSON.stringify({ prompt: "A lesson" }),
            signal: controller.signal
          })
          const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader()
          let text = ""
          while (true) {
            const { value, done } = await reader.read()
            if (done) break
            text += value
            if (leaveAfterFirstEvent && text.includes("\n\n")) {
              controller.abort()
              break
            }
          }
          return { status: response.status, text }
        })
      /** The request log lines of request `id`, once there is one (they are written as the request ends). */
      const requestLines = (id: string) =>
        Effect.gen(function*() {
          for (let i = 0; i < 100; i++) {
            const lines = server.output.filter((line) => line.includes(`"requestId":"${id}"`) && line.includes(`"durationMs"`))
            if (lines.length > 0) {
              // Anything written late would be a second line: give it a moment.
              yield* Effect.sleep(Duration.millis(300))
              return server.output.filter((line) => line.includes(`"requestId":"${id}"`) && line.includes(`"durationMs"`)).map((line) => JSON.parse(line))
            }
            yield* Effect.sleep(Duration.millis(50))
          }
          return []
        })

      // About 2 s of model output: the reader leaves after the first block.
      openai.script.answerWith(ModelAnswer.text(lesson, { chunkChars: 10, chunkDelayMs: 20 }))
      const left = yield* stream("stream-left-mid-way", true)
      assert.strictEqual(left.status, 200)
      assert.match(left.text, /^event: html\n/)
      const leftLines = yield* requestLines("stream-left-mid-way")
      assert.deepStrictEqual(leftLines.map((line) => [line.message, line.annotations.status]), [["POST /admin/ai/generate 499", 499]])
      // The generation's own line (this process's first) still says how it ended.
      const generations = server.output.filter((line) => line.includes("language model generation"))
      assert.deepStrictEqual(generations.map((line) => JSON.parse(line).message[1].outcome), ["interrupted"])

      openai.script.answerWith(ModelAnswer.text("<p>Short.</p>", { chunkChars: 4, chunkDelayMs: 5 }))
      const read = yield* stream("stream-read-to-the-end", false)
      assert.include(read.text, "event: done")
      const readLines = yield* requestLines("stream-read-to-the-end")
      assert.deepStrictEqual(readLines.map((line) => [line.message, line.annotations.status]), [["POST /admin/ai/generate 200", 200]])
    }).pipe(Effect.scoped), 60_000)
})
