/**
 * A loopback HTTP server that speaks OpenAI's chat-completions wire format
 * (`POST /v1/chat/completions`), answering from a `ModelScript`: for tests and demos of
 * code that uses the `openai` adapter, with the real SDK and no network. A request with
 * `stream: true` gets the streaming format: `text/event-stream` of `data:
 * {chat.completion.chunk}` events ending with `data: [DONE]`, the usage in a last chunk
 * with no choices when the request asked `stream_options.include_usage`, and an error as
 * an in-stream `data: {"error": …}` event. It records the bearer keys it received so
 * tests can check where a key went.
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
export interface FakeOpenAiServer {
  /** The base URL to give the adapter (`…/v1`). */
  readonly baseUrl: string
  readonly script: ModelScript
  /** Bearer keys of the requests received, oldest first. */
  readonly keys: ReadonlyArray<string>
}

/** The running fake, as a service. */
export class FakeOpenAi extends Context.Service<FakeOpenAi, FakeOpenAiServer>()("@coursekit/llm-openai/testing/FakeOpenAi") {}

const readBody = async (request: IncomingMessage): Promise<string> => {
  const chunks: Array<Buffer> = []
  for await (const chunk of request) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString("utf8")
}

interface ChatBody {
  readonly messages?: ReadonlyArray<{ readonly role: string; readonly content: unknown }>
  readonly stream?: unknown
  readonly stream_options?: { readonly include_usage?: unknown } | null
}

/** What a chat-completions body asked: the system and user messages, joined. */
const requestOf = (body: ChatBody) => {
  const text = (role: string) =>
    (body.messages ?? []).filter((message) => message.role === role).map((message) => String(message.content)).join("\n")
  return { prompt: text("user"), system: text("system") }
}

const errorTypes: Record<number, string> = {
  400: "invalid_request_error",
  401: "invalid_request_error",
  403: "permission_denied",
  404: "invalid_request_error",
  429: "rate_limit_exceeded"
}

const errorOf = (status: number | null) => ({
  message: `fake error ${status ?? "in the stream"}`,
  type: (status === null ? undefined : errorTypes[status]) ?? "server_error",
  param: null,
  code: status
})

/** OpenAI's usage object; a count the script leaves out is left out. */
const usageOf = (usage: LlmUsage) => ({
  ...(usage.input_tokens === null ? {} : { prompt_tokens: usage.input_tokens }),
  ...(usage.output_tokens === null ? {} : { completion_tokens: usage.output_tokens }),
  ...(usage.input_tokens === null || usage.output_tokens === null ? {} : { total_tokens: usage.input_tokens + usage.output_tokens })
})

/** One request's response, and how the script closes its connection. */
interface Exchange {
  readonly response: ServerResponse
  readonly model: string
  /** Closes the connection mid-answer (not an abandoned call: the model hung up). */
  readonly reset: () => void
}

/** Ends the exchange as the script says, for a request that did not ask to stream. */
const answerWhole = async ({ model, reset, response }: Exchange, reply: ReturnType<typeof wholeAnswerOf>) => {
  switch (reply._tag) {
    case "Text":
      await sleep(writingTimeMs(reply.text, reply.pacing))
      if (response.destroyed) return
      response.writeHead(200, { "content-type": "application/json" })
      response.end(JSON.stringify({
        id: "chatcmpl-fake",
        object: "chat.completion",
        created: Math.floor(Date.now() / 1000),
        model,
        choices: [{ index: 0, message: { role: "assistant", content: reply.text, refusal: null }, logprobs: null, finish_reason: "stop" }],
        ...(reply.usage === null ? {} : { usage: usageOf(reply.usage) })
      }))
      return
    case "Status":
      response.writeHead(reply.status, {
        "content-type": "application/json",
        ...(reply.retryAfterSeconds === undefined ? {} : { "retry-after": String(reply.retryAfterSeconds) })
      })
      response.end(JSON.stringify({ error: errorOf(reply.status) }))
      return
    case "Malformed":
      response.writeHead(200, { "content-type": "application/json" })
      response.end(`{"id":"chatcmpl-fake","choices":[{"message":`)
      return
    case "Reset":
      reset()
      return
    case "Hang":
      return
  }
}

const event = (data: unknown) => `data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`

/** Writes `chunk` and waits until it is handed to the socket (or the socket is gone). */
const write = (response: ServerResponse, chunk: string) =>
  new Promise<void>((done) => {
    if (response.destroyed) return done()
    response.write(chunk, () => done())
  })

const chunkFor = (model: string, includeUsage: boolean) => {
  const created = Math.floor(Date.now() / 1000)
  return (choices: ReadonlyArray<unknown>, usage: unknown = null) => ({
    id: "chatcmpl-fake",
    object: "chat.completion.chunk",
    created,
    model,
    system_fingerprint: null,
    choices,
    // With include_usage every chunk has the field, null in all but the usage chunk.
    ...(includeUsage ? { usage } : {})
  })
}

/** Streams `text` paced as the script says; false when the client went away first. */
const sendText = async (
  { response }: Exchange,
  text: string,
  pacing: StreamPacing,
  chunk: ReturnType<typeof chunkFor>
): Promise<boolean> => {
  response.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" })
  // OpenAI opens with the role and empty content.
  await write(response, event(chunk([{ index: 0, delta: { role: "assistant", content: "", refusal: null }, logprobs: null, finish_reason: null }])))
  for await (const [, piece] of atDueTimes(chunksOf(text, pacing.chunkChars), pacing, () => response.destroyed)) {
    await write(response, event(chunk([{ index: 0, delta: { content: piece }, logprobs: null, finish_reason: null }])))
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
    await write(response, event(`{"id":"chatcmpl-fake","choices":[{"delta":`))
    response.end()
    return
  }
  // OpenAI ends a failed stream with an error event in place of a chunk.
  await write(response, event({ error: errorOf(how.status ?? null) }))
  response.end(event("[DONE]"))
}

/** Ends the exchange as the script says, for a request that asked to stream. */
const answerStream = async (exchange: Exchange, reply: ModelAnswer, includeUsage: boolean) => {
  const { response } = exchange
  const chunk = chunkFor(exchange.model, includeUsage)
  switch (reply._tag) {
    case "Text": {
      if (!await sendText(exchange, reply.text, reply.pacing, chunk)) return
      await write(response, event(chunk([{ index: 0, delta: {}, logprobs: null, finish_reason: "stop" }])))
      if (includeUsage && reply.usage !== null) await write(response, event(chunk([], usageOf(reply.usage))))
      response.end(event("[DONE]"))
      return
    }
    case "Break":
      if (!await sendText(exchange, reply.text, reply.pacing, chunk)) return
      return breakStream(exchange, reply.how)
    case "Malformed":
      response.writeHead(200, { "content-type": "text/event-stream; charset=utf-8" })
      response.end(event(`{"id":"chatcmpl-fake","choices":[{"delta":`))
      return
    default:
      // Failures before the first chunk are the same HTTP answers as without streaming.
      return answerWhole(exchange, reply)
  }
}

/**
 * Starts a fake on 127.0.0.1 (a free port) for the scope; `model` is echoed in answers.
 */
export const start = (options: { readonly script?: ModelScript; readonly model?: string } = {}) =>
  Effect.acquireRelease(
    Effect.callback<{ readonly fake: FakeOpenAiServer; readonly close: () => Promise<void> }>((resume) => {
      const script = options.script ?? modelScript()
      const keys: Array<string> = []
      const server = createServer((request, response) => {
        if (request.method !== "POST" || request.url !== "/v1/chat/completions") {
          response.writeHead(404, { "content-type": "application/json" }).end(`{"error":{"message":"not found"}}`)
          return
        }
        keys.push((request.headers.authorization ?? "").replace(/^Bearer /, ""))
        readBody(request).then(
          (text) => {
            const body = JSON.parse(text) as ChatBody
            const reply = script.next(requestOf(body))
            // A client that goes away before its answer is all sent abandoned the call.
            let resetByScript = false
            response.on("close", () => {
              if (!response.writableFinished && !resetByScript) script.noteAbandoned()
            })
            const exchange: Exchange = {
              response,
              model: options.model ?? "fake-model",
              reset: () => {
                resetByScript = true
                response.socket?.destroy()
              }
            }
            return body.stream === true
              ? answerStream(exchange, reply, body.stream_options?.include_usage === true)
              : answerWhole(exchange, wholeAnswerOf(reply))
          }
        ).catch(() => response.destroy())
      })
      server.listen(0, "127.0.0.1", () => {
        const { port } = server.address() as AddressInfo
        resume(Effect.succeed({
          fake: { baseUrl: `http://127.0.0.1:${port}/v1`, script, keys },
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
export const layer = (options: { readonly script?: ModelScript; readonly model?: string } = {}): Layer.Layer<FakeOpenAi> =>
  Layer.effect(FakeOpenAi, Effect.map(start(options), FakeOpenAi.of))
