/**
 * A TCP proxy on 127.0.0.1 in front of a test server, which a test can take down and
 * bring back: down, it resets every open connection and every new one, as an
 * unreachable host or a restarting service would.
 */
import { Context, Effect, Layer } from "effect"
import * as net from "node:net"

export class TcpProxy extends Context.Service<TcpProxy, {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string
  /** Takes the target down (`false`) or brings it back (`true`). */
  readonly setUp: (up: boolean) => Effect.Effect<void>
}>()("@coursekit/server/test/TcpProxy") {
  /** A proxy to `127.0.0.1:<port of target>`, closed with the layer. */
  static readonly layer = (target: string): Layer.Layer<TcpProxy> =>
    Layer.effect(TcpProxy, Effect.gen(function*() {
      const targetPort = Number(new URL(target).port)
      let up = true
      const open = new Set<net.Socket>()
      const server = yield* Effect.acquireRelease(
        Effect.callback<net.Server>((resume) => {
          const server = net.createServer((client) => {
            if (!up) return void client.resetAndDestroy()
            const upstream = net.connect(targetPort, "127.0.0.1")
            for (const socket of [client, upstream]) {
              open.add(socket)
              socket.once("close", () => open.delete(socket))
              socket.on("error", () => {
                client.destroy()
                upstream.destroy()
              })
            }
            client.pipe(upstream).pipe(client)
          })
          server.listen(0, "127.0.0.1", () => resume(Effect.succeed(server)))
        }),
        (server) =>
          Effect.callback<void>((resume) => {
            for (const socket of open) socket.destroy()
            server.close(() => resume(Effect.void))
          })
      )
      const { port } = server.address() as net.AddressInfo
      return TcpProxy.of({
        url: `http://127.0.0.1:${port}`,
        setUp: (next) =>
          Effect.sync(() => {
            up = next
            if (!next) for (const socket of open) socket.resetAndDestroy()
          })
      })
    }))
}
