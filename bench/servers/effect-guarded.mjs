/**
 * The list's Effect probe (`effect-router.mjs`) plus the guarantees Coursekit keeps on
 * every uncached list read, each switched on by name in `GUARDS` (comma-separated), to
 * measure what each costs on the stack alone (issue #18):
 *   - `log`: a request id (taken from `x-request-id` or made) and Coursekit's request
 *     log line (`RequestLogger.layerJsonLines`, to standard output);
 *   - `span`: the statement in a span (`Effect.withSpan`, made once);
 *   - `deadline`: the statement under `Deadline.within`, as `PgDeadline.bounded` runs it;
 *   - `decode`: the rows decoded by the shape of a list row (`CourseListRow`'s fields);
 *   - `repository`: instead of the three above, `CourseRepo.list` itself (the
 *     PostgreSQL adapter: decoding, deadline, span and its error mapping).
 * The answer is the baselines' (`list-common.mjs`), byte for byte.
 */
import { CourseListRow, CourseRepo, Deadline, publicAudience } from "@coursekit/core"
import { RequestLogger } from "@coursekit/http"
import { PgCourseRepo } from "@coursekit/postgres"
import { NodeHttpServer, NodeRuntime } from "@effect/platform-node"
import { PgClient } from "@effect/sql-pg"
import { Effect, Layer, Redacted, Schema, Struct } from "effect"
import { HttpRouter, HttpServerRequest } from "effect/http"
import { SqlClient } from "effect/sql"
import { createServer } from "node:http"
import { responseOf } from "./effect-probe.mjs"
import { listSql, pageOf, pageResponse } from "./list-common.mjs"

const guards = new Set((process.env.GUARDS ?? "").split(",").filter((guard) => guard !== ""))
const validRequestId = /^[\w.:-]{1,128}$/
// The baselines' statement selects the public's four columns of a list row.
const decodeRows = Schema.decodeUnknownEffect(
  Schema.Array(CourseListRow.mapFields(Struct.pick(["id", "title", "slug", "thumbnail_key"])))
)
const inSpan = Effect.withSpan("CourseRepo.list")
const bounded = Deadline.within(5000, () => new Error("no answer from the database within 5 s"))

/** The rows of `listSql` for `page`, through the guards asked for. */
const rowsOf = (sql, repo, page) => {
  if (guards.has("repository")) {
    return Effect.map(
      repo.list({ cursor: page.values[0] === 0 ? undefined : page.values[0], limit: page.values[1], audience: publicAudience }),
      ({ rows, version }) => rows.length === 0 ? [{ version, id: null }] : rows.map((row) => ({ ...row, version }))
    )
  }
  let rows = sql.unsafe(listSql, page.values)
  if (guards.has("decode")) {
    rows = Effect.flatMap(rows, (raw) =>
      raw[0].id === null
        ? Effect.succeed(raw)
        : Effect.map(decodeRows(raw), (decoded) => decoded.map((row) => ({ ...row, version: raw[0].version }))))
  }
  if (guards.has("deadline")) rows = bounded(rows)
  if (guards.has("span")) rows = inSpan(rows)
  return rows
}

const Route = HttpRouter.add("GET", "/courses", Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const repo = yield* CourseRepo
  const logger = yield* RequestLogger
  const request = yield* HttpServerRequest.HttpServerRequest
  const start = performance.now()
  const page = pageOf(request.url)
  const answer = page.refused ?? pageResponse(yield* rowsOf(sql, repo, page), page, request.headers["if-none-match"])
  if (!guards.has("log")) return responseOf(answer)
  const incoming = request.headers["x-request-id"]
  const requestId = incoming !== undefined && validRequestId.test(incoming) ? incoming : crypto.randomUUID()
  logger.log({
    requestId,
    method: request.method,
    path: "/courses",
    status: answer.status,
    durationMs: Math.round((performance.now() - start) * 100) / 100
  })
  return responseOf({ ...answer, headers: { ...answer.headers, "x-request-id": requestId } })
}).pipe(Effect.orDie))

HttpRouter.serve(Route, { disableLogger: true, disableListenLog: true }).pipe(
  Layer.provide([PgCourseRepo.layer, RequestLogger.layerJsonLines()]),
  Layer.provide(PgClient.layer({ url: Redacted.make(process.env.DATABASE_URL), maxConnections: Number(process.env.POOL_SIZE ?? 10) })),
  Layer.provide(NodeHttpServer.layer(() => createServer(), { port: Number(process.env.PORT), host: "127.0.0.1" })),
  Layer.launch,
  NodeRuntime.runMain
)
