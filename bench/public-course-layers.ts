/**
 * Where the public course's CPU goes, layer by layer (issue #18), in this process and
 * without sockets of its own: the same anonymous request for the same courses, served
 *   1. `pg`: the two statements Coursekit runs, on `pg` (named, so prepared),
 *   2. `@effect/sql-pg`: the same statements, unsafe (no Schema, no deadline, no span),
 *   3. the repositories: `CourseRepo.findBySlug` + `LessonRepo.listForViewer` (rows
 *      decoded by Schema, each statement under its deadline and in its span),
 *   4. the use case: `PublicCourses.view` (the page put together, file URLs),
 *   5. the answer: the use case's course as JSON, written as it is, with the ETag's
 *      SHA-256 of it (what the edge does: `plainJsonOf`, `answerOf`).
 * What the server adds beyond 5 — the edge middleware, the viewer, `node:http`, the
 * socket writes — is the load run's server CPU per request less row 5. (Not a Web
 * handler: undici's `Request` and `Response` cost more than the whole Node path.)
 * Each row is the CPU time of this process per request (`process.cpuUsage`: the
 * PostgreSQL server's own time is not in it), 20 requests in flight. A row less the one
 * above it is what that layer adds. Rounds alternate the order; the medians are printed.
 * Run by `public-course.ts` with `BENCH_LAYERS=1`, on its seeded database.
 */
import { anonymousViewer, CourseRepo, LessonRepo, PublicCourses } from "@coursekit/core"
import { PgDatabase, PgCourseRepo, PgLessonRepo } from "@coursekit/postgres"
import { DefaultServices, ServerConfig } from "@coursekit/server"
import { ConfigProvider, Effect, Layer, ManagedRuntime, Redacted } from "effect"
import { createHash } from "node:crypto"
import { SqlClient } from "effect/sql"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import pg from "pg"

// Coursekit's statements for an anonymous viewer, as `pgStatementLog` prints them.
const courseSql = "SELECT * FROM courses WHERE slug = $1 AND status = 'published' AND (publish_at IS NULL OR publish_at <= now())"
const lessonsSql = "SELECT id, section_id, (SELECT s.title FROM sections s WHERE s.id = lessons.section_id) AS section_title, " +
  "(SELECT s.position FROM sections s WHERE s.id = lessons.section_id) AS section_position, title, position, is_preview, " +
  "CASE WHEN is_preview THEN content_html END AS content_html, CASE WHEN is_preview THEN video_key END AS video_key " +
  "FROM lessons WHERE course_id = $1 AND status = 'published' AND (publish_at IS NULL OR publish_at <= now()) " +
  "ORDER BY coalesce((SELECT s.position FROM sections s WHERE s.id = lessons.section_id), 0), lessons.position"

const requests = Number(process.env.BENCH_LAYER_REQUESTS ?? 15000)
const inFlight = 20

/** CPU µs of this process per call of `one`, `requests` calls with {@link inFlight} at a time, after a warm-up. */
const cpuPerCall = async (one: (index: number) => Promise<unknown>) => {
  for (let index = 0; index < 500; index++) await one(index)
  const before = process.cpuUsage()
  let next = 0
  await Promise.all(Array.from({ length: inFlight }, async () => {
    while (next < requests) await one(next++)
  }))
  const used = process.cpuUsage(before)
  return (used.user + used.system) / requests
}

export const measureLayers = async (databaseUrl: string, slugs: ReadonlyArray<string>, rounds: number) => {
  const dataDir = mkdtempSync(join(tmpdir(), "coursekit-bench-layers-"))
  const settings = await Effect.runPromise(ServerConfig.settings.parse(ConfigProvider.fromEnv({
    env: { DATABASE_URL: databaseUrl, DATABASE_POOL_SIZE: "10", DATA_DIR: dataDir, CDN_URL: "http://localhost/files", LOG_LEVEL: "Warn" }
  })))
  const core = DefaultServices.coreLayers(settings, () => "http://127.0.0.1")
  const useCases = ManagedRuntime.make(core.services)
  const database = ManagedRuntime.make(
    Layer.mergeAll(PgCourseRepo.layer, PgLessonRepo.layer).pipe(Layer.provideMerge(PgDatabase.layer({ url: Redacted.make(databaseUrl), maxConnections: 10 })))
  )
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 })
  const slugAt = (index: number) => slugs[index % slugs.length]!

  const layers: ReadonlyArray<readonly [string, (index: number) => Promise<unknown>]> = [
    ["pg", async (index) => {
      const course = await pool.query({ name: "course", text: courseSql, values: [slugAt(index)] })
      return pool.query({ name: "lessons", text: lessonsSql, values: [course.rows[0].id] })
    }],
    ["@effect/sql-pg", (index) =>
      database.runPromise(Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const course = yield* sql.unsafe<{ id: number }>(courseSql, [slugAt(index)])
        return yield* sql.unsafe(lessonsSql, [course[0]!.id])
      }))],
    ["repositories", (index) =>
      database.runPromise(Effect.gen(function*() {
        const course = yield* (yield* CourseRepo).findBySlug(slugAt(index), { visibleOnly: true })
        return yield* (yield* LessonRepo).listForViewer(course.id, false)
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
  const samples = new Map<string, Array<number>>(layers.map(([name]) => [name, []]))
  try {
    for (let round = 0; round < rounds; round++) {
      for (const [name, one] of round % 2 === 0 ? layers : [...layers].reverse()) {
        const cpu = await cpuPerCall(one)
        samples.get(name)!.push(cpu)
        console.log(`round ${round + 1} ${name.padEnd(15)} ${cpu.toFixed(0).padStart(5)} µs CPU per request`)
      }
    }
  } finally {
    await pool.end()
    await useCases.dispose()
    await database.dispose()
    rmSync(dataDir, { recursive: true, force: true })
  }
  const median = (values: ReadonlyArray<number>) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
  console.log("\nlayer            µs CPU/request (median)  added by the layer")
  let below = 0
  for (const [name] of layers) {
    const value = median(samples.get(name)!)
    console.log(`${name.padEnd(16)} ${value.toFixed(0).padStart(23)} ${(value - below).toFixed(0).padStart(19)}`)
    below = value
  }
}
