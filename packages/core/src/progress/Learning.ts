/**
 * The learners' use cases: record a lesson's progress, read a course's progress, page the
 * learner's courses and, for admins, a course's learners. A course's completion is told
 * to the subscribers the host registered ({@link CourseCompletionSubscribers}).
 *
 * @since 0.3.0
 */
import { Cause, Context, Effect, Layer, Option, Schema } from "effect"
import type { CourseId, CourseNotFound } from "../catalogue/Course.ts"
import { listItemsOf } from "../catalogue/Courses.ts"
import { FileUrl } from "../media/FileUrl.ts"
import type { LessonId } from "../lessons/Lesson.ts"
import type { PersistenceError } from "../shared/PersistenceError.ts"
import type { UserId } from "../shared/Viewer.ts"
import {
  type CourseCompletion,
  type CourseProgress,
  type Learner,
  type LearnerCourse,
  type LessonLocked,
  type LessonProgress,
  type ProgressUpdate,
  type UnknownLesson
} from "./Progress.ts"
import { type LearnerCoursesAfter, percentOf, ProgressRepo } from "./ProgressRepo.ts"
import { InvalidLearnerCursor, LearnerCoursesCursorFromString } from "./Progress.ts"

/** Told that a learner completed a course; its failures are logged, never the learner's. */
export type CourseCompletionSubscriber = (completion: CourseCompletion) => Effect.Effect<void, unknown>

/**
 * The subscribers of course completions, in order. Provide them where the use cases are
 * built: `Layer.succeed(CourseCompletionSubscribers, [issueCertificate])`. Each is called
 * once per completion in the process that recorded it, after the transaction committed,
 * in a fiber of its own: the learner's request neither waits for it nor fails with it.
 */
export const CourseCompletionSubscribers = Context.Reference<ReadonlyArray<CourseCompletionSubscriber>>(
  "@coursekit/core/CourseCompletionSubscribers",
  { defaultValue: () => [] }
)

/** A page of items and the cursor of the next one, if any. */
export interface CursorPage<A, C> {
  readonly items: ReadonlyArray<A>
  readonly next: C | undefined
}

const encodeCursor: (after: LearnerCoursesAfter) => string = Schema.encodeSync(LearnerCoursesCursorFromString)
const decodeCursor: (text: string) => Option.Option<LearnerCoursesAfter> = Schema.decodeUnknownOption(LearnerCoursesCursorFromString)

export class Learning extends Context.Service<Learning, {
  record(userId: UserId, lessonId: LessonId, update: ProgressUpdate): Effect.Effect<LessonProgress, UnknownLesson | LessonLocked | PersistenceError>
  courseProgress(userId: UserId, courseId: CourseId): Effect.Effect<CourseProgress, CourseNotFound | PersistenceError>
  learnerCourses(
    userId: UserId,
    request: { readonly cursor: string | undefined; readonly limit: number }
  ): Effect.Effect<CursorPage<LearnerCourse, string>, InvalidLearnerCursor | PersistenceError>
  learners(
    courseId: CourseId,
    request: { readonly cursor: UserId | undefined; readonly limit: number }
  ): Effect.Effect<CursorPage<Learner, UserId>, CourseNotFound | PersistenceError>
}>()("@coursekit/core/Learning") {
  /** Over the `ProgressRepo` and `FileUrl` provided, telling the `CourseCompletionSubscribers` in context when built. */
  static readonly layerNoDeps: Layer.Layer<Learning, never, ProgressRepo | FileUrl> = Layer.effect(
    Learning,
    Effect.gen(function*() {
      const repo = yield* ProgressRepo
      const files = yield* FileUrl
      const subscribers = yield* CourseCompletionSubscribers

      const tell = (completion: CourseCompletion) =>
        Effect.forEach(subscribers, (subscriber) =>
          Effect.suspend(() => subscriber(completion)).pipe(
            Effect.catchCause((cause) => Effect.logError("a course completion subscriber failed", completion, Cause.pretty(cause)))
          ), { discard: true })

      // A span but no call-site capture (`Effect.fn` takes a stack trace per call): every
      // learner's player saves its place every 10 seconds.
      const record = Effect.fnUntraced(function*(userId: UserId, lessonId: LessonId, update: ProgressUpdate) {
        const { completed, progress } = yield* repo.record(userId, lessonId, update)
        // Committed: the subscribers hear of it in a fiber of their own.
        if (completed !== undefined && subscribers.length > 0) yield* Effect.forkDetach(tell(completed))
        return progress
      }, Effect.withSpan("Learning.record"))

      // The course as the public's list shows it.
      const listItem = listItemsOf(files, "public")

      const learnerCourses = Effect.fn("Learning.learnerCourses")(function*(userId: UserId, request: { readonly cursor: string | undefined; readonly limit: number }) {
        let after: LearnerCoursesAfter | undefined
        if (request.cursor !== undefined) {
          const decoded = decodeCursor(request.cursor)
          if (Option.isNone(decoded)) return yield* new InvalidLearnerCursor()
          after = decoded.value
        }
        const rows = yield* repo.learnerCourses(userId, after, request.limit + 1)
        const shown = rows.slice(0, request.limit)
        const last = shown.at(-1)
        const page: CursorPage<LearnerCourse, string> = {
          items: shown.map((row) => ({
            course: listItem(row.course),
            purchased_at: row.purchased_at,
            lessons_total: row.lessons_total,
            lessons_completed: row.lessons_completed,
            percent: percentOf(row.lessons_completed, row.lessons_total),
            completed_at: row.completed_at,
            last_activity_at: row.last_activity_at
          })),
          next: rows.length > request.limit && last !== undefined ? encodeCursor({ last_activity_at: last.last_activity_at, course_id: last.course.id }) : undefined
        }
        return page
      })

      const learners = Effect.fn("Learning.learners")(function*(courseId: CourseId, request: { readonly cursor: UserId | undefined; readonly limit: number }) {
        const rows = yield* repo.learners(courseId, request.cursor, request.limit + 1)
        const shown = rows.slice(0, request.limit)
        const page: CursorPage<Learner, UserId> = { items: shown, next: rows.length > request.limit ? shown.at(-1)?.user_id : undefined }
        return page
      })

      return Learning.of({ record, courseProgress: repo.courseProgress, learnerCourses, learners })
    })
  )
}
