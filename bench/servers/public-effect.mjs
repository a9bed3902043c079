/**
 * Layer probe of the public-course benchmark, plain JavaScript run by node directly: a
 * plain Effect `HttpRouter` route over `@effect/sql-pg` doing the baselines' work
 * (`public-course-common.mjs`: the same viewer check, statements, JSON and caching
 * headers) — Effect's HTTP server and SQL client, nothing of Coursekit's. Its ratio to
 * bare is what the stack Coursekit is built on costs by itself for this page.
 */
import { NodeHttpServer, NodeRuntime } from "@effect/platform-node"
import { PgClient } from "@effect/sql-pg"
import { Effect, Layer, Redacted } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { SqlClient } from "effect/sql"
import { createServer } from "node:http"
import { answerOf, courseSql, lessonsSql, viewerOf } from "./public-course-common.mjs"

const unauthorized = HttpServerResponse.empty({ status: 401, headers: { "www-authenticate": "Bearer" } })

// The baselines' SQL; `@effect/sql-pg` prepares it once per connection.
const Route = HttpRouter.add("GET", "/public/courses/:slug", Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const request = yield* HttpServerRequest.HttpServerRequest
  const { slug } = yield* HttpRouter.params
  const viewer = yield* Effect.tryPromise(() => viewerOf(request.headers.authorization)).pipe(Effect.option)
  if (viewer._tag === "None") return unauthorized
  const [course] = yield* sql.unsafe(courseSql, [slug, viewer.value])
  const rows = course === undefined ? [] : yield* sql.unsafe(lessonsSql, [course.id, course.purchased])
  const { status, headers, body } = answerOf(course, rows, viewer.value, request.headers["if-none-match"])
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
