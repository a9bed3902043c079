/**
 * A loopback HTTP server that speaks OpenAI's chat-completions wire format
 * (`POST /v1/chat/completions`), answering from a `ModelScript`: for tests and demos of
 * code that uses the `openai` adapter, with the real SDK and no network. It records the
 * bearer keys it received so tests can check where a key went.
 *
 * @since 0.1.0
 */
import { modelScript, type ModelAnswer, type ModelScript } from "@coursekit/core/testing"
import { Context, Effect, Layer } from "effect"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"

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

/** What a chat-completions body asked: the system and user messages, joined. */
const requestOf = (body: string) => {
  const parsed = JSON.parse(body) as { messages?: Array<{ role: string; content: unknown }> }
  const text = (role: string) =>
    (parsed.messages ?? []).filter((message) => message.role === role).map((message) => String(message.content)).join("\n")
  return { prompt: text("user"), system: text("system") }
}

const errorTypes: Record<number, string> = {
  400: "invalid_request_error",
  401: "invalid_request_error",
  403: "permission_denied",
  404: "invalid_request_error",
  429: "rate_limit_exceeded"
}

const answer = (response: ServerResponse, model: string, reply: ModelAnswer, onAbandoned: () => void) => {
  switch (reply._tag) {
    case "Text":
      response.writeHead(200, { "content-type": "application/json" })
      response.end(JSON.stringify({
        id: "chatcmpl-fake",
        object: "chat.completion",
        created: Math.floor(Date.now() / 1000),
        model,
        choices: [{ index: 0, message: { role: "assistant", content: reply.text, refusal: null }, logprobs: null, finish_reason: "stop" }],
        usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 }
      }))
      return
    case "Status":
      response.writeHead(reply.status, {
        "content-type": "application/json",
        ...(reply.retryAfterSeconds === undefined ? {} : { "retry-after": String(reply.retryAfterSeconds) })
      })
      response.end(JSON.stringify({
        error: { message: `fake error ${reply.status}`, type: errorTypes[reply.status] ?? "server_error", param: null, code: null }
      }))
      return
    case "Malformed":
      response.writeHead(200, { "content-type": "application/json" })
      response.end(`{"id":"chatcmpl-fake","choices":[{"message":`)
      return
    case "Reset":
      response.socket?.destroy()
      return
    case "Hang":
      response.on("close", onAbandoned)
      return
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
          (body) => answer(response, options.model ?? "fake-model", script.next(requestOf(body)), () => script.noteAbandoned()),
          () => response.destroy()
        )
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
