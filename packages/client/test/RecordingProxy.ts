/**
 * An HTTP proxy on 127.0.0.1 in front of a test server that records every request it
 * forwards (method, path, body as sent), so a test sees the bytes a client put on the wire
 * while the real server answers them.
 */
import { Effect, type Scope } from "effect"
import * as http from "node:http"
import type { AddressInfo } from "node:net"

export interface RecordedRequest {
  readonly method: string
  readonly path: string
  readonly body: string
}

/** Starts the proxy to `target` (`http://127.0.0.1:<port>`), closed with the scope. */
export const recordingProxy = (target: string): Effect.Effect<{
  readonly url: string
  readonly requests: ReadonlyArray<RecordedRequest>
}, never, Scope.Scope> =>
  Effect.gen(function*() {
    const upstream = new URL(target)
    const requests: Array<RecordedRequest> = []
    const server = yield* Effect.acquireRelease(
      Effect.callback<http.Server>((resume) => {
        const server = http.createServer((request, response) => {
          const chunks: Array<Buffer> = []
          request.on("data", (chunk: Buffer) => chunks.push(chunk))
          request.on("end", () => {
            const body = Buffer.concat(chunks)
            requests.push({ method: request.method ?? "", path: request.url ?? "", body: body.toString("utf8") })
            const forwarded = http.request(
              { host: upstream.hostname, port: upstream.port, method: request.method, path: request.url, headers: { ...request.headers, host: upstream.host } },
              (answer) => {
                response.writeHead(answer.statusCode ?? 502, answer.headers)
                answer.pipe(response)
              }
            )
            forwarded.on("error", () => response.destroy())
            forwarded.end(body)
          })
        })
        server.listen(0, "127.0.0.1", () => resume(Effect.succeed(server)))
      }),
      (server) =>
        Effect.callback<void>((resume) => {
          server.closeAllConnections()
          server.close(() => resume(Effect.void))
        })
    )
    const { port } = server.address() as AddressInfo
    return { url: `http://127.0.0.1:${port}`, requests }
  })
