/**
 * What the database itself is asked for a viewer without the purchase: the plan of the
 * public course's lesson query (EXPLAIN VERBOSE lists every column the scan outputs)
 * reads `content_html` and `video_key` only under `CASE WHEN is_preview`; for a buyer
 * only under `CASE WHEN is_preview OR <released>` (drip: an upcoming lesson's body is not
 * read either); the plan of the one-statement read (`PgPublicCourseRows`) only under
 * `CASE WHEN is_preview OR <bought and released>`.
 */
import { anonymousViewer, type CourseId, CourseRepo, LessonRepo, MediaRepo, publishedNow, signedInViewer, UserId, type Viewer } from "@coursekit/core"
import { assert, describe, layer } from "@effect/vitest"
import { DateTime, Effect, type Layer, Schema } from "effect"
import { SqlClient, type Statement } from "effect/sql"
import { viewerLessons } from "../src/PgLessonRepo.ts"
import { publicCourseStatement } from "../src/PgPublicCourseRows.ts"
import { PgSchema, type PgTables, tablesOf } from "../src/PgSchema.ts"

/** Every `Output` list of a JSON plan, depth first. */
const outputs = (plan: any): Array<Array<string>> => [
  ...(Array.isArray(plan.Output) ? [plan.Output as Array<string>] : []),
  ...((plan.Plans ?? []) as Array<unknown>).flatMap(outputs)
]

/** The JSON plan (EXPLAIN VERBOSE) of the statement `statementOf` builds. */
const planOf = (statementOf: (sql: SqlClient.SqlClient, t: PgTables) => Statement.Statement<unknown>) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const [text, params] = statementOf(sql, tablesOf(sql, yield* PgSchema)).compile()
    const rows = yield* sql.unsafe<{ "QUERY PLAN": any }>(`EXPLAIN (VERBOSE, FORMAT JSON) ${text}`, params)
    const raw = rows[0]!["QUERY PLAN"]
    return (typeof raw === "string" ? JSON.parse(raw) : raw)[0].Plan
  })

const planOutputs = (courseId: CourseId, purchasedAt: DateTime.Utc | null) =>
  Effect.map(planOf((sql, t) => viewerLessons(sql, t, courseId, purchasedAt)), (plan) => outputs(plan).flat())

/** A read of a body only when the lesson is a preview, or open to the buyer. */
const underOpen = /^\(?CASE WHEN \((\w+\.)?is_preview OR .*now\(\).*\) THEN (\w+\.)?(content_html|video_key) ELSE NULL::text END\)?$/

/** The plan's nodes that scan `relation`, with their `Output` lists. */
const scansOf = (plan: any, relation: string): Array<Array<string>> => [
  ...(plan["Relation Name"] === relation ? [(plan.Output ?? []) as Array<string>] : []),
  ...((plan.Plans ?? []) as Array<unknown>).flatMap((child) => scansOf(child, relation))
]

const statementPlan = (slug: string, viewer: Viewer) => planOf((sql, t) => publicCourseStatement(sql, t)(slug, viewer))

export const viewerQuerySuite = <E>(name: string, repos: Layer.Layer<LessonRepo | CourseRepo | MediaRepo | SqlClient.SqlClient, E>) => {
  describe(`public course lesson query: ${name}`, () => {
    layer(repos, { timeout: 60_000 })((it) => {
      it.effect("without the purchase, bodies are read only for previews; with it, only for previews and released lessons", () =>
        Effect.gen(function*() {
          const course = yield* (yield* CourseRepo).insert({ ...publishedNow, title: "Plan", slugBase: `plan-${Date.now()}`, content_html: "" })
          const video = `private/media/plan-${Date.now()}.mp4`
          yield* (yield* MediaRepo).upsert({ key: video, name: "v.mp4", size_bytes: 1, content_type: "video/mp4" })
          yield* (yield* LessonRepo).insert(course.id, { ...publishedNow, section_id: null, title: "x", content_html: "<p>secret</p>", video_key: video, is_preview: false })
          const locked = yield* planOutputs(course.id, null)
          assert.isNotEmpty(locked)
          for (const column of ["content_html", "video_key"]) {
            const reads = locked.filter((output) => output.includes(column))
            assert.isNotEmpty(reads, column)
            for (const read of reads) assert.match(read, /^\(?CASE WHEN (\w+\.)?is_preview THEN (\w+\.)?(content_html|video_key) ELSE NULL::text END\)?$/, read)
          }
          // A buyer: every body read is under the release condition (previews, and lessons drip released).
          const bought = yield* planOutputs(course.id, DateTime.makeUnsafe("2026-01-01T00:00:00Z"))
          for (const column of ["content_html", "video_key"]) {
            const reads = bought.filter((output) => output.includes(column))
            assert.isNotEmpty(reads, column)
            for (const read of reads) assert.match(read, underOpen, read)
          }
        }))

      it.effect("the one-statement read: a lesson's body and video are read only under CASE WHEN is_preview OR bought and released", () =>
        Effect.gen(function*() {
          const course = yield* (yield* CourseRepo).insert({ ...publishedNow, title: "Rows plan", slugBase: `rows-plan-${Date.now()}`, content_html: "" })
          yield* (yield* LessonRepo).insert(course.id, { ...publishedNow, section_id: null, title: "x", content_html: "<p>secret</p>", video_key: null, is_preview: false })
          for (const viewer of [anonymousViewer, signedInViewer(Schema.decodeSync(UserId)("plan-user"))]) {
            const scans = scansOf(yield* statementPlan(course.slug, viewer), "lessons")
            assert.isNotEmpty(scans)
            for (const column of ["content_html", "video_key"]) {
              const reads = scans.flat().filter((output) => output.includes(column))
              assert.isNotEmpty(reads, column)
              for (const read of reads) {
                assert.match(read, underOpen, read)
              }
            }
          }
        }))
    })
  })
}
