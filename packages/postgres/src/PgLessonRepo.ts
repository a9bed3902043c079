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
  hasPublicVideoWhilePaid,
  LessonChanges,
  LessonInsert,
  type LessonId,
  LessonNotFound,
  LessonRecord,
  LessonRepo,
  LessonUsingFile,
  type NewLesson,
  PublicVideoOnPaidLesson,
  RecordVariants,
  VideoNotFound,
  ViewerLesson
} from "@coursekit/core"
import { Effect, Layer, Schema } from "effect"
import { SqlClient, type SqlError } from "effect/sql"
import { visibleNow } from "./PgCourseRepo.ts"
import { bounded, PgDeadline } from "./PgDeadline.ts"
import { persistenceError, violatesForeignKey } from "./PgErrors.ts"

/** Rows decoded through the record's schemas: a row that does not decode is a store failure. */
const decodeRecords = Schema.decodeUnknownEffect(Schema.Array(LessonRecord))
// Only the shapes' keys are written: TypeScript lets objects with extra properties through.
const insertFields = RecordVariants.pick(LessonInsert)
const changedFields = RecordVariants.pick(LessonChanges)
const encodeInsert = Schema.encodeSync(LessonInsert)
const encodeChanges = Schema.encodeSync(LessonChanges)
const decodeViewerLessons = Schema.decodeUnknownEffect(Schema.Array(ViewerLesson))
const decodeUsers = Schema.decodeUnknownEffect(Schema.Array(LessonUsingFile))

/**
 * The public course's lessons: those visible now, by the database's clock (drafts and
 * scheduled lessons are not read). Unless `unlocked`, `content_html` and `video_key` are
 * selected only for previews: the statement itself never reads a locked body.
 */
export const viewerLessons = (sql: SqlClient.SqlClient, courseId: CourseId, unlocked: boolean) =>
  unlocked
    ? sql`
        SELECT id, title, position, is_preview, content_html, video_key
        FROM lessons WHERE course_id = ${courseId} AND ${visibleNow(sql)} ORDER BY position`
    : sql`
        SELECT id, title, position, is_preview,
               CASE WHEN is_preview THEN content_html END AS content_html,
               CASE WHEN is_preview THEN video_key END AS video_key
        FROM lessons WHERE course_id = ${courseId} AND ${visibleNow(sql)} ORDER BY position`

/** The PostgreSQL lesson repository; needs an `effect/sql` `SqlClient`. */
export const make = () => Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const timeout = yield* PgDeadline

  /** Locks the course's row for this transaction; false when there is no such course. */
  const lockCourse = (courseId: CourseId) =>
    Effect.map(sql`SELECT id FROM courses WHERE id = ${courseId} FOR NO KEY UPDATE`, (rows) => rows.length > 0)
  const countOf = (courseId: CourseId) =>
    Effect.map(sql<{ n: number }>`SELECT count(*)::integer AS n FROM lessons WHERE course_id = ${courseId}`, (rows) => rows[0]!.n)
  const clamp = (position: number | undefined, last: number) =>
    position === undefined ? last : Math.min(Math.max(1, position), last)
  /** A write's SQL failure: a video deleted meanwhile is `VideoNotFound`, the rest a store failure. */
  const writeFailed = (operation: string, videoKey: string | null | undefined) => (error: SqlError.SqlError) =>
    violatesForeignKey(error, "lessons_video_key_fkey") && typeof videoKey === "string"
      ? Effect.fail(new VideoNotFound({ video_key: videoKey }))
      : Effect.fail(persistenceError(operation)(error))

  const insert = Effect.fn("LessonRepo.insert")(function*(courseId: CourseId, lesson: NewLesson) {
    if (hasPublicVideoWhilePaid(lesson)) return yield* new PublicVideoOnPaidLesson({ video_key: lesson.video_key! })
    return yield* Effect.gen(function*() {
      if (!(yield* lockCourse(courseId))) return yield* new CourseNotFound({ id: courseId })
      const position = clamp(lesson.position, (yield* countOf(courseId)) + 1)
      yield* sql`UPDATE lessons SET position = position + 1 WHERE course_id = ${courseId} AND position >= ${position}`
      const rows = yield* decodeRecords(yield* sql`
        INSERT INTO lessons ${sql.insert({ ...encodeInsert(insertFields(lesson)), course_id: courseId, position })}
        RETURNING *
      `)
      return rows[0]!
    }).pipe(sql.withTransaction, Effect.catchTags({
      SqlError: writeFailed("insert lesson", lesson.video_key),
      SchemaError: (error) => Effect.fail(persistenceError("insert lesson")(error))
    }))
  }, bounded(timeout, "insert lesson"))

  const list = Effect.fn("LessonRepo.list")(function*(courseId: CourseId) {
    return yield* sql`SELECT * FROM lessons WHERE course_id = ${courseId} ORDER BY position`.pipe(
      Effect.flatMap(decodeRecords),
      Effect.mapError(persistenceError("list lessons"))
    )
  }, bounded(timeout, "list lessons"))

  const findById = Effect.fn("LessonRepo.findById")(function*(courseId: CourseId, id: LessonId) {
    const rows = yield* sql`SELECT * FROM lessons WHERE id = ${id} AND course_id = ${courseId}`.pipe(
      Effect.flatMap(decodeRecords),
      Effect.mapError(persistenceError("find lesson"))
    )
    if (rows.length === 0) return yield* new LessonNotFound({ course_id: courseId, id })
    return rows[0]!
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
      const { position: _, ...fields } = encodeChanges(RecordVariants.definedOnly(changedFields(changes)))
      const rows = yield* decodeRecords(yield* sql`
        UPDATE lessons SET ${sql.update({ ...fields, position: to })}, updated_at = now()
        WHERE id = ${id}
        RETURNING *
      `)
      const updated = rows[0]!
      // Checked on the written row under the course's lock; failing rolls the whole change back.
      if ((changes.video_key !== undefined || changes.is_preview !== undefined) && hasPublicVideoWhilePaid(updated)) {
        return yield* new PublicVideoOnPaidLesson({ video_key: updated.video_key! })
      }
      return updated
    }).pipe(sql.withTransaction, Effect.catchTags({
      SqlError: writeFailed("update lesson", changes.video_key),
      SchemaError: (error) => Effect.fail(persistenceError("update lesson")(error))
    }))
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

  const usingVideo = Effect.fn("LessonRepo.usingVideo")(function*(key: string) {
    return yield* sql`
      SELECT course_id, id AS lesson_id FROM lessons WHERE video_key = ${key} ORDER BY course_id, id
    `.pipe(Effect.flatMap(decodeUsers), Effect.mapError(persistenceError("find lessons using a video")))
  }, bounded(timeout, "find lessons using a video"))

  const listForViewer = Effect.fn("LessonRepo.listForViewer")(function*(courseId: CourseId, unlocked: boolean) {
    return yield* viewerLessons(sql, courseId, unlocked).pipe(
      Effect.flatMap(decodeViewerLessons),
      Effect.mapError(persistenceError("list lessons for a viewer"))
    )
  }, bounded(timeout, "list lessons for a viewer"))

  return LessonRepo.of({ insert, list, findById, update, delete: delete_, usingVideo, listForViewer })
})

/** `LessonRepo` over the `SqlClient` in context. */
export const layer: Layer.Layer<LessonRepo, never, SqlClient.SqlClient> = Layer.effect(LessonRepo, make())
