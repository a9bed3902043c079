/**
 * `ProgressRepo` on PostgreSQL (and PGlite). A progress write is one statement: the access
 * check (the lesson and its course visible now, the purchase and drip, by the database's
 * clock), then, only when the lesson is open, the course's progress row upserted first — its
 * lock queues the learner's writes to one course — and then the lesson's. A completion runs
 * that statement in a transaction with one more: the course's completion if every visible
 * lesson is done, which, holding the course's row, sees the learner's other completions
 * committed, so one write completes the course. Each read is one statement.
 *
 * @since 0.3.0
 */
import {
  type CourseId,
  CourseNotFound,
  CourseProgress,
  CourseRecord,
  type LearnerCoursesAfter,
  type LearnerCourseRow,
  Learner,
  LessonId,
  LessonLocked,
  LessonProgress,
  percentOf,
  ProgressRepo,
  type ProgressUpdate,
  type ProgressWritten,
  UnknownLesson,
  type UserId
} from "@coursekit/core"
import { DateTime, Effect, Layer, Schema } from "effect"
import { SqlClient, type Statement } from "effect/sql"
import { bounded, PgDeadline } from "./PgDeadline.ts"
import { storeFailures } from "./PgErrors.ts"
import { visibleNow } from "./PgCourseRepo.ts"
import { availableAt, openTo, outlineKey } from "./PgLessonRepo.ts"
import { PgSchema, tablesOf } from "./PgSchema.ts"

const instant = Schema.NullOr(Schema.DateTimeUtcFromDate)
// The write's row: the access check's columns, then (written only when open) the lesson's progress.
const decodeAccess = Schema.decodeUnknownEffect(Schema.Array(Schema.Struct({
  open: Schema.Boolean,
  opens_at: instant,
  course_completed_at: instant
})))
const decodeProgress = Schema.decodeUnknownEffect(LessonProgress.mapFields((fields) => ({
  ...fields,
  completed_at: instant,
  updated_at: Schema.DateTimeUtcFromDate
})))
const decodeCompleted = Schema.decodeUnknownEffect(Schema.Array(Schema.Struct({ completed_at: Schema.DateTimeUtcFromDate })))
const decodeOutline = Schema.decodeUnknownEffect(Schema.Array(Schema.Struct({
  purchased: Schema.Boolean,
  course_completed_at: instant,
  lesson_id: Schema.NullOr(LessonId),
  completed_at: instant,
  position_seconds: Schema.Number,
  open: Schema.NullOr(Schema.Boolean),
  available_at: instant
})))
const decodeLearnerCourses = Schema.decodeUnknownEffect(Schema.Array(CourseRecord.mapFields((fields) => ({
  ...fields,
  purchased_at: Schema.DateTimeUtcFromDate,
  course_completed_at: instant,
  last_activity_at: Schema.DateTimeUtcFromDate,
  lessons_total: Schema.Int,
  lessons_completed: Schema.Int
}))))
const decodeLearners = Schema.decodeUnknownEffect(Schema.Array(Learner.mapFields((fields) => ({
  ...fields,
  purchased_at: Schema.DateTimeUtcFromDate,
  completed_at: instant,
  last_activity_at: Schema.DateTimeUtcFromDate,
  lessons_total: Schema.Int,
  percent: Schema.optionalKey(Schema.Int)
}))))

/** The PostgreSQL progress repository; needs an `effect/sql` `SqlClient`. */
export const make = () => Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const timeout = yield* PgDeadline
  const t = tablesOf(sql, yield* PgSchema)
  const visible = (alias: string) => visibleNow(sql, alias)
  // Drip by the public course's own rules, for the lesson `l` and the purchase `p`
  // (`is_preview` and `available_after_days` are the lessons' columns alone).
  const bought = sql`p.purchased_at`
  const open = openTo(sql, bought)
  const upcomingAt = availableAt(sql, bought)
  const outlineOrder = outlineKey(sql, t, "l")
  /**
   * The access check and the writes in one statement: the course's progress row first (its
   * lock queues the learner's writes to one course), then the lesson's; nothing is written
   * unless the lesson is open to the viewer now. No row: no such lesson visible now.
   */
  const write = Effect.fnUntraced(function*(userId: UserId, lessonId: LessonId, completed: boolean | null, position: number | null) {
    // Each value once (the statement's parameters), named in `input`.
    const rows = yield* sql`
      WITH input (user_id, lesson_id, completed, position_seconds) AS (
        VALUES (${userId}::text, ${lessonId}::integer, ${completed}::boolean, ${position}::double precision)
      ), access AS (
        SELECT l.course_id, ${open} AS open, ${upcomingAt} AS opens_at
        FROM input
        JOIN ${t.lessons} l ON l.id = input.lesson_id AND ${visible("l")}
        JOIN ${t.courses} c ON c.id = l.course_id AND ${visible("c")}
        LEFT JOIN ${t.purchases} p ON p.course_id = l.course_id AND p.user_id = input.user_id
      ), course AS (
        INSERT INTO ${t.course_progress} (user_id, course_id)
        SELECT input.user_id, access.course_id FROM input, access WHERE access.open
        ON CONFLICT (user_id, course_id) DO UPDATE SET last_activity_at = now()
        RETURNING course_id, completed_at
      ), lesson AS (
        INSERT INTO ${t.lesson_progress} AS lp (user_id, lesson_id, course_id, completed_at, position_seconds)
        SELECT input.user_id, input.lesson_id, course.course_id, CASE WHEN input.completed THEN now() END, coalesce(input.position_seconds, 0)
        FROM input, course
        ON CONFLICT (user_id, lesson_id) DO UPDATE SET
          completed_at = CASE WHEN (SELECT completed FROM input) IS NULL THEN lp.completed_at
                              WHEN (SELECT completed FROM input) THEN coalesce(lp.completed_at, now()) END,
          position_seconds = coalesce((SELECT position_seconds FROM input), lp.position_seconds),
          updated_at = now()
        RETURNING lesson_id, course_id, completed_at IS NOT NULL AS completed, completed_at, position_seconds, updated_at
      )
      SELECT a.open, a.opens_at, course.completed_at AS course_completed_at,
             lesson.lesson_id, lesson.course_id, lesson.completed, lesson.completed_at, lesson.position_seconds, lesson.updated_at
      FROM access a LEFT JOIN course ON true LEFT JOIN lesson ON true`
    const [access] = yield* decodeAccess(rows)
    if (access === undefined) return yield* new UnknownLesson({ lesson_id: lessonId })
    if (!access.open) return yield* new LessonLocked({ lesson_id: lessonId, available_at: access.opens_at })
    return { progress: yield* decodeProgress(rows[0]), courseCompletedAt: access.course_completed_at }
  })

  // A span without `Effect.fn`'s call-site capture: the hottest write (a save every 10 s per learner).
  const record = Effect.fnUntraced(function*(userId: UserId, lessonId: LessonId, update: ProgressUpdate) {
    const completed = update.completed === undefined ? null : update.completed
    const position = update.position_seconds ?? null
    // Not a completion: one statement, a transaction of its own (no round trips for BEGIN and COMMIT).
    if (completed !== true) {
      const { progress } = yield* write(userId, lessonId, completed, position).pipe(storeFailures("record progress"))
      const written: ProgressWritten = { progress, completed: undefined }
      return written
    }
    return yield* Effect.gen(function*() {
      const { courseCompletedAt, progress } = yield* write(userId, lessonId, completed, position)
      let completion: ProgressWritten["completed"]
      if (courseCompletedAt === null) {
        // Every lesson visible now is completed: the course is, once. The course's row is
        // locked by this transaction, so this statement (a snapshot of its own) sees every
        // other completion of the learner's in this course committed.
        const done = yield* decodeCompleted(yield* sql`
          UPDATE ${t.course_progress} SET completed_at = now()
          WHERE user_id = ${userId} AND course_id = ${progress.course_id} AND completed_at IS NULL
            AND NOT EXISTS (
              SELECT 1 FROM ${t.lessons} l
              WHERE l.course_id = ${progress.course_id} AND ${visible("l")}
                AND NOT EXISTS (
                  SELECT 1 FROM ${t.lesson_progress} done
                  WHERE done.user_id = ${userId} AND done.lesson_id = l.id AND done.completed_at IS NOT NULL))
          RETURNING completed_at`)
        if (done.length > 0) completion = { user_id: userId, course_id: progress.course_id, completed_at: done[0]!.completed_at }
      }
      const written: ProgressWritten = { progress, completed: completion }
      return written
    }).pipe(sql.withTransaction, storeFailures("record progress"))
  }, bounded(timeout, "record progress"), Effect.withSpan("ProgressRepo.record"))

  const courseProgress = Effect.fn("ProgressRepo.courseProgress")(function*(userId: UserId, courseId: CourseId) {
    const rows = yield* sql`
      SELECT p.purchased_at IS NOT NULL AS purchased, cp.completed_at AS course_completed_at,
             l.id AS lesson_id, lp.completed_at, coalesce(lp.position_seconds, 0) AS position_seconds,
             CASE WHEN l.id IS NOT NULL THEN ${open} END AS open, CASE WHEN l.id IS NOT NULL THEN ${upcomingAt} END AS available_at
      FROM ${t.courses} c
      LEFT JOIN ${t.purchases} p ON p.course_id = c.id AND p.user_id = ${userId}
      LEFT JOIN ${t.course_progress} cp ON cp.course_id = c.id AND cp.user_id = ${userId}
      LEFT JOIN ${t.lessons} l ON l.course_id = c.id AND ${visible("l")}
      LEFT JOIN ${t.lesson_progress} lp ON lp.lesson_id = l.id AND lp.user_id = ${userId}
      WHERE c.id = ${courseId} AND ${visible("c")}
      ORDER BY ${outlineOrder}`.pipe(Effect.flatMap(decodeOutline), storeFailures("read course progress"))
    if (rows.length === 0) return yield* new CourseNotFound({ id: courseId })
    const lessons = rows.filter((row) => row.lesson_id !== null)
    const completedCount = lessons.filter((row) => row.completed_at !== null).length
    const progress: CourseProgress = {
      course_id: courseId,
      purchased: rows[0]!.purchased,
      lessons_total: lessons.length,
      lessons_completed: completedCount,
      percent: percentOf(completedCount, lessons.length),
      completed_at: rows[0]!.course_completed_at,
      next_lesson_id: lessons.find((row) => row.open === true && row.completed_at === null)?.lesson_id ?? null,
      lessons: lessons.map((row) => ({
        lesson_id: row.lesson_id!,
        completed_at: row.completed_at,
        position_seconds: row.position_seconds,
        available_at: row.available_at
      }))
    }
    return progress
  }, bounded(timeout, "read course progress"))

  /** The visible lessons of course `course` (an SQL column), and those `user` completed. */
  const lessonCounts = (course: Statement.Fragment, user: Statement.Fragment) => sql`
    (SELECT count(*) FROM ${t.lessons} l WHERE l.course_id = ${course} AND ${visible("l")})::integer AS lessons_total,
    (SELECT count(*) FROM ${t.lessons} l JOIN ${t.lesson_progress} lp ON lp.lesson_id = l.id AND lp.user_id = ${user}
      WHERE l.course_id = ${course} AND ${visible("l")} AND lp.completed_at IS NOT NULL)::integer AS lessons_completed`

  const learnerCourses = Effect.fn("ProgressRepo.learnerCourses")(function*(userId: UserId, after: LearnerCoursesAfter | undefined, limit: number) {
    const activity = sql`coalesce(cp.last_activity_at, p.purchased_at)`
    const rows = yield* sql`
      SELECT c.*, p.purchased_at, cp.completed_at AS course_completed_at, ${activity} AS last_activity_at,
             ${lessonCounts(sql`c.id`, sql`${userId}`)}
      FROM ${t.purchases} p
      JOIN ${t.courses} c ON c.id = p.course_id AND ${visible("c")}
      LEFT JOIN ${t.course_progress} cp ON cp.user_id = p.user_id AND cp.course_id = p.course_id
      WHERE p.user_id = ${userId}
        ${after === undefined ? sql`` : sql`AND (${activity}, c.id) < (${DateTime.toDateUtc(after.last_activity_at)}::timestamptz, ${after.course_id})`}
      ORDER BY ${activity} DESC, c.id DESC
      LIMIT ${limit}`.pipe(Effect.flatMap(decodeLearnerCourses), storeFailures("list the learner's courses"))
    return rows.map(({ purchased_at, course_completed_at, last_activity_at, lessons_total, lessons_completed, ...course }): LearnerCourseRow => ({
      course,
      purchased_at,
      lessons_total,
      lessons_completed,
      completed_at: course_completed_at,
      last_activity_at
    }))
  }, bounded(timeout, "list the learner's courses"))

  const learners = Effect.fn("ProgressRepo.learners")(function*(courseId: CourseId, after: UserId | undefined, limit: number) {
    // One statement: the course's row (none: no such course), with its page of buyers (none: a null row).
    const rows = yield* sql`
      SELECT page.*
      FROM ${t.courses} c
      LEFT JOIN LATERAL (
        SELECT p.user_id, p.purchased_at, cp.completed_at, coalesce(cp.last_activity_at, p.purchased_at) AS last_activity_at,
               ${lessonCounts(sql`c.id`, sql`p.user_id`)}
        FROM ${t.purchases} p
        LEFT JOIN ${t.course_progress} cp ON cp.user_id = p.user_id AND cp.course_id = p.course_id
        WHERE p.course_id = c.id ${after === undefined ? sql`` : sql`AND p.user_id > ${after}`}
        ORDER BY p.user_id
        LIMIT ${limit}
      ) AS page ON true
      WHERE c.id = ${courseId}
      ORDER BY page.user_id`.pipe(storeFailures("list learners"))
    if (rows.length === 0) return yield* new CourseNotFound({ id: courseId })
    const learners = yield* decodeLearners(rows.filter((row) => row.user_id !== null)).pipe(storeFailures("list learners"))
    return learners.map(({ lessons_total, percent: _, ...row }): Learner => ({ ...row, percent: percentOf(row.lessons_completed, lessons_total) }))
  }, bounded(timeout, "list learners"))

  return ProgressRepo.of({ record, courseProgress, learnerCourses, learners })
})

/** `ProgressRepo` over the `SqlClient` in context (the database of `PgCourseRepo`, `PgLessonRepo`, `PgPurchaseRepo`). */
export const layer: Layer.Layer<ProgressRepo, never, SqlClient.SqlClient> = Layer.effect(ProgressRepo, make())
