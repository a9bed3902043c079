/**
 * The progress repository port: where learners' progress is stored. Adapters (PostgreSQL,
 * PGlite, the in-memory layer here) pass `progressRepoSuite` in `@coursekit/core/testing`.
 *
 * @since 0.3.0
 */
import { Context, DateTime, Effect, Layer, Ref, Semaphore } from "effect"
import { type CourseId, CourseNotFound, type CourseRecord } from "../catalogue/Course.ts"
import { CourseRepo } from "../catalogue/CourseRepo.ts"
import { isVisibleAt } from "../catalogue/Publishing.ts"
import { accessAt, type LessonId, type LessonRecord } from "../lessons/Lesson.ts"
import { LessonRepo } from "../lessons/LessonRepo.ts"
import { PurchaseRepo } from "../lessons/PurchaseRepo.ts"
import type { PersistenceError } from "../shared/PersistenceError.ts"
import type { UserId } from "../shared/Viewer.ts"
import {
  type CourseCompletion,
  type CourseProgress,
  type CourseProgressLesson,
  type Learner,
  type LessonProgress,
  LessonLocked,
  type ProgressUpdate,
  UnknownLesson
} from "./Progress.ts"

/** What a progress write answers: the lesson's progress, and the course's completion when this write completed it. */
export interface ProgressWritten {
  readonly progress: LessonProgress
  readonly completed: CourseCompletion | undefined
}

/** A course the learner bought, with their progress, as the store reads it (the course as a row). */
export interface LearnerCourseRow {
  readonly course: CourseRecord
  readonly purchased_at: DateTime.Utc
  readonly lessons_total: number
  readonly lessons_completed: number
  readonly completed_at: DateTime.Utc | null
  readonly last_activity_at: DateTime.Utc
}

/** Where a page of the learner's courses starts: after this activity instant and course id (newest first). */
export interface LearnerCoursesAfter {
  readonly last_activity_at: DateTime.Utc
  readonly course_id: CourseId
}

/**
 * Stores progress.
 *
 * - `record(user, lesson, update)` writes the lesson's progress when the lesson is visible
 *   now (it and its course, by the store's clock; else `UnknownLesson`) and open to the
 *   user: a preview, or a lesson of a course they bought that drip has released (else
 *   `LessonLocked`, with `available_at` when drip will release it). `completed: true`
 *   keeps the first completion's instant (store clock) on repeats, `false` clears it;
 *   `position_seconds` replaces the position; absent fields stay. In the same step, the
 *   course's last activity moves, and when every lesson visible now is completed the
 *   course's `completed_at` is set, once: the answer's `completed` names that completion
 *   only to the write that made it (of two concurrent writes completing the last two
 *   lessons, exactly one). It is never unset.
 * - `courseProgress(user, course)` reads the course visible now (else `CourseNotFound`):
 *   its visible lessons in outline order with the user's progress and, for a buyer, drip's
 *   `available_at`; `next_lesson_id` is the first open lesson not completed.
 * - `learnerCourses(user, after, limit)` pages the courses the user bought (visible now),
 *   most recent activity first (`last_activity_at`: the last progress, else the purchase),
 *   then course id descending. A revoked purchase leaves the list; its progress stays.
 * - `learners(course, after, limit)` pages a course's buyers by user id (after `after`);
 *   `CourseNotFound` for a course that does not exist.
 * - Deleting a lesson or course deletes its progress.
 */
export class ProgressRepo extends Context.Service<ProgressRepo, {
  record(userId: UserId, lessonId: LessonId, update: ProgressUpdate): Effect.Effect<ProgressWritten, UnknownLesson | LessonLocked | PersistenceError>
  courseProgress(userId: UserId, courseId: CourseId): Effect.Effect<CourseProgress, CourseNotFound | PersistenceError>
  learnerCourses(userId: UserId, after: LearnerCoursesAfter | undefined, limit: number): Effect.Effect<ReadonlyArray<LearnerCourseRow>, PersistenceError>
  learners(courseId: CourseId, after: UserId | undefined, limit: number): Effect.Effect<ReadonlyArray<Learner>, CourseNotFound | PersistenceError>
}>()("@coursekit/core/ProgressRepo") {
  /** In memory, over the course, lesson and purchase repositories in context: for tests and trials. */
  static readonly layerMemory: Layer.Layer<ProgressRepo, never, CourseRepo | LessonRepo | PurchaseRepo> = Layer.effect(
    ProgressRepo,
    Effect.gen(function*() {
      const courses = yield* CourseRepo
      const lessons = yield* LessonRepo
      const purchases = yield* PurchaseRepo
      type Stored = { readonly course_id: CourseId; readonly completed_at: DateTime.Utc | null; readonly position_seconds: number; readonly updated_at: DateTime.Utc }
      type CourseState = { readonly completed_at: DateTime.Utc | null; readonly last_activity_at: DateTime.Utc }
      type State = { readonly lessons: ReadonlyMap<string, Stored>; readonly courses: ReadonlyMap<string, CourseState> }
      const state = yield* Ref.make<State>({ lessons: new Map(), courses: new Map() })
      const key = (userId: UserId, id: number) => `${userId}\u0000${id}`
      // One writer at a time: the read of the other lessons and the completion are one step.
      const lock = yield* Semaphore.make(1)

      /** The course visible now and its lessons visible now, in outline order; undefined when hidden. */
      const visibleCourse = (courseId: CourseId, now: DateTime.Utc) =>
        Effect.gen(function*() {
          const course = yield* courses.findById(courseId).pipe(Effect.catchTag("CourseNotFound", () => Effect.succeed(undefined)))
          if (course === undefined || !isVisibleAt(course, now)) return undefined
          const all = yield* lessons.list(courseId)
          return { course, lessons: all.filter((lesson) => isVisibleAt(lesson, now)) }
        })
      const findLesson = (lessonId: LessonId) =>
        Effect.gen(function*() {
          // The memory store has no index by lesson: the courses' lists are searched.
          const { rows } = yield* courses.list({ cursor: undefined, limit: Number.MAX_SAFE_INTEGER, audience: { _tag: "Admin", status: undefined } })
          for (const row of rows) {
            const found = (yield* lessons.list(row.id)).find((lesson) => lesson.id === lessonId)
            if (found !== undefined) return found
          }
          return undefined
        })

      const record = Effect.fn("ProgressRepo.record")(function*(userId: UserId, lessonId: LessonId, update: ProgressUpdate) {
        return yield* lock.withPermits(1)(Effect.gen(function*() {
          const now = yield* DateTime.now
          const lesson = yield* findLesson(lessonId)
          const visible = lesson === undefined ? undefined : yield* visibleCourse(lesson.course_id, now)
          if (lesson === undefined || visible === undefined || !visible.lessons.some((other) => other.id === lessonId)) {
            return yield* new UnknownLesson({ lesson_id: lessonId })
          }
          const purchase = yield* purchases.find(lesson.course_id, userId)
          const access = accessAt(lesson, purchase?.purchased_at, now)
          if (!access.open) return yield* new LessonLocked({ lesson_id: lessonId, available_at: access.availableAt })
          return yield* Ref.modify(state, (current): [ProgressWritten, State] => {
            const before = current.lessons.get(key(userId, lessonId))
            const completed_at = update.completed === undefined ? before?.completed_at ?? null : update.completed ? before?.completed_at ?? now : null
            const stored: Stored = {
              course_id: lesson.course_id,
              completed_at,
              position_seconds: update.position_seconds ?? before?.position_seconds ?? 0,
              updated_at: now
            }
            const lessonStates = new Map(current.lessons).set(key(userId, lessonId), stored)
            const courseBefore = current.courses.get(key(userId, lesson.course_id))
            const allDone = visible.lessons.every((other) => lessonStates.get(key(userId, other.id))?.completed_at != null)
            const newly = courseBefore?.completed_at == null && allDone
            const courseState: CourseState = { completed_at: newly ? now : courseBefore?.completed_at ?? null, last_activity_at: now }
            const written: ProgressWritten = {
              progress: { ...stored, lesson_id: lessonId, completed: completed_at !== null },
              completed: newly ? { user_id: userId, course_id: lesson.course_id, completed_at: now } : undefined
            }
            return [written, { lessons: lessonStates, courses: new Map(current.courses).set(key(userId, lesson.course_id), courseState) }]
          })
        }))
      })

      /** The user's totals over a course's visible lessons. */
      const totals = (userId: UserId, visibleLessons: ReadonlyArray<LessonRecord>, current: { lessons: ReadonlyMap<string, Stored> }) => {
        const completed = visibleLessons.filter((lesson) => current.lessons.get(key(userId, lesson.id))?.completed_at != null).length
        return { lessons_total: visibleLessons.length, lessons_completed: completed }
      }

      const courseProgress = Effect.fn("ProgressRepo.courseProgress")(function*(userId: UserId, courseId: CourseId) {
        const now = yield* DateTime.now
        const visible = yield* visibleCourse(courseId, now)
        if (visible === undefined) return yield* new CourseNotFound({ id: courseId })
        const purchase = yield* purchases.find(courseId, userId)
        const current = yield* Ref.get(state)
        const rows = visible.lessons.map((lesson): CourseProgressLesson & { readonly open: boolean } => {
          const stored = current.lessons.get(key(userId, lesson.id))
          const { availableAt, open } = accessAt(lesson, purchase?.purchased_at, now)
          return {
            lesson_id: lesson.id,
            completed_at: stored?.completed_at ?? null,
            position_seconds: stored?.position_seconds ?? 0,
            available_at: availableAt,
            open
          }
        })
        const { lessons_total, lessons_completed } = totals(userId, visible.lessons, current)
        const progress: CourseProgress = {
          course_id: courseId,
          purchased: purchase !== undefined,
          lessons_total,
          lessons_completed,
          percent: percentOf(lessons_completed, lessons_total),
          completed_at: current.courses.get(key(userId, courseId))?.completed_at ?? null,
          next_lesson_id: rows.find((row) => row.open && row.completed_at === null)?.lesson_id ?? null,
          lessons: rows.map(({ open: _open, ...row }) => row)
        }
        return progress
      })

      /** Every buyer of a course visible now, with their progress; or of any course for `learners`. */
      const learnerCourses = Effect.fn("ProgressRepo.learnerCourses")(function*(userId: UserId, after: LearnerCoursesAfter | undefined, limit: number) {
        const now = yield* DateTime.now
        const current = yield* Ref.get(state)
        const { rows } = yield* courses.list({ cursor: undefined, limit: Number.MAX_SAFE_INTEGER, audience: { _tag: "Public" } })
        const found: Array<LearnerCourseRow> = []
        for (const row of rows) {
          const purchase = yield* purchases.find(row.id, userId)
          const visible = purchase === undefined ? undefined : yield* visibleCourse(row.id, now)
          if (purchase === undefined || visible === undefined) continue
          const courseState = current.courses.get(key(userId, row.id))
          found.push({
            course: visible.course,
            purchased_at: purchase.purchased_at,
            ...totals(userId, visible.lessons, current),
            completed_at: courseState?.completed_at ?? null,
            last_activity_at: courseState?.last_activity_at ?? purchase.purchased_at
          })
        }
        const newestFirst = (a: LearnerCourseRow | LearnerCoursesAfter & { course: { id: CourseId } }, b: typeof a) =>
          DateTime.toEpochMillis(b.last_activity_at) - DateTime.toEpochMillis(a.last_activity_at) || b.course.id - a.course.id
        found.sort(newestFirst)
        const start = after === undefined
          ? 0
          : found.findIndex((row) => newestFirst(row, { ...after, course: { id: after.course_id } }) > 0)
        return start < 0 ? [] : found.slice(start, start + limit)
      })

      const learners = Effect.fn("ProgressRepo.learners")(function*(courseId: CourseId, after: UserId | undefined, limit: number) {
        const course = yield* courses.findById(courseId)
        const now = yield* DateTime.now
        const visibleLessons = (yield* lessons.list(course.id)).filter((lesson) => isVisibleAt(lesson, now))
        const current = yield* Ref.get(state)
        const buyers = yield* purchases.buyers(courseId)
        return buyers
          .filter((purchase) => after === undefined || purchase.user_id > after)
          .sort((a, b) => (a.user_id < b.user_id ? -1 : a.user_id > b.user_id ? 1 : 0))
          .slice(0, limit)
          .map((purchase): Learner => {
            const { lessons_total, lessons_completed } = totals(purchase.user_id, visibleLessons, current)
            const courseState = current.courses.get(key(purchase.user_id, courseId))
            return {
              user_id: purchase.user_id,
              purchased_at: purchase.purchased_at,
              lessons_completed,
              percent: percentOf(lessons_completed, lessons_total),
              completed_at: courseState?.completed_at ?? null,
              last_activity_at: courseState?.last_activity_at ?? purchase.purchased_at
            }
          })
      })

      return ProgressRepo.of({ record, courseProgress, learnerCourses, learners })
    })
  )
}

/** Completed over total as a whole percent, rounded down (100 only when all are done); 0 without lessons. */
export const percentOf = (completed: number, total: number): number => total === 0 ? 0 : Math.floor((completed * 100) / total)
