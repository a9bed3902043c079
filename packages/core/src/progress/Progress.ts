/**
 * A learner's progress: per lesson, whether they completed it (and when, first) and
 * where they stopped in its video; per course, how much of it they completed and when
 * they completed all of it. Learners are the viewers Coursekit knows: a viewer token's
 * `sub`, or the host's signed-in user.
 *
 * @since 0.3.0
 */
import { DateTime, Schema, SchemaTransformation } from "effect"
import { isCanonicalBase64Url } from "../shared/CanonicalBase64Url.ts"
import { CourseId, CourseListItem } from "../catalogue/Course.ts"
import { LessonId } from "../lessons/Lesson.ts"
import { UserId } from "../shared/Viewer.ts"

/** The longest resume position, in seconds: a week of video. */
export const maxPositionSeconds = 604_800

/** Where the learner stopped in a lesson's video, in seconds (fractions allowed). */
export const PositionSeconds = Schema.Finite.check(Schema.isBetween({ minimum: 0, maximum: maxPositionSeconds })).annotate({
  description: `Where the learner stopped in the lesson's video, in seconds (fractions allowed), 0 to ${maxPositionSeconds}.`
})

/** The body of `PUT /me/lessons/{lesson_id}/progress`: at least one of the two. */
export const ProgressUpdate = Schema.Struct({
  completed: Schema.optionalKey(Schema.Boolean.annotate({
    description: "true: the lesson is done (the first completion's instant is kept on repeats); false: not done any more."
  })),
  position_seconds: Schema.optionalKey(PositionSeconds)
}).check(Schema.makeFilter((update) =>
  update.completed !== undefined || update.position_seconds !== undefined ? undefined : "name completed, position_seconds or both"
)).annotate({ identifier: "ProgressUpdate" })
export type ProgressUpdate = typeof ProgressUpdate.Type

const instant = (description: string) => Schema.NullOr(Schema.DateTimeUtcFromString).annotate({ description })

/** One lesson's progress of one learner. */
export const LessonProgress = Schema.Struct({
  lesson_id: LessonId,
  course_id: CourseId,
  completed: Schema.Boolean,
  completed_at: instant("When the learner first completed it (database clock); null while not completed."),
  position_seconds: Schema.Number.annotate({ description: "Where the learner stopped in its video, in seconds." }),
  updated_at: Schema.DateTimeUtcFromString
}).annotate({ identifier: "LessonProgress" })
export type LessonProgress = typeof LessonProgress.Type

const percent = Schema.Int.annotate({ description: "lessons_completed × 100 / lessons_total, rounded down; 0 without lessons." })

/** A lesson of a course's progress, in outline order. */
export const CourseProgressLesson = Schema.Struct({
  lesson_id: LessonId,
  completed_at: instant("When the learner first completed it; null while not completed."),
  position_seconds: Schema.Number,
  available_at: instant("For a buyer, when drip releases this lesson, while that is ahead; else null.")
}).annotate({ identifier: "CourseProgressLesson" })
export type CourseProgressLesson = typeof CourseProgressLesson.Type

/** `GET /me/courses/{id}/progress`. */
export const CourseProgress = Schema.Struct({
  course_id: CourseId,
  purchased: Schema.Boolean,
  lessons_total: Schema.Int.annotate({ description: "The course's lessons visible now." }),
  lessons_completed: Schema.Int,
  percent,
  completed_at: instant("When the learner completed every lesson visible then; set once, never unset."),
  next_lesson_id: Schema.NullOr(LessonId).annotate({ description: "The first lesson open to the learner that they have not completed." }),
  lessons: Schema.Array(CourseProgressLesson)
}).annotate({ identifier: "CourseProgress" })
export type CourseProgress = typeof CourseProgress.Type

/** One learner's standing in one course, as both lists show it. */
const standing = {
  purchased_at: Schema.DateTimeUtcFromString,
  lessons_completed: Schema.Int,
  percent,
  completed_at: instant("When the learner completed the course."),
  last_activity_at: Schema.DateTimeUtcFromString.annotate({ description: "The learner's last progress in it; their purchase before any." })
}

/** An item of `GET /me/courses`: a course the learner bought, with their progress. */
export const LearnerCourse = Schema.Struct({ course: CourseListItem, lessons_total: Schema.Int, ...standing })
  .annotate({ identifier: "LearnerCourse" })
export type LearnerCourse = typeof LearnerCourse.Type

/** An item of `GET /admin/courses/{id}/learners`. */
export const Learner = Schema.Struct({ user_id: UserId, ...standing }).annotate({ identifier: "Learner" })
export type Learner = typeof Learner.Type

/** A learner completed a course: what completion subscribers are told. */
export interface CourseCompletion {
  readonly user_id: UserId
  readonly course_id: CourseId
  readonly completed_at: DateTime.Utc
}

/**
 * A cursor of the learner's courses as text: the last item's activity (epoch ms) and
 * course id, `<ms>.<id>` in canonical base64url (one page, one URL). Opaque to clients.
 */
export const LearnerCoursesCursorFromString = Schema.String.check(
  Schema.isMaxLength(64),
  Schema.makeFilter((text: string) => isCanonicalBase64Url(text) ? undefined : "a cursor is written in the spelling the service wrote it")
).pipe(
  Schema.decodeTo(Schema.String.check(Schema.isPattern(/^(?:0|[1-9][0-9]{0,14})\.[1-9][0-9]{0,9}$/)), SchemaTransformation.stringFromBase64UrlString),
  Schema.decodeTo(
    Schema.Struct({ last_activity_at: Schema.DateTimeUtc, course_id: CourseId }),
    SchemaTransformation.transform({
      decode: (text: string) => {
        const [ms, id] = text.split(".")
        return { last_activity_at: DateTime.makeUnsafe(Number(ms)), course_id: Number(id) }
      },
      encode: (cursor: { readonly last_activity_at: DateTime.Utc; readonly course_id: number }) =>
        `${DateTime.toEpochMillis(cursor.last_activity_at)}.${cursor.course_id}`
    })
  )
)

// --- errors ---------------------------------------------------------------------------

/** No lesson with this id is visible now (a draft, scheduled, in a hidden course, or none). */
export class UnknownLesson extends Schema.TaggedError<UnknownLesson>()(
  "UnknownLesson",
  { lesson_id: LessonId },
  { description: "No lesson with this id is visible now." }
) {
  override get message(): string {
    return `No lesson with id ${this.lesson_id} is visible now.`
  }
}

/**
 * The lesson is not open to this learner: a paid lesson of a course they did not buy
 * (or whose purchase was revoked), or one drip releases later (`available_at`).
 */
export class LessonLocked extends Schema.TaggedError<LessonLocked>()(
  "LessonLocked",
  { lesson_id: LessonId, available_at: Schema.NullOr(Schema.DateTimeUtcFromString) },
  { description: "The lesson is not open to this learner yet." }
) {
  override get message(): string {
    return this.available_at === null
      ? `Lesson ${this.lesson_id} is open only to buyers of its course.`
      : `Lesson ${this.lesson_id} opens for you at ${DateTime.formatIso(this.available_at)}.`
  }
}

/** A cursor of the learner's courses this service did not write. */
export class InvalidLearnerCursor extends Schema.TaggedError<InvalidLearnerCursor>()(
  "InvalidLearnerCursor",
  {},
  { description: "The cursor is not one this service wrote." }
) {
  override get message(): string {
    return "cursor must be the one the previous page's Link header names."
  }
}
