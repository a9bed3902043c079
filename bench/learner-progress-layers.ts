/**
 * Where a progress write's CPU goes, layer by layer (issue #33), in this process and
 * without sockets of its own: the same learners' writes, in the same order, through
 *   1. `pg`: the baseline's statements (`progress-common.mjs`'s `recordProgress`: the
 *      write — the access check and both upserts in one statement —, and for a completion
 *      the same in a transaction with the completion check; prepared statements), its
 *      answer's JSON included,
 *   2. `@effect/sql-pg`: the same statements, unsafe, a completion's in
 *      `sql.withTransaction` (no Schema, no deadline, no span),
 *   3. the repository: `ProgressRepo.record` (`PgProgressRepo`: its statements, rows
 *      decoded by Schema, under its deadline and in its span),
 *   4. the use case: `Learning.record` (as `DefaultServices` wires it),
 *   5. the answer: the use case's progress encoded by the contract's `LessonProgress`, as
 *      JSON.
 * The progress tables are put back before each layer's warm-up and measured requests.
 * What the server adds beyond 5 — the edge middleware (request id, log line), the viewer's
 * token, HttpApi's routing and the body's and the lesson id's decoding, `node:http`, the
 * socket writes — is the load run's server CPU per request less row 5. Each row is the CPU
 * time of this process per request (`layerCost.ts`). Run by `learner-progress.ts` with
 * `BENCH_LAYERS=1`, on its seeded database.
 */
import { Learning, type LessonId, LessonProgress, ProgressRepo, type ProgressUpdate, type UserId } from "@coursekit/core"
import { PgProgressRepo } from "@coursekit/postgres"
import { Effect, Layer, ManagedRuntime, Schema } from "effect"
import { SqlClient } from "effect/sql"
import pg from "pg"
import { coreServicesOn, databaseOn, measureLayerCosts, type MeasuredLayer } from "./layerCost.ts"
// @ts-expect-error: a plain JavaScript module of the baselines, without types
import { completionSql, recordProgress, writeSql } from "./servers/progress-common.mjs"

/** One write of a learner: the lesson, and the update (`{"position_seconds": …}` or `{"completed": true}`). */
export interface ProgressWrite {
  readonly userId: string
  readonly lessonId: number
  readonly update: { readonly completed: true } | { readonly position_seconds: number }
}

const encodeProgress = Schema.encodeSync(LessonProgress)

export const measureProgressLayers = async (
  databaseUrl: string,
  writeAt: (index: number) => ProgressWrite,
  reset: () => Promise<void>,
  rounds: number
) => {
  const core = await coreServicesOn(databaseUrl)
  const useCases = ManagedRuntime.make(core.services)
  const database = ManagedRuntime.make(PgProgressRepo.layer.pipe(Layer.provideMerge(databaseOn(databaseUrl))))
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 })
  const argsAt = (index: number) => {
    const { userId, lessonId, update } = writeAt(index)
    return [userId as UserId, lessonId as LessonId, update as ProgressUpdate] as const
  }
  const completedOf = (update: ProgressUpdate) => update.completed ?? null
  const positionOf = (update: ProgressUpdate) => update.position_seconds ?? null

  const layer = (name: string, one: (index: number) => Promise<unknown>): MeasuredLayer => [name, one, reset]
  const layers: ReadonlyArray<MeasuredLayer> = [
    layer("pg", async (index) => {
      const [userId, lessonId, update] = argsAt(index)
      const answer = await recordProgress(pool, userId, lessonId, { completed: completedOf(update), position: positionOf(update) })
      if (answer.status !== 200) throw new Error(`pg: ${answer.status} ${answer.body}`)
    }),
    layer("@effect/sql-pg", (index) =>
      database.runPromise(Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const [userId, lessonId, update] = argsAt(index)
        const write = Effect.gen(function*() {
          const [row] = yield* sql.unsafe<{ open: boolean; course_id: number; course_completed_at: Date | null }>(
            writeSql,
            [userId, lessonId, completedOf(update), positionOf(update)]
          )
          if (row === undefined || !row.open) return yield* Effect.die(`@effect/sql-pg: lesson ${lessonId} is not open`)
          return row
        })
        if (update.completed !== true) return JSON.stringify(yield* write)
        return yield* Effect.gen(function*() {
          const row = yield* write
          if (row.course_completed_at === null) yield* sql.unsafe(completionSql, [userId, row.course_id])
          return JSON.stringify(row)
        }).pipe(sql.withTransaction)
      }))),
    layer("repository", (index) =>
      database.runPromise(Effect.gen(function*() {
        return yield* (yield* ProgressRepo).record(...argsAt(index))
      }))),
    layer("use case", (index) =>
      useCases.runPromise(Effect.gen(function*() {
        return yield* (yield* Learning).record(...argsAt(index))
      }))),
    layer("answer", (index) =>
      useCases.runPromise(Effect.gen(function*() {
        return JSON.stringify(encodeProgress(yield* (yield* Learning).record(...argsAt(index))))
      })))
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
