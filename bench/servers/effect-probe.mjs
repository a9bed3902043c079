/**
 * What the Effect probes (`effect-router.mjs`, `public-effect.mjs`) share: a baseline's
 * `{ status, headers, body }` as an `HttpServerResponse`, and serving one route with
 * Effect's Node HTTP server over `@effect/sql-pg` (no logger, a pool of `POOL_SIZE`).
 */
import { NodeHttpServer, NodeRuntime } from "@effect/platform-node"
import { PgClient } from "@effect/sql-pg"
import { Layer, Redacted } from "effect"
import { HttpRouter, HttpServerResponse } from "effect/http"
import { createServer } from "node:http"

/** A baseline's answer as Effect's response: 304 without body, else the body with its content type. */
export const responseOf = ({ status, headers, body }) => {
  if (status === 304) return HttpServerResponse.empty({ status, headers })
  const { "content-type": contentType, ...rest } = headers
  return HttpServerResponse.text(body, { status, contentType, headers: rest })
}

/** Serves `route` on `PORT` at 127.0.0.1 with `DATABASE_URL`'s pool, until the process ends. */
export const serve = (route) =>
  HttpRouter.serve(route, { disableLogger: true, disableListenLog: true }).pipe(
    Layer.provide(PgClient.layer({ url: Redacted.make(process.env.DATABASE_URL), maxConnections: Number(process.env.POOL_SIZE ?? 10) })),
    Layer.provide(NodeHttpServer.layer(() => createServer(), { port: Number(process.env.PORT), host: "127.0.0.1" })),
    Layer.launch,
    NodeRuntime.runMain
  )
