/**
 * `PublicCourseRows` on PostgreSQL (and PGlite): the course visible now, whether the
 * viewer bought it (from the purchases table, as this package's `Entitlements` answers),
 * and its lessons visible now, in one statement. One round trip and one snapshot, where
 * the ports' read takes two or three: the public course is the page every student opens.
 *
 * The bodies follow `viewerLessons`' rule with the purchase decided inside the statement:
 * a lesson's `content_html` and `video_key` are selected only under `CASE WHEN is_preview
 * OR <bought>`, so a locked body is never read (`ViewerQuerySuite` reads the
 * plan).
 *
 * The purchase is read from this package's purchases table, as `PgPurchaseRepo.layer`'s
 * `Entitlements` answers it: compose this reader with that one. A host that answers
 * purchases from its own `Entitlements` provides `PublicCourseRows.layerFromPorts`
 * instead, so that the public course asks it.
 *
 * @since 0.2.0
 */
import { CourseSlugNotFound, PublicCourseRow, PublicCourseRows, RecordVariants, type Viewer, ViewerLesson } from "@coursekit/core"
import { Effect, Layer, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { visibleNow } from "./PgCourseRepo.ts"
import { availableAt, openTo } from "./PgLessonRepo.ts"
import { bounded, PgDeadline } from "./PgDeadline.ts"
import { PgSchema, type PgTables, tablesOf } from "./PgSchema.ts"
import { columnList, unionBranch } from "./PgColumns.ts"
import { storeFailures } from "./PgErrors.ts"

/** The statement's rows: the course's row first, then its lessons' (none when the course is not visible). */
const decodeRows = Schema.decodeUnknownEffect(Schema.Union([
  Schema.Tuple([]),
  Schema.TupleWithRest(Schema.Tuple([PublicCourseRow.mapFields((fields) => ({ ...fields, purchased: Schema.Boolean }))]), [ViewerLesson])
]))

/** The course's columns, the purchase, then the lessons' (both from the records' shapes). */
const courseColumns = RecordVariants.columnsOf(PublicCourseRow)
const lessonColumns = RecordVariants.columnsOf(ViewerLesson)
const outlineColumns = [...new Set([...courseColumns, "purchased", ...lessonColumns])]

/**
 * The statement: a `UNION ALL` of the course's row and its lessons' rows (each side's
 * other columns null), the course first, then the outline order of `viewerLessons`.
 * The course's row is a CTE read once; its purchase is an `EXISTS` on the purchases'
 * primary key, false without a user. The column lists come from `PublicCourseRow` and
 * `ViewerLesson`; only the lesson columns computed here are named: the section's, read
 * with the lessons, and the body and video, selected only for a preview or a buyer.
 * Everything but the slug and the viewer is built once, here: the reader asks for this
 * statement on the page every student opens.
 */
export const publicCourseStatement = (sql: SqlClient.SqlClient, t: PgTables) => {
  // The purchase's instant, read once in the course's row; null without one.
  const bought = sql`(SELECT purchased_at FROM course)`
  const open = openTo(sql, bought)
  const courseSide = Object.fromEntries([...courseColumns, "purchased"].map((column) => [column, sql`${sql(column)}`]))
  courseSide["available_at"] = sql`NULL::timestamptz`
  const lessonSide = {
    ...Object.fromEntries(lessonColumns.map((column) => [column, sql`${sql(column)}`])),
    section_title: sql`(SELECT s.title FROM ${t.sections} s WHERE s.id = lessons.section_id)`,
    section_position: sql`(SELECT s.position FROM ${t.sections} s WHERE s.id = lessons.section_id)`,
    content_html: sql`CASE WHEN ${open} THEN content_html END`,
    video_key: sql`CASE WHEN ${open} THEN video_key END`,
    available_at: availableAt(sql, bought)
  }
  const courseSelect = columnList(sql, courseColumns)
  const outlineSelect = columnList(sql, outlineColumns)
  const courseBranch = unionBranch(sql, outlineColumns, courseSide)
  const lessonBranch = unionBranch(sql, outlineColumns, lessonSide)
  const visible = visibleNow(sql)
  return (slug: string, viewer: Viewer) => {
    const userId = viewer._tag === "User" ? viewer.id : null
    return sql`
      WITH course AS (
        SELECT ${courseSelect}, purchased_at, purchased_at IS NOT NULL AS purchased
        FROM ${t.courses}
        LEFT JOIN LATERAL (
          SELECT purchased_at FROM ${t.purchases} WHERE user_id = ${userId}::text AND course_id = courses.id
        ) AS purchase ON true
        WHERE slug = ${slug} AND ${visible}
      )
      SELECT ${outlineSelect}
      FROM (
        SELECT true AS is_course, ${courseBranch}
        FROM course
        UNION ALL
        SELECT false, ${lessonBranch}
        FROM ${t.lessons} WHERE course_id = (SELECT id FROM course) AND ${visible}
      ) AS outline
      ORDER BY is_course DESC, coalesce(section_position, 0), position`
  }
}

/** The one-statement reader over the `SqlClient` in context. */
export const make = () =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const timeout = yield* PgDeadline
    const statement = publicCourseStatement(sql, tablesOf(sql, yield* PgSchema))
    const read = Effect.fnUntraced(function*(slug: string, viewer: Viewer) {
      const rows = yield* statement(slug, viewer).pipe(
        Effect.flatMap(decodeRows),
        storeFailures("read public course")
      )
      const [first, ...lessons] = rows
      if (first === undefined) return yield* new CourseSlugNotFound({ slug })
      const { purchased, ...course } = first
      return { course, purchased, lessons }
    }, bounded(timeout, "read public course"), Effect.withSpan("PublicCourseRows.read"))
    return PublicCourseRows.of({ read })
  })

/** The one-statement reader; needs an `effect/sql` `SqlClient` on the database `PgCourseRepo`, `PgLessonRepo` and `PgPurchaseRepo` use. */
export const layer: Layer.Layer<PublicCourseRows, never, SqlClient.SqlClient> = Layer.effect(PublicCourseRows, make())
