/**
 * `LessonRepo` on PostgreSQL (and PGlite) through `effect/sql`.
 *
 * Order: every write to a course's lessons runs in a transaction that first locks the
 * course's row (`FOR NO KEY UPDATE`), so writes to one course queue while other courses
 * go on; the shift of the other lessons and the write itself are then one consistent
 * step. The `(course_id, position)` constraint is deferred to commit, so a shift is one
 * statement, and it still guards the order.
 *
 * The public course's query for a viewer without the purchase (`viewerLessons`) selects
 * the bodies only under `CASE WHEN is_preview`: locked bodies are never read.
 *
 * @since 0.1.0
 */
import {
  type CourseId,
  CourseNotFound,
  type LessonChanges,
  type LessonId,
  LessonNotFound,
  type LessonRecord,
  LessonRepo,
  type NewLesson,
  type ViewerLesson
} from "@coursekit/core"
import { DateTime, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { bounded, PgDeadline } from "./PgDeadline.ts"
import { persistenceError } from "./PgErrors.ts"

interface LessonRow {
  readonly id: number
  readonly course_id: number
  readonly title: string
  readonly content_html: string
  readonly video_key: string | null
  readonly is_preview: boolean
  readonly position: number
  readonly created_at: Date | string
  readonly updated_at: Date | string
}

const toRecord = (row: LessonRow): LessonRecord => ({
  id: row.id as LessonId,
  course_id: row.course_id as CourseId,
  title: row.title,
  content_html: row.content_html,
  video_key: row.video_key,
  is_preview: row.is_preview,
  position: row.position,
  created_at: DateTime.makeUnsafe(row.created_at),
  updated_at: DateTime.makeUnsafe(row.updated_at)
})


/**
 * The public course's lessons. Unless `unlocked`, `content_html` and `video_key` are
 * selected only for previews: the statement itself never reads a locked body.
 */
export const viewerLessons = (sql: SqlClient.SqlClient, courseId: CourseId, unlocked: boolean) =>
  unlocked
    ? sql<ViewerLesson>`
        SELECT id, title, position, is_preview, content_html, video_key
        FROM lessons WHERE course_id = ${courseId} ORDER BY position`
    : sql<ViewerLesson>`
        SELECT id, title, position, is_preview,
               CASE WHEN is_preview THEN content_html END AS content_html,
               CASE WHEN is_preview THEN video_key END AS video_key
        FROM lessons WHERE course_id = ${courseId} ORDER BY position`

/** The PostgreSQL lesson repository; needs an `effect/sql` `SqlClient`. */
export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const timeout = yield* PgDeadline

  /** Locks the course's row for this transaction; false when there is no such course. */
  const lockCourse = (courseId: CourseId) =>
    Effect.map(sql`SELECT id FROM courses WHERE id = ${courseId} FOR NO KEY UPDATE`, (rows) => rows.length > 0)
  const countOf = (courseId: CourseId) =>
    Effect.map(sql<{ n: number }>`SELECT count(*)::integer AS n FROM lessons WHERE course_id = ${courseId}`, (rows) => rows[0]!.n)
  const clamp = (position: number | undefined, last: number) =>
    position === undefined ? last : Math.min(Math.max(1, position), last)

  const insert = Effect.fn("LessonRepo.insert")(function*(courseId: CourseId, lesson: NewLesson) {
    return yield* Effect.gen(function*() {
      if (!(yield* lockCourse(courseId))) return yield* new CourseNotFound({ id: courseId })
      const position = clamp(lesson.position, (yield* countOf(courseId)) + 1)
      yield* sql`UPDATE lessons SET position = position + 1 WHERE course_id = ${courseId} AND position >= ${position}`
      const rows = yield* sql<LessonRow>`
        INSERT INTO lessons (course_id, title, content_html, video_key, is_preview, position)
        VALUES (${courseId}, ${lesson.title}, ${lesson.content_html}, ${lesson.video_key}, ${lesson.is_preview}, ${position})
        RETURNING *
      `
      return toRecord(rows[0]!)
    }).pipe(sql.withTransaction, Effect.catchTag("SqlError", (error) => Effect.fail(persistenceError("insert lesson")(error))))
  }, bounded(timeout, "insert lesson"))

  const list = Effect.fn("LessonRepo.list")(function*(courseId: CourseId) {
    const rows = yield* sql<LessonRow>`SELECT * FROM lessons WHERE course_id = ${courseId} ORDER BY position`.pipe(
      Effect.mapError(persistenceError("list lessons"))
    )
    return rows.map(toRecord)
  }, bounded(timeout, "list lessons"))

  const findById = Effect.fn("LessonRepo.findById")(function*(courseId: CourseId, id: LessonId) {
    const rows = yield* sql<LessonRow>`SELECT * FROM lessons WHERE id = ${id} AND course_id = ${courseId}`.pipe(
      Effect.mapError(persistenceError("find lesson"))
    )
    if (rows.length === 0) return yield* new LessonNotFound({ course_id: courseId, id })
    return toRecord(rows[0]!)
  }, bounded(timeout, "find lesson"))

  const update = Effect.fn("LessonRepo.update")(function*(courseId: CourseId, id: LessonId, changes: LessonChanges) {
    return yield* Effect.gen(function*() {
      if (!(yield* lockCourse(courseId))) return yield* new LessonNotFound({ course_id: courseId, id })
      const current = yield* sql<{ position: number }>`SELECT position FROM lessons WHERE id = ${id} AND course_id = ${courseId}`
      if (current.length === 0) return yield* new LessonNotFound({ course_id: courseId, id })
      const from = current[0]!.position
      const to = changes.position === undefined ? from : clamp(changes.position, yield* countOf(courseId))
      if (to > from) {
        yield* sql`UPDATE lessons SET position = position - 1 WHERE course_id = ${courseId} AND position > ${from} AND position <= ${to}`
      } else if (to < from) {
        yield* sql`UPDATE lessons SET position = position + 1 WHERE course_id = ${courseId} AND position >= ${to} AND position < ${from}`
      }
      const rows = yield* sql<LessonRow>`
        UPDATE lessons SET
          title = COALESCE(${changes.title ?? null}, title),
          content_html = COALESCE(${changes.content_html ?? null}, content_html),
          video_key = CASE WHEN ${changes.video_key !== undefined} THEN ${changes.video_key ?? null} ELSE video_key END,
          is_preview = COALESCE(${changes.is_preview ?? null}, is_preview),
          position = ${to},
          updated_at = now()
        WHERE id = ${id}
        RETURNING *
      `
      return toRecord(rows[0]!)
    }).pipe(sql.withTransaction, Effect.catchTag("SqlError", (error) => Effect.fail(persistenceError("update lesson")(error))))
  }, bounded(timeout, "update lesson"))

  const delete_ = Effect.fn("LessonRepo.delete")(function*(courseId: CourseId, id: LessonId) {
    return yield* Effect.gen(function*() {
      if (!(yield* lockCourse(courseId))) return yield* new LessonNotFound({ course_id: courseId, id })
      const deleted = yield* sql<{ position: number }>`
        DELETE FROM lessons WHERE id = ${id} AND course_id = ${courseId} RETURNING position
      `
      if (deleted.length === 0) return yield* new LessonNotFound({ course_id: courseId, id })
      yield* sql`UPDATE lessons SET position = position - 1 WHERE course_id = ${courseId} AND position > ${deleted[0]!.position}`
    }).pipe(sql.withTransaction, Effect.catchTag("SqlError", (error) => Effect.fail(persistenceError("delete lesson")(error))))
  }, bounded(timeout, "delete lesson"))

  const listForViewer = Effect.fn("LessonRepo.listForViewer")(function*(courseId: CourseId, unlocked: boolean) {
    const rows = yield* viewerLessons(sql, courseId, unlocked).pipe(Effect.mapError(persistenceError("list lessons for a viewer")))
    return rows.map((row): ViewerLesson => ({ ...row, id: row.id as LessonId }))
  }, bounded(timeout, "list lessons for a viewer"))

  return LessonRepo.of({ insert, list, findById, update, delete: delete_, listForViewer })
})

/** `LessonRepo` over the `SqlClient` in context. */
export const layer: Layer.Layer<LessonRepo, never, SqlClient.SqlClient> = Layer.effect(LessonRepo, make)
