/**
 * Where the public course's CPU goes, layer by layer (issue #18), in this process and
 * without sockets of its own: the same anonymous request for the same courses, served
 *   1. `pg`: the one statement Coursekit runs (`PgPublicCourseRows`), on `pg` (named, so prepared),
 *   2. `@effect/sql-pg`: the same statement, unsafe (no Schema, no deadline, no span),
 *   3. the reader: `PublicCourseRows.read` (rows decoded by Schema, the statement under
 *      its deadline and in its span),
 *   4. the use case: `PublicCourses.view` (the page put together, file URLs),
 *   5. the answer: the use case's course as JSON, written as it is, with the ETag's
 *      SHA-256 of it (what the edge does: `plainJsonOf`, `answerOf`).
 * What the server adds beyond 5 — the edge middleware, the viewer, `node:http`, the
 * socket writes — is the load run's server CPU per request less row 5. (Not a Web
 * handler: undici's `Request` and `Response` cost more than the whole Node path.)
 * Each row is the CPU time of this process per request (`layerCost.ts`).
 * Run by `public-course.ts` with `BENCH_LAYERS=1`, on its seeded database.
 */
import { anonymousViewer, PublicCourseRows, PublicCourses } from "@coursekit/core"
import { PgPublicCourseRows, PgPurchaseRepo, PgSchema } from "@coursekit/postgres"
import { Effect, Layer, ManagedRuntime } from "effect"
import { createHash } from "node:crypto"
import { SqlClient } from "effect/sql"
import pg from "pg"
import { publicCourseStatement } from "../packages/postgres/src/PgPublicCourseRows.ts"
import { coreServicesOn, databaseOn, measureLayerCosts, type MeasuredLayer } from "./layerCost.ts"

export const measureLayers = async (databaseUrl: string, slugs: ReadonlyArray<string>, rounds: number) => {
  const core = await coreServicesOn(databaseUrl)
  const useCases = ManagedRuntime.make(core.services)
  const database = ManagedRuntime.make(Layer.merge(PgPurchaseRepo.layer, PgPublicCourseRows.layer).pipe(Layer.provideMerge(databaseOn(databaseUrl))))
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 })
  const slugAt = (index: number) => slugs[index % slugs.length]!
  // Coursekit's statement for an anonymous viewer, compiled once; the slug's parameter
  // is found by a stand-in value.
  const standIn = "\u0000slug"
  const [statement, standInParams] = await database.runPromise(
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      return publicCourseStatement(sql, PgSchema.tablesOf(sql, yield* PgSchema.PgSchema))(standIn, anonymousViewer).compile()
    })
  )
  const paramsFor = (slug: string) => standInParams.map((param) => param === standIn ? slug : param)

  const layers: ReadonlyArray<MeasuredLayer> = [
    ["pg", (index) => pool.query({ name: "public-course", text: statement, values: paramsFor(slugAt(index)) })],
    ["@effect/sql-pg", (index) =>
      database.runPromise(Effect.gen(function*() {
        return yield* (yield* SqlClient.SqlClient).unsafe(statement, paramsFor(slugAt(index)))
      }))],
    ["reader", (index) =>
      database.runPromise(Effect.gen(function*() {
        return yield* (yield* PublicCourseRows).read(slugAt(index), anonymousViewer)
      }))],
    ["use case", (index) => useCases.runPromise(Effect.gen(function*() {
        return yield* (yield* PublicCourses).view(slugAt(index), anonymousViewer)
      }))],
    ["answer", async (index) => {
      const course = await useCases.runPromise(Effect.gen(function*() {
        return yield* (yield* PublicCourses).view(slugAt(index), anonymousViewer)
      }))
      const body = JSON.stringify(course)
      return createHash("sha256").update(body).digest("base64url")
    }]
  ]
  try {
    await measureLayerCosts(layers, rounds)
  } finally {
    await pool.end()
    await useCases.dispose()
    await database.dispose()
    core.remove()
  }
}
