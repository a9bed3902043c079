/**
 * Where the uncached course list's CPU goes, layer by layer (issue #18), in this process
 * and without sockets of its own: the same public pages (`/courses?cursor=…&limit=10`),
 *   1. `pg`: the list statement Coursekit runs (the baselines' `listSql`, the same
 *      text), on `pg` (named, so prepared),
 *   2. `@effect/sql-pg`: the same statement, unsafe (no Schema, no deadline, no span),
 *   3. the repository: `CourseRepo.list` (rows decoded by Schema, the statement under its
 *      deadline and in its span),
 *   4. the use case: `Courses.list` (the page's items, file URLs, the next cursor),
 *   5. the answer: the edge's `CourseListCache` with no entries (as `LIST_CACHE_ENTRIES=0`)
 *      writing the page for the public — items encoded by the contract, JSON, ETag,
 *      `Link` — as the server does for every miss.
 * What the server adds beyond 5 — the edge middleware (request id, log line, the
 * reader's audience), `node:http`, the socket writes — is the load run's server CPU per
 * request less row 5. Each row is the CPU time of this process per request
 * (`layerCost.ts`). Run by `catalogue-list.ts` with `BENCH_LAYERS=1`, on its seeded
 * database.
 */
import { type CourseId, CourseRepo, Courses, publicAudience } from "@coursekit/core"
import { CourseListCache } from "@coursekit/http"
import { PgCourseRepo } from "@coursekit/postgres"
import { Effect, Layer, ManagedRuntime } from "effect"
import { SqlClient } from "effect/sql"
import pg from "pg"
import { coreServicesOn, databaseOn, measureLayerCosts, type MeasuredLayer } from "./layerCost.ts"
// @ts-expect-error: a plain JavaScript module of the baselines, without types
import { listSql } from "./servers/list-common.mjs"

export const measureListLayers = async (databaseUrl: string, paths: ReadonlyArray<string>, rounds: number) => {
  const core = await coreServicesOn(databaseUrl)
  const edge = ManagedRuntime.make(CourseListCache.layer({ maxEntries: 0 }).pipe(Layer.provideMerge(core.services)))
  const database = ManagedRuntime.make(PgCourseRepo.layer.pipe(Layer.provideMerge(databaseOn(databaseUrl))))
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 })
  const pathAt = (index: number) => paths[index % paths.length]!
  const cursorAt = (index: number) => Number(new URLSearchParams(pathAt(index).split("?")[1]).get("cursor")) as CourseId
  const notServed = Effect.die("the edge passed a public page on")

  const layers: ReadonlyArray<MeasuredLayer> = [
    ["pg", (index) => pool.query({ name: "list", text: listSql, values: [cursorAt(index), 11] })],
    ["@effect/sql-pg", (index) =>
      database.runPromise(Effect.gen(function*() {
        return yield* (yield* SqlClient.SqlClient).unsafe(listSql, [cursorAt(index), 11])
      }))],
    ["repository", (index) =>
      database.runPromise(Effect.gen(function*() {
        return yield* (yield* CourseRepo).list({ cursor: cursorAt(index), limit: 11, audience: publicAudience })
      }))],
    ["use case", (index) =>
      edge.runPromise(Effect.gen(function*() {
        return yield* (yield* Courses).list({ cursor: cursorAt(index), limit: 10, audience: publicAudience })
      }))],
    ["answer", (index) =>
      edge.runPromise(Effect.gen(function*() {
        const request = { method: "GET", url: pathAt(index), ifNoneMatch: undefined, prefix: "" }
        return yield* (yield* CourseListCache).around(request, Effect.succeed("public" as const), notServed)
      }))]
  ]
  try {
    await measureLayerCosts(layers, rounds)
  } finally {
    await pool.end()
    await edge.dispose()
    await database.dispose()
    core.remove()
  }
}
