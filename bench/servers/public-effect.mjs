/**
 * Layer probe of the public-course benchmark, plain JavaScript run by node directly: a
 * plain Effect `HttpRouter` route over `@effect/sql-pg` doing the baselines' work
 * (`public-course-common.mjs`: the same viewer check, statements, JSON and caching
 * headers) — Effect's HTTP server and SQL client, nothing of Coursekit's. Its ratio to
 * bare is what the stack Coursekit is built on costs by itself for this page.
 */
import { Effect } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { SqlClient } from "effect/sql"
import { responseOf, serve } from "./effect-probe.mjs"
import { answerOf, courseSql, lessonsSql, viewerOf } from "./public-course-common.mjs"

const unauthorized = HttpServerResponse.empty({ status: 401, headers: { "www-authenticate": "Bearer" } })
const unavailable = HttpServerResponse.empty({ status: 503 })

// The baselines' SQL; `@effect/sql-pg` prepares it once per connection.
const Route = HttpRouter.add("GET", "/public/courses/:slug", Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const request = yield* HttpServerRequest.HttpServerRequest
  const { slug } = yield* HttpRouter.params
  const viewer = yield* Effect.tryPromise(() => viewerOf(request.headers.authorization)).pipe(Effect.result)
  // As the baselines answer: 401 for a token that does not verify, 503 for anything else.
  if (viewer._tag === "Failure") return viewer.failure.cause?.status === 401 ? unauthorized : unavailable
  const [course] = yield* sql.unsafe(courseSql, [slug, viewer.success])
  const rows = course === undefined ? [] : yield* sql.unsafe(lessonsSql, [course.id, course.purchased])
  return responseOf(answerOf(course, rows, viewer.success, request.headers["if-none-match"]))
}).pipe(Effect.orDie))

serve(Route)
