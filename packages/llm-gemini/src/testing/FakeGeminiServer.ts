/**
 * A loopback HTTP server that speaks the Gemini API's wire format — `POST
 * /{v1,v1beta}/models/{model}:generateContent`, and `:streamGenerateContent?alt=sse`, a
 * `text/event-stream` of `data: {GenerateContentResponse}` events (the usage in
 * `usageMetadata`, the last chunk with the `finishReason`, an error as an in-stream
 * `data: {"error": …}` event) — answering from a `ModelScript`: for tests and demos of
 * code that uses the Gemini adapter, with the real SDK and no network. Errors carry
 * Google's error body, a 429's wait as `google.rpc.RetryInfo`. It records the
 * `x-goog-api-key` keys it received so tests can check where a key went.
 *
 * @since 0.1.0
 */
import type { LlmUsage } from "@coursekit/core"
import {
  atDueTimes,
  chunksOf,
  modelScript,
  type ModelAnswer,
  type ModelScript,
  type StreamBreak,
  type StreamPacing,
  wholeAnswerOf,
  writingTimeMs
} from "@coursekit/core/testing"
import { Context, Effect, Layer } from "effect"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { setTimeout as sleep } from "node:timers/promises"

/** A running fake. */
export interface FakeGeminiServer {
  /** The base URL to give the adapter. */
  readonly baseUrl: string
  readonly script: ModelScript
  /** API keys of the requests received, oldest first. */
  readonly keys: ReadonlyArray<string>
  /** Models named in the request paths, oldest first. */
  readonly models: ReadonlyArray<string>
}

/** The running fake, as a service. */
export class FakeGemini extends Context.Service<FakeGemini, FakeGeminiServer>()("@coursekit/llm-gemini/testing/FakeGemini") {}

const readBody = async (request: IncomingMessage): Promise<string> => {
  const chunks: Array<Buffer> = []
  for await (const chunk of request) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString("utf8")
}

interface Content {
  readonly parts?: ReadonlyArray<{ readonly text?: string }>
}

/** What a `generateContent` body asked: the user turns and the system instruction, as text. */
const requestOf = (body: string) => {
  const parsed = JSON.parse(body) as { contents?: ReadonlyArray<Content>; systemInstruction?: Content }
  const text = (content: Content | undefined) => (content?.parts ?? []).map((part) => part.text ?? "").join("")
  return { prompt: (parsed.contents ?? []).map(text).join("\n"), system: text(parsed.systemInstruction) }
}

const statusNames: Record<number, string> = {
  400: "INVALID_ARGUMENT",
  401: "UNAUTHENTICATED",
  403: "PERMISSION_DENIED",
  404: "NOT_FOUND",
  429: "RESOURCE_EXHAUSTED",
  500: "INTERNAL",
  503: "UNAVAILABLE"
}

const errorOf = (status: number, retryAfterSeconds?: number) => ({
  error: {
    code: status,
    message: `fake error ${status}`,
    status: statusNames[status] ?? "UNKNOWN",
    ...(retryAfterSeconds === undefined ? {} : {
      details: [{ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: `${retryAfterSeconds}s` }]
    })
  }
})

/** Gemini's `usageMetadata`; a count the script leaves out is left out. */
const usageMetadataOf = (usage: LlmUsage) => ({
  ...(usage.input_tokens === null ? {} : { promptTokenCount: usage.input_tokens }),
  ...(usage.output_tokens === null ? {} : { candidatesTokenCount: usage.output_tokens }),
  ...(usage.input_tokens === null || usage.output_tokens === null ? {} : { totalTokenCount: usage.input_tokens + usage.output_tokens })
})

/** A `GenerateContentResponse` holding `text` (none: no `parts`, as Gemini does for an empty answer). */
const responseOf = (text: string, end: { readonly finished: boolean; readonly usage: LlmUsage | null }) => ({
  candidates: [{
    content: text === "" ? { role: "model" } : { role: "model", parts: [{ text }] },
    ...(end.finished ? { finishReason: "STOP" } : {}),
    index: 0
  }],
  ...(end.usage === null ? {} : { usageMetadata: usageMetadataOf(end.usage) }),
  modelVersion: "fake-gemini"
})

/** One request's response, and how the script closes its connection. */
interface Exchange {
  readonly response: ServerResponse
  /** Closes the connection mid-answer (not an abandoned call: the model hung up). */
  readonly reset: () => void
}

/** Ends the exchange as the script says, for a `generateContent` request. */
const answerWhole = async ({ reset, response }: Exchange, reply: ReturnType<typeof wholeAnswerOf>) => {
  switch (reply._tag) {
    case "Text":
      await sleep(writingTimeMs(reply.text, reply.pacing))
      if (response.destroyed) return
      response.writeHead(200, { "content-type": "application/json; charset=UTF-8" })
      response.end(JSON.stringify(responseOf(reply.text, { finished: true, usage: reply.usage })))
      return
    case "Status":
      response.writeHead(reply.status, { "content-type": "application/json; charset=UTF-8" })
      response.end(JSON.stringify(errorOf(reply.status, reply.retryAfterSeconds)))
      return
    case "Malformed":
      response.writeHead(200, { "content-type": "application/json; charset=UTF-8" })
      response.end(`{"candidates":[{"content":`)
      return
    case "Reset":
      reset()
      return
    case "Hang":
      return
  }
}

// Google separates its server-sent events with CRLF.
const event = (data: unknown) => `data: ${typeof data === "string" ? data : JSON.stringify(data)}\r\n\r\n`

/** Writes `chunk` and waits until it is handed to the socket (or the socket is gone). */
const write = (response: ServerResponse, chunk: string) =>
  new Promise<void>((done) => {
    if (response.destroyed) return done()
    response.write(chunk, () => done())
  })

/**
 * Streams `text` paced as the script says; with `end`, the last chunk finishes the answer
 * and carries the usage (earlier chunks carry the prompt's count, as Gemini's do). False
 * when the client went away first.
 */
const sendText = async (
  response: ServerResponse,
  text: string,
  pacing: StreamPacing,
  end: { readonly usage: LlmUsage | null } | undefined
): Promise<boolean> => {
  response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" })
  const pieces = chunksOf(text, pacing.chunkChars)
  // An empty answer that finishes is one chunk without parts.
  const chunks = pieces.length === 0 && end !== undefined ? [""] : pieces
  const running = end?.usage === undefined || end.usage === null || end.usage.input_tokens === null
    ? null
    : { input_tokens: end.usage.input_tokens, output_tokens: null }
  for await (const [i, piece] of atDueTimes(chunks, pacing, () => response.destroyed)) {
    const last = end !== undefined && i === chunks.length - 1
    await write(response, event(responseOf(piece, last ? { finished: true, usage: end.usage } : { finished: false, usage: running })))
  }
  return !response.destroyed
}

/** Ends a stream early, after its text, as `how` says. */
const breakStream = async ({ reset, response }: Exchange, how: StreamBreak) => {
  if (how === "hang") return
  if (how === "reset") {
    reset()
    return
  }
  if (how === "malformed") {
    response.end(event(`{"candidates":[{"content":`))
    return
  }
  // Gemini ends a failed stream with an error object in place of a chunk; it always has a code.
  response.end(event(errorOf(how.status ?? 500)))
}

/** Ends the exchange as the script says, for a `streamGenerateContent?alt=sse` request. */
const answerStream = async (exchange: Exchange, reply: ModelAnswer) => {
  const { response } = exchange
  switch (reply._tag) {
    case "Text":
      if (await sendText(response, reply.text, reply.pacing, { usage: reply.usage })) response.end()
      return
    case "Break":
      if (await sendText(response, reply.text, reply.pacing, undefined)) await breakStream(exchange, reply.how)
      return
    case "Malformed":
      response.writeHead(200, { "content-type": "text/event-stream" })
      response.end(event(`{"candidates":[{"content":`))
      return
    default:
      // Failures before the first chunk are the same HTTP answers as without streaming.
      return answerWhole(exchange, reply)
  }
}

const route = /^\/v1(?:beta|alpha)?\/models\/([^/:?]+):(generateContent|streamGenerateContent)(?:\?(.*))?$/

/** Starts a fake on 127.0.0.1 (a free port) for the scope. */
export const start = (options: { readonly script?: ModelScript } = {}) =>
  Effect.acquireRelease(
    Effect.callback<{ readonly fake: FakeGeminiServer; readonly close: () => Promise<void> }>((resume) => {
      const script = options.script ?? modelScript()
      const keys: Array<string> = []
      const models: Array<string> = []
      const server = createServer((request, response) => {
        const match = request.method === "POST" ? route.exec(request.url ?? "") : null
        if (match === null) {
          response.writeHead(404, { "content-type": "application/json" }).end(`{"error":{"code":404,"status":"NOT_FOUND"}}`)
          return
        }
        const stream = match[2] === "streamGenerateContent"
        // Without alt=sse Gemini streams one JSON array, which no adapter here reads.
        if (stream && new URLSearchParams(match[3] ?? "").get("alt") !== "sse") {
          response.writeHead(400, { "content-type": "application/json" }).end(JSON.stringify(errorOf(400)))
          return
        }
        keys.push(String(request.headers["x-goog-api-key"] ?? ""))
        models.push(decodeURIComponent(match[1]!))
        readBody(request).then((body) => {
          const reply = script.next(requestOf(body))
          // A client that goes away before its answer is all sent abandoned the call.
          let resetByScript = false
          response.on("close", () => {
            if (!response.writableFinished && !resetByScript) script.noteAbandoned()
          })
          const exchange: Exchange = {
            response,
            reset: () => {
              resetByScript = true
              response.socket?.destroy()
            }
          }
          return stream ? answerStream(exchange, reply) : answerWhole(exchange, wholeAnswerOf(reply))
        }).catch(() => response.destroy())
      })
      server.listen(0, "127.0.0.1", () => {
        const { port } = server.address() as AddressInfo
        resume(Effect.succeed({
          fake: { baseUrl: `http://127.0.0.1:${port}`, script, keys, models },
          close: () =>
            new Promise<void>((done) => {
              server.closeAllConnections()
              server.close(() => done())
            })
        }))
      })
    }),
    (running) => Effect.promise(running.close)
  ).pipe(Effect.map((running) => running.fake))

/** A fake for the layer's lifetime. */
export const layer = (options: { readonly script?: ModelScript } = {}): Layer.Layer<FakeGemini> =>
  Layer.effect(FakeGemini, Effect.map(start(options), FakeGemini.of))
