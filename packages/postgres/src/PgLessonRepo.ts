/**
 * `LessonRepo` on PostgreSQL (and PGlite) through `effect/sql`.
 *
 * Order: every write to a course's lessons or sections runs in a transaction that first
 * locks the course's row (`FOR NO KEY UPDATE`), so writes to one course queue while other
 * courses go on; the shift of the other lessons and the write itself are then one
 * consistent step. The position constraints (per section, `section_slot` 0 for the loose
 * lessons, and per course for sections) are deferred to commit, so a shift is one
 * statement, and they still guard the order.
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
  LessonSnapshot,
  lessonSnapshotFields,
  lessonSnapshotOf,
  LessonVideoUse,
  type Edit,
  meets,
  type RevisionId,
  RevisionNotFound,
  type RevisionPageRequest,
  RevisionPolicies,
  revisionWriteOf,
  StaleRecord,
  systemEdit,
  type NewLesson,
  PublicVideoOnPaidLesson,
  RecordVariants,
  SectionChanges,
  type SectionId,
  SectionInsert,
  SectionNotEmpty,
  SectionNotFound,
  SectionRecord,
  UnknownSection,
  VideoNotFound,
  ViewerLesson
} from "@coursekit/core"
import { DateTime, Effect, Layer, Schema } from "effect"
import { SqlClient, type SqlError, type Statement } from "effect/sql"
import { visibleNow } from "./PgCourseRepo.ts"
import { bounded, PgDeadline } from "./PgDeadline.ts"
import { PgSchema, type PgTables, tablesOf } from "./PgSchema.ts"
import { failStore, storeFailures, violatesForeignKey } from "./PgErrors.ts"
import { revisionPage, type RevisionTable, revisionWithSnapshot, writeRevision } from "./PgRevisions.ts"

const lessonRevisions: RevisionTable = { table: "lesson_revisions", owner: "lesson_id", fields: lessonSnapshotFields }

/** Rows decoded through the record's schemas: a row that does not decode is a store failure. */
const decodeRecords = Schema.decodeUnknownEffect(Schema.Array(LessonRecord))
const decodeSections = Schema.decodeUnknownEffect(Schema.Array(SectionRecord))
const sectionFields = RecordVariants.pick(SectionInsert)
const sectionChanges = RecordVariants.pick(SectionChanges)
// Only the shapes' keys are written: TypeScript lets objects with extra properties through.
const insertFields = RecordVariants.pick(LessonInsert)
const changedFields = RecordVariants.pick(LessonChanges)
const encodeInsert = Schema.encodeSync(LessonInsert)
const encodeChanges = Schema.encodeSync(LessonChanges)
const decodeViewerLessons = Schema.decodeUnknownEffect(Schema.Array(ViewerLesson))
const decodeVideoUses = Schema.decodeUnknownEffect(Schema.Array(LessonVideoUse))

/**
 * When a lesson opens for a buyer who bought at `purchasedAt` (an SQL instant): drip's
 * `available_after_days` later, or at once. By the database's clock, with nothing to run.
 */
export const opensAt = (sql: SqlClient.SqlClient, purchasedAt: Statement.Fragment) =>
  sql`(${purchasedAt} + coalesce(available_after_days, 0) * interval '1 day')`

/** Whether a lesson is open to a viewer who bought at `purchasedAt` (null: no purchase): a preview, or released. */
export const openTo = (sql: SqlClient.SqlClient, purchasedAt: Statement.Fragment) =>
  sql`(is_preview OR (${purchasedAt} IS NOT NULL AND ${opensAt(sql, purchasedAt)} <= now()))`

/** When a bought lesson its drip has not released yet opens; else null. */
export const availableAt = (sql: SqlClient.SqlClient, purchasedAt: Statement.Fragment) =>
  sql`CASE WHEN NOT is_preview AND ${opensAt(sql, purchasedAt)} > now() THEN ${opensAt(sql, purchasedAt)} END`

/**
 * The public course's lessons: those visible now, by the database's clock (drafts and
 * scheduled lessons are not read). `content_html` and `video_key` are selected only for
 * lessons open to the viewer ({@link openTo}: previews, and for a buyer those drip has
 * released): the statement itself never reads a locked or upcoming body.
 */
export const viewerLessons = (sql: SqlClient.SqlClient, t: PgTables, courseId: CourseId, purchasedAt: DateTime.Utc | null) => {
  if (purchasedAt === null) {
    return sql`
      SELECT id, section_id, ${sectionOf(sql, t)}, title, position, is_preview,
             CASE WHEN is_preview THEN content_html END AS content_html,
             CASE WHEN is_preview THEN video_key END AS video_key,
             NULL::timestamptz AS available_at
      FROM ${t.lessons} WHERE course_id = ${courseId} AND ${visibleNow(sql)} ${outlineOrder(sql, t)}`
  }
  const bought = sql`${DateTime.toDateUtc(purchasedAt)}::timestamptz`
  return sql`
    SELECT id, section_id, ${sectionOf(sql, t)}, title, position, is_preview,
           CASE WHEN ${openTo(sql, bought)} THEN content_html END AS content_html,
           CASE WHEN ${openTo(sql, bought)} THEN video_key END AS video_key,
           ${availableAt(sql, bought)} AS available_at
    FROM ${t.lessons} WHERE course_id = ${courseId} AND ${visibleNow(sql)} ${outlineOrder(sql, t)}`
}

// The lesson's section, in the same statement (one snapshot with the lessons).
const sectionOf = (sql: SqlClient.SqlClient, t: PgTables) =>
  sql`(SELECT s.title FROM ${t.sections} s WHERE s.id = lessons.section_id) AS section_title,
      (SELECT s.position FROM ${t.sections} s WHERE s.id = lessons.section_id) AS section_position`

/**
 * A course's outline order of the lessons row `alias`: the loose lessons, then each
 * section's in the sections' order. A subquery, not a join: the lessons' scan then stays
 * the only node reading their columns, so the plan shows that a locked body is never read
 * (ViewerQuerySuite).
 */
export const outlineKey = (sql: SqlClient.SqlClient, t: PgTables, alias = "lessons") =>
  sql`coalesce((SELECT s.position FROM ${t.sections} s WHERE s.id = ${sql(alias)}.section_id), 0), ${sql(alias)}.position`
const outlineOrder = (sql: SqlClient.SqlClient, t: PgTables) => sql`ORDER BY ${outlineKey(sql, t)}`

/** The PostgreSQL lesson repository; needs an `effect/sql` `SqlClient`. */
export const make = () => Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const timeout = yield* PgDeadline
  const policy = yield* RevisionPolicies
  const t = tablesOf(sql, yield* PgSchema)
  /** Records in the caller's transaction the write that left `lesson` as it is. */
  const revise = (lesson: LessonRecord, edit: Edit) =>
    writeRevision(sql, t, lessonRevisions, lesson.id, lessonSnapshotOf(lesson), revisionWriteOf(lesson.version, edit), policy)

  /** Locks the course's row for this transaction; false when there is no such course. */
  const lockCourse = (courseId: CourseId) =>
    Effect.map(sql`SELECT id FROM ${t.courses} WHERE id = ${courseId} FOR NO KEY UPDATE`, (rows) => rows.length > 0)
  /** The number of lessons in a group: a section's, or the loose lessons (null). */
  const countOf = (courseId: CourseId, sectionId: number | null) =>
    Effect.map(
      sql<{ n: number }>`SELECT count(*)::integer AS n FROM ${t.lessons} WHERE course_id = ${courseId} AND section_slot = ${sectionId ?? 0}`,
      (rows) => rows[0]!.n
    )
  /** Whether `sectionId` (null: the loose lessons) is a group of the course. */
  const groupExists = (courseId: CourseId, sectionId: number | null) =>
    sectionId === null
      ? Effect.succeed(true)
      : Effect.map(sql`SELECT 1 FROM ${t.sections} WHERE id = ${sectionId} AND course_id = ${courseId}`, (rows) => rows.length > 0)
  const clamp = (position: number | undefined, last: number) =>
    position === undefined ? last : Math.min(Math.max(1, position), last)
  /** A write's SQL failure: a video deleted meanwhile is `VideoNotFound`, the rest a store failure. */
  const writeFailed = (operation: string, videoKey: string | null | undefined) => (error: SqlError.SqlError) =>
    violatesForeignKey(error, "lessons_video_key_fkey") && typeof videoKey === "string"
      ? Effect.fail(new VideoNotFound({ video_key: videoKey }))
      : failStore(operation, error)

  const insert = Effect.fn("LessonRepo.insert")(function*(courseId: CourseId, lesson: NewLesson, edit: Edit = systemEdit) {
    if (hasPublicVideoWhilePaid(lesson)) return yield* new PublicVideoOnPaidLesson({ video_key: lesson.video_key! })
    return yield* Effect.gen(function*() {
      if (!(yield* lockCourse(courseId))) return yield* new CourseNotFound({ id: courseId })
      const group = lesson.section_id
      if (!(yield* groupExists(courseId, group))) return yield* new UnknownSection({ course_id: courseId, section_id: group! })
      const position = clamp(lesson.position, (yield* countOf(courseId, group)) + 1)
      yield* sql`
        UPDATE ${t.lessons} SET position = position + 1
        WHERE course_id = ${courseId} AND section_slot = ${group ?? 0} AND position >= ${position}`
      const rows = yield* decodeRecords(yield* sql`
        INSERT INTO ${t.lessons} ${sql.insert({ ...encodeInsert(insertFields(lesson)), course_id: courseId, position })}
        RETURNING *
      `)
      yield* revise(rows[0]!, edit)
      return rows[0]!
    }).pipe(sql.withTransaction, Effect.catchTags({
      SqlError: writeFailed("insert lesson", lesson.video_key),
      SchemaError: (error) => failStore("insert lesson", error)
    }))
  }, bounded(timeout, "insert lesson"))

  const list = Effect.fn("LessonRepo.list")(function*(courseId: CourseId) {
    return yield* sql`SELECT * FROM ${t.lessons} WHERE course_id = ${courseId} ${outlineOrder(sql, t)}`.pipe(
      Effect.flatMap(decodeRecords),
      storeFailures("list lessons")
    )
  }, bounded(timeout, "list lessons"))

  const findById = Effect.fn("LessonRepo.findById")(function*(courseId: CourseId, id: LessonId) {
    const rows = yield* sql`SELECT * FROM ${t.lessons} WHERE id = ${id} AND course_id = ${courseId}`.pipe(
      Effect.flatMap(decodeRecords),
      storeFailures("find lesson")
    )
    if (rows.length === 0) return yield* new LessonNotFound({ course_id: courseId, id })
    return rows[0]!
  }, bounded(timeout, "find lesson"))

  const update = Effect.fn("LessonRepo.update")(function*(courseId: CourseId, id: LessonId, changes: LessonChanges, edit: Edit = systemEdit) {
    const revised = lessonSnapshotFields.some((field) => changes[field] !== undefined)
    return yield* Effect.gen(function*() {
      if (!(yield* lockCourse(courseId))) return yield* new LessonNotFound({ course_id: courseId, id })
      // The place and version only: the 20 KB body is read again only for a refusal.
      const current = yield* sql<{ position: number; section_id: SectionId | null; version: number }>`
        SELECT position, section_id, version FROM ${t.lessons} WHERE id = ${id} AND course_id = ${courseId}`
      if (current.length === 0) return yield* new LessonNotFound({ course_id: courseId, id })
      // Under the course's lock: no write to this lesson comes between the check and the write.
      if (!meets(edit.ifMatch, current[0]!.version)) {
        const stored = yield* decodeRecords(yield* sql`SELECT * FROM ${t.lessons} WHERE id = ${id}`)
        return yield* new StaleRecord({ current: stored[0]! })
      }
      const { position: from, section_id: source } = current[0]!
      const target = changes.section_id === undefined ? source : changes.section_id
      if (!(yield* groupExists(courseId, target))) return yield* new UnknownSection({ course_id: courseId, section_id: target! })
      let to: number
      if (target === source) {
        to = changes.position === undefined ? from : clamp(changes.position, yield* countOf(courseId, source))
        if (to > from) {
          yield* sql`
            UPDATE ${t.lessons} SET position = position - 1
            WHERE course_id = ${courseId} AND section_slot = ${source ?? 0} AND position > ${from} AND position <= ${to}`
        } else if (to < from) {
          yield* sql`
            UPDATE ${t.lessons} SET position = position + 1
            WHERE course_id = ${courseId} AND section_slot = ${source ?? 0} AND position >= ${to} AND position < ${from}`
        }
      } else {
        // Out of its group, closing the gap, and into the other at `position` (absent: last).
        yield* sql`
          UPDATE ${t.lessons} SET position = position - 1
          WHERE course_id = ${courseId} AND section_slot = ${source ?? 0} AND position > ${from}`
        to = clamp(changes.position, (yield* countOf(courseId, target)) + 1)
        yield* sql`
          UPDATE ${t.lessons} SET position = position + 1
          WHERE course_id = ${courseId} AND section_slot = ${target ?? 0} AND position >= ${to}`
      }
      const { position: _, ...fields } = encodeChanges(RecordVariants.definedOnly(changedFields(changes)))
      const rows = yield* decodeRecords(yield* sql`
        UPDATE ${t.lessons} SET ${sql.update({ ...fields, section_id: target, position: to })}, updated_at = now()
        WHERE id = ${id}
        RETURNING *
      `)
      const updated = rows[0]!
      // Checked on the written row under the course's lock; failing rolls the whole change back.
      if ((changes.video_key !== undefined || changes.is_preview !== undefined) && hasPublicVideoWhilePaid(updated)) {
        return yield* new PublicVideoOnPaidLesson({ video_key: updated.video_key! })
      }
      if (revised) yield* revise(updated, edit)
      return updated
    }).pipe(sql.withTransaction, Effect.catchTags({
      SqlError: writeFailed("update lesson", changes.video_key),
      SchemaError: (error) => failStore("update lesson", error)
    }))
  }, bounded(timeout, "update lesson"))

  const delete_ = Effect.fn("LessonRepo.delete")(function*(courseId: CourseId, id: LessonId, edit: Edit = systemEdit) {
    return yield* Effect.gen(function*() {
      if (!(yield* lockCourse(courseId))) return yield* new LessonNotFound({ course_id: courseId, id })
      if (edit.ifMatch !== undefined) {
        const current = yield* decodeRecords(yield* sql`SELECT * FROM ${t.lessons} WHERE id = ${id} AND course_id = ${courseId}`)
        if (current.length > 0 && !meets(edit.ifMatch, current[0]!.version)) return yield* new StaleRecord({ current: current[0]! })
      }
      const deleted = yield* sql<{ position: number; section_slot: number }>`
        DELETE FROM ${t.lessons} WHERE id = ${id} AND course_id = ${courseId} RETURNING position, section_slot
      `
      if (deleted.length === 0) return yield* new LessonNotFound({ course_id: courseId, id })
      const { position, section_slot } = deleted[0]!
      yield* sql`
        UPDATE ${t.lessons} SET position = position - 1
        WHERE course_id = ${courseId} AND section_slot = ${section_slot} AND position > ${position}`
    }).pipe(sql.withTransaction, storeFailures("delete lesson"))
  }, bounded(timeout, "delete lesson"))

  const lessonExists = (courseId: CourseId, id: LessonId) =>
    Effect.flatMap(
      sql`SELECT 1 FROM ${t.lessons} WHERE id = ${id} AND course_id = ${courseId}`,
      (rows) => rows.length === 0 ? Effect.fail(new LessonNotFound({ course_id: courseId, id })) : Effect.void
    )

  const revisions = Effect.fn("LessonRepo.revisions")(function*(courseId: CourseId, id: LessonId, request: RevisionPageRequest) {
    return yield* Effect.andThen(lessonExists(courseId, id), revisionPage(sql, t, lessonRevisions, id, request)).pipe(
      storeFailures("list lesson revisions")
    )
  }, bounded(timeout, "list lesson revisions"))

  const revision = Effect.fn("LessonRepo.revision")(function*(courseId: CourseId, id: LessonId, revisionId: RevisionId) {
    const rows = yield* Effect.andThen(lessonExists(courseId, id), revisionWithSnapshot(sql, t, lessonRevisions, id, revisionId, LessonSnapshot)).pipe(
      storeFailures("read a lesson revision")
    )
    if (rows.length === 0) return yield* new RevisionNotFound({ revision_id: revisionId })
    return rows[0]!
  }, bounded(timeout, "read a lesson revision"))

  // One statement for a page of keys, on the partial index of lessons by video_key.
  const usingVideos = Effect.fn("LessonRepo.usingVideos")(function*(keys: ReadonlyArray<string>) {
    if (keys.length === 0) return []
    return yield* sql`
      SELECT video_key, course_id, id AS lesson_id FROM ${t.lessons} WHERE ${sql.in("video_key", keys)} ORDER BY course_id, id
    `.pipe(Effect.flatMap(decodeVideoUses), storeFailures("find lessons using videos"))
  }, bounded(timeout, "find lessons using videos"))

  // A span without `Effect.fn`'s call-site capture: this read is the public course page's.
  const listForViewer = Effect.fnUntraced(function*(courseId: CourseId, purchasedAt: DateTime.Utc | null) {
    return yield* viewerLessons(sql, t, courseId, purchasedAt).pipe(
      Effect.flatMap(decodeViewerLessons),
      storeFailures("list lessons for a viewer")
    )
  }, bounded(timeout, "list lessons for a viewer"), Effect.withSpan("LessonRepo.listForViewer"))

  const insertSection = Effect.fn("LessonRepo.insertSection")(function*(courseId: CourseId, section: SectionInsert) {
    return yield* Effect.gen(function*() {
      if (!(yield* lockCourse(courseId))) return yield* new CourseNotFound({ id: courseId })
      const count = yield* sql<{ n: number }>`SELECT count(*)::integer AS n FROM ${t.sections} WHERE course_id = ${courseId}`
      const position = clamp(section.position, count[0]!.n + 1)
      yield* sql`UPDATE ${t.sections} SET position = position + 1 WHERE course_id = ${courseId} AND position >= ${position}`
      const rows = yield* decodeSections(yield* sql`
        INSERT INTO ${t.sections} ${sql.insert({ ...sectionFields(section), course_id: courseId, position })}
        RETURNING *
      `)
      return rows[0]!
    }).pipe(sql.withTransaction, storeFailures("insert section"))
  }, bounded(timeout, "insert section"))

  const listSections = Effect.fn("LessonRepo.listSections")(function*(courseId: CourseId) {
    return yield* sql`SELECT * FROM ${t.sections} WHERE course_id = ${courseId} ORDER BY position`.pipe(
      Effect.flatMap(decodeSections),
      storeFailures("list sections")
    )
  }, bounded(timeout, "list sections"))

  const updateSection = Effect.fn("LessonRepo.updateSection")(function*(
    courseId: CourseId,
    id: SectionId,
    changes: SectionChanges,
    edit: Edit = systemEdit
  ) {
    return yield* Effect.gen(function*() {
      if (!(yield* lockCourse(courseId))) return yield* new SectionNotFound({ course_id: courseId, id })
      const current = yield* decodeSections(yield* sql`SELECT * FROM ${t.sections} WHERE id = ${id} AND course_id = ${courseId}`)
      if (current.length === 0) return yield* new SectionNotFound({ course_id: courseId, id })
      if (!meets(edit.ifMatch, current[0]!.version)) return yield* new StaleRecord({ current: current[0]! })
      const from = current[0]!.position
      const count = yield* sql<{ n: number }>`SELECT count(*)::integer AS n FROM ${t.sections} WHERE course_id = ${courseId}`
      const to = changes.position === undefined ? from : clamp(changes.position, count[0]!.n)
      if (to > from) {
        yield* sql`UPDATE ${t.sections} SET position = position - 1 WHERE course_id = ${courseId} AND position > ${from} AND position <= ${to}`
      } else if (to < from) {
        yield* sql`UPDATE ${t.sections} SET position = position + 1 WHERE course_id = ${courseId} AND position >= ${to} AND position < ${from}`
      }
      const { position: _, ...fields } = RecordVariants.definedOnly(sectionChanges(changes))
      const rows = yield* decodeSections(yield* sql`
        UPDATE ${t.sections} SET ${sql.update({ ...fields, position: to })}, updated_at = now()
        WHERE id = ${id}
        RETURNING *
      `)
      return rows[0]!
    }).pipe(sql.withTransaction, storeFailures("update section"))
  }, bounded(timeout, "update section"))

  const deleteSection = Effect.fn("LessonRepo.deleteSection")(function*(
    courseId: CourseId,
    id: SectionId,
    detachLessons: boolean,
    edit: Edit = systemEdit
  ) {
    return yield* Effect.gen(function*() {
      if (!(yield* lockCourse(courseId))) return yield* new SectionNotFound({ course_id: courseId, id })
      const section = yield* decodeSections(yield* sql`SELECT * FROM ${t.sections} WHERE id = ${id} AND course_id = ${courseId}`)
      if (section.length === 0) return yield* new SectionNotFound({ course_id: courseId, id })
      if (!meets(edit.ifMatch, section[0]!.version)) return yield* new StaleRecord({ current: section[0]! })
      const lessons = yield* countOf(courseId, id)
      if (lessons > 0 && !detachLessons) return yield* new SectionNotEmpty({ course_id: courseId, id, lessons })
      // Its lessons (positions 1…k) follow the loose lessons (1…n): n + 1…n + k, in order.
      const loose = yield* countOf(courseId, null)
      const detached = yield* decodeRecords(yield* sql`
        UPDATE ${t.lessons} SET section_id = NULL, position = position + ${loose} WHERE course_id = ${courseId} AND section_id = ${id}
        RETURNING *`)
      // Each lesson's section changed: a revision each, in this transaction.
      for (const lesson of detached) yield* revise(lesson, edit)
      yield* sql`DELETE FROM ${t.sections} WHERE id = ${id}`
      yield* sql`UPDATE ${t.sections} SET position = position - 1 WHERE course_id = ${courseId} AND position > ${section[0]!.position}`
    }).pipe(sql.withTransaction, storeFailures("delete section"))
  }, bounded(timeout, "delete section"))

  return LessonRepo.of({
    insert,
    list,
    findById,
    update,
    delete: delete_,
    revisions,
    revision,
    usingVideos,
    listForViewer,
    insertSection,
    listSections,
    updateSection,
    deleteSection
  })
})

/** `LessonRepo` over the `SqlClient` in context. */
export const layer: Layer.Layer<LessonRepo, never, SqlClient.SqlClient> = Layer.effect(LessonRepo, make())
