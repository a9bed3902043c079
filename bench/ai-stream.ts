/**
 * What streaming buys an author: `POST /admin/ai/generate` with `Accept:
 * text/event-stream` — time to the first `html` event and to `done` — next to the same
 * request answered as JSON (the baseline: the whole answer), for a ~6 KB lesson written at
 * a realistic pace, in one run, alternating which goes first. The standalone server (built
 * JavaScript, PGlite) calls a loopback server speaking OpenAI's chat-completions wire
 * format (streaming and not) through the real OpenAI adapter; the fake model takes
 * `BENCH_FIRST_TOKEN_MS` (default 500) to its first token, then writes
 * `BENCH_TOKENS_PER_SECOND` (default 100) tokens of 4 characters a second, and a
 * non-streamed answer arrives when its last token would have. Prints the medians and the
 * ratio first-html ÷ whole answer.
 */
import { modelScript, ModelAnswer } from "@coursekit/core/testing"
import { FakeOpenAiServer } from "@coursekit/llm-openai/testing"
import { Effect, Exit, Scope } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { startServer, stopServer } from "./measure.ts"

const samples = Number(process.env.BENCH_SAMPLES ?? 4)
const tokensPerSecond = Number(process.env.BENCH_TOKENS_PER_SECOND ?? 100)
const firstTokenMs = Number(process.env.BENCH_FIRST_TOKEN_MS ?? 500)
const chunkChars = 4

// ~6 KB of lesson, wrapped the way models wrap it.
const lesson = "Sure! Here is your lesson:\n```html\n" + Array.from({ length: 32 }, (_, i) =>
  `<h3>Step ${i + 1}</h3>\n<p class="text-lg">Ownership moves with assignment; <b>borrowing</b> does not. ` +
  `See <a href="https://doc.rust-lang.org/book/">the book</a>.</p>\n<ul><li>one</li><li>two</li></ul>\n`).join("") +
  "```\nLet me know if you want more!"
const pacing = { firstChunkDelayMs: firstTokenMs, chunkChars, chunkDelayMs: 1000 / tokensPerSecond }

const scope = Effect.runSync(Scope.make())
const fake = await Effect.runPromise(FakeOpenAiServer.start({ script: modelScript(ModelAnswer.text(lesson, pacing)), model: "gpt-bench" }).pipe(Scope.provide(scope)))
const dataDir = mkdtempSync(join(tmpdir(), "bench-ai-stream-"))
const server = await startServer("coursekit", "packages/server/dist/main.js", {
  DATA_DIR: dataDir,
  ADMIN_TOKENS: "bench-admin-token",
  CDN_URL: "http://localhost/files",
  LOG_LEVEL: "Warn",
  HOST: "127.0.0.1",
  AI_PRIMARY_PROVIDER: "openai",
  AI_PRIMARY_MODEL: "gpt-bench",
  AI_PRIMARY_API_KEY: "sk-bench",
  AI_PRIMARY_BASE_URL: fake.baseUrl,
  AI_TIMEOUT_MS: "600000"
}, 4700)

const request = (accept: string) =>
  fetch(`${server.url}/admin/ai/generate`, {
    method: "POST",
    headers: { authorization: "Bearer bench-admin-token", "content-type": "application/json", accept },
    body: JSON.stringify({ prompt: "A lesson on ownership" })
  })

/** Milliseconds to the first `html` event and to `done`; the html's length. */
const streamed = async () => {
  const started = performance.now()
  const response = await request("text/event-stream")
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader()
  let text = ""
  let firstHtml: number | undefined
  while (true) {
    const { value, done } = await reader.read()
    if (done) break
    text += value
    if (firstHtml === undefined && text.includes("event: html\n")) firstHtml = performance.now() - started
  }
  if (firstHtml === undefined || !text.includes("event: done\n")) throw new Error(`the stream did not complete: ${text.slice(0, 300)}`)
  const done = JSON.parse(text.slice(text.indexOf("event: done\ndata: ") + 18).split("\n")[0]!) as { html: string }
  return { firstHtml, done: performance.now() - started, bytes: done.html.length }
}

/** Milliseconds to the whole JSON answer; the html's length. */
const whole = async () => {
  const started = performance.now()
  const response = await request("application/json")
  const body = await response.json() as { html: string }
  if (response.status !== 200) throw new Error(`JSON answer ${response.status}`)
  return { done: performance.now() - started, bytes: body.html.length }
}

const median = (values: ReadonlyArray<number>) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

try {
  const first = await streamed()
  const check = await whole()
  if (first.bytes !== check.bytes) throw new Error("the stream and the JSON answer differ")
  console.log(`AI streaming: a ${(first.bytes / 1024).toFixed(1)} KB lesson (sanitized; ${(lesson.length / 1024).toFixed(1)} KB written), ` +
    `${tokensPerSecond} tokens/s after ${firstTokenMs} ms, ${samples} samples each`)
  const stream: Array<{ firstHtml: number; done: number }> = []
  const json: Array<number> = []
  for (let i = 0; i < samples; i++) {
    if (i % 2 === 0) {
      stream.push(await streamed())
      json.push((await whole()).done)
    } else {
      json.push((await whole()).done)
      stream.push(await streamed())
    }
  }
  const firstHtml = median(stream.map((sample) => sample.firstHtml))
  const streamDone = median(stream.map((sample) => sample.done))
  const jsonDone = median(json)
  console.log(`  first html event   ${firstHtml.toFixed(0).padStart(6)} ms`)
  console.log(`  stream done        ${streamDone.toFixed(0).padStart(6)} ms`)
  console.log(`  JSON answer        ${jsonDone.toFixed(0).padStart(6)} ms   (baseline)`)
  console.log(`  first html ÷ JSON answer: ${(firstHtml / jsonDone).toFixed(3)}   stream done ÷ JSON answer: ${(streamDone / jsonDone).toFixed(3)}`)
} finally {
  await stopServer(server)
  await Effect.runPromise(Scope.close(scope, Exit.void))
  rmSync(dataDir, { recursive: true, force: true })
}
