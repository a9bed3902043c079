/**
 * A loopback HTTP server that speaks the Gemini API's `generateContent` wire format
 * (`POST /{v1,v1beta}/models/{model}:generateContent`), answering from a `ModelScript`: for
 * tests and demos of code that uses the Gemini adapter, with the real SDK and no network.
 * Errors carry Google's error body, a 429's wait as `google.rpc.RetryInfo`. It records the
 * `x-goog-api-key` keys it received so tests can check where a key went.
 *
 * @since 0.1.0
 */
import { modelScript, type ModelAnswer, type ModelScript } from "@coursekit/core/testing"
import { Context, Effect, Layer } from "effect"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"

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

const answer = (response: ServerResponse, reply: ModelAnswer, onAbandoned: () => void) => {
  switch (reply._tag) {
    case "Text":
      response.writeHead(200, { "content-type": "application/json; charset=UTF-8" })
      response.end(JSON.stringify({
        candidates: [{
          // Gemini leaves `parts` out when the model wrote nothing.
          content: reply.text === "" ? { role: "model" } : { role: "model", parts: [{ text: reply.text }] },
          finishReason: "STOP",
          index: 0
        }],
        usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 10, totalTokenCount: 20 },
        modelVersion: "fake-gemini"
      }))
      return
    case "Status":
      response.writeHead(reply.status, { "content-type": "application/json; charset=UTF-8" })
      response.end(JSON.stringify({
        error: {
          code: reply.status,
          message: `fake error ${reply.status}`,
          status: statusNames[reply.status] ?? "UNKNOWN",
          ...(reply.retryAfterSeconds === undefined ? {} : {
            details: [{ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: `${reply.retryAfterSeconds}s` }]
          })
        }
      }))
      return
    case "Malformed":
      response.writeHead(200, { "content-type": "application/json; charset=UTF-8" })
      response.end(`{"candidates":[{"content":`)
      return
    case "Reset":
      response.socket?.destroy()
      return
    case "Hang":
      response.on("close", onAbandoned)
      return
  }
}

const route = /^\/v1(?:beta|alpha)?\/models\/([^/:]+):generateContent(?:\?.*)?$/

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
        keys.push(String(request.headers["x-goog-api-key"] ?? ""))
        models.push(decodeURIComponent(match[1]!))
        readBody(request).then(
          (body) => answer(response, script.next(requestOf(body)), () => script.noteAbandoned()),
          () => response.destroy()
        )
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
