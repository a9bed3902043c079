/**
 * Layer probe of the list benchmark, plain JavaScript run by node directly: a plain
 * Effect `HttpRouter` route over `@effect/sql-pg` doing the baselines' work
 * (`list-common.mjs`) — Effect's HTTP server and SQL client, nothing of Coursekit's. Its
 * ratio to bare is what the stack Coursekit is built on costs by itself.
 */
import { NodeHttpServer, NodeRuntime } from "@effect/platform-node"
import { PgClient } from "@effect/sql-pg"
import { Effect, Layer, Redacted } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { SqlClient } from "effect/sql"
import { createServer } from "node:http"
import { listSql, pageOf, pageResponse } from "./list-common.mjs"

// The same SQL as the baselines' with `$n` placeholders; `@effect/sql-pg` prepares it once per connection.
const Route = HttpRouter.add("GET", "/courses", Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const request = yield* HttpServerRequest.HttpServerRequest
  const page = pageOf(request.url)
  const { status, headers, body } = page.refused ?? pageResponse(yield* sql.unsafe(listSql, page.values), page, request.headers["if-none-match"])
  if (status === 304) return HttpServerResponse.empty({ status, headers })
  const { "content-type": contentType, ...rest } = headers
  return HttpServerResponse.text(body, { status, contentType, headers: rest })
}).pipe(Effect.orDie))

HttpRouter.serve(Route, { disableLogger: true, disableListenLog: true }).pipe(
  Layer.provide(PgClient.layer({ url: Redacted.make(process.env.DATABASE_URL), maxConnections: Number(process.env.POOL_SIZE ?? 10) })),
  Layer.provide(NodeHttpServer.layer(() => createServer(), { port: Number(process.env.PORT), host: "127.0.0.1" })),
  Layer.launch,
  NodeRuntime.runMain
)
