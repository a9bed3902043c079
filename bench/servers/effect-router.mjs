/**
 * Layer probe of the list benchmark, plain JavaScript run by node directly: a plain
 * Effect `HttpRouter` route over `@effect/sql-pg` doing the baselines' work
 * (`list-common.mjs`) — Effect's HTTP server and SQL client, nothing of Coursekit's. Its
 * ratio to bare is what the stack Coursekit is built on costs by itself.
 */
import { Effect } from "effect"
import { HttpRouter, HttpServerRequest } from "effect/http"
import { SqlClient } from "effect/sql"
import { responseOf, serve } from "./effect-probe.mjs"
import { listSql, pageOf, pageResponse } from "./list-common.mjs"

// The same SQL as the baselines' with `$n` placeholders; `@effect/sql-pg` prepares it once per connection.
const Route = HttpRouter.add("GET", "/courses", Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const request = yield* HttpServerRequest.HttpServerRequest
  const page = pageOf(request.url)
  return responseOf(page.refused ?? pageResponse(yield* sql.unsafe(listSql, page.values), page, request.headers["if-none-match"]))
}).pipe(Effect.orDie))

serve(Route)
