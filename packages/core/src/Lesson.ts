/**
 * Lessons of a course: what is stored, what the admin API shows and accepts.
 *
 * @since 0.1.0
 */
import { type DateTime, Schema } from "effect"
import { ContentHtml, CourseId, CourseTitle, maxId, titleMaxLength } from "./Course.ts"
import { storableText } from "./StorableText.ts"

/** Longest accepted lesson title, in characters, after trimming. */
export const lessonTitleMaxLength = titleMaxLength

/** A lesson identifier: a positive integer assigned by the service. */
export const LessonId = Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: maxId })).pipe(
  Schema.brand("LessonId"),
  Schema.annotate({ description: "Lesson identifier assigned by the service (a positive integer)." })
)
export type LessonId = typeof LessonId.Type

/** A lesson's place in its course: 1 is first; a course's positions are always 1…n. */
export const LessonPosition = Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 100_000 })).annotate({
  description: "Place in the course, 1 first. Positions stay 1…n: inserting or moving shifts the others; " +
    "a position past the end means the end."
})

// The same rules as a course title.
const LessonTitle = CourseTitle.annotate({ description: `Lesson title, trimmed; 1 to ${titleMaxLength} characters.` })

const VideoKey = Schema.NullOr(Schema.String.check(Schema.isMaxLength(1024), storableText("video_key"))).annotate({
  description: "Storage key of a finalized media file (see /admin/media), or null for no video."
})

/** A lesson as stored: everything but the derived `video_url`. */
export interface LessonRecord {
  readonly id: LessonId
  readonly course_id: CourseId
  readonly title: string
  readonly content_html: string
  readonly video_key: string | null
  readonly is_preview: boolean
  readonly position: number
  readonly created_at: DateTime.Utc
  readonly updated_at: DateTime.Utc
}

/** A lesson as the admin API shows it. */
export const Lesson = Schema.Struct({
  id: LessonId,
  course_id: CourseId,
  title: Schema.String,
  content_html: Schema.String,
  video_key: Schema.NullOr(Schema.String),
  video_url: Schema.NullOr(Schema.String).annotate({ description: "Public address of the video; null without one." }),
  is_preview: Schema.Boolean.annotate({
    description: "When true, the public course shows this lesson's content and video to everyone."
  }),
  position: Schema.Int,
  created_at: Schema.DateTimeUtcFromString,
  updated_at: Schema.DateTimeUtcFromString
}).annotate({ identifier: "Lesson" })
export type Lesson = typeof Lesson.Type

/** The body of `POST /courses/{id}/lessons`. */
export const LessonCreate = Schema.Struct({
  title: LessonTitle,
  content_html: Schema.optionalKey(ContentHtml),
  video_key: Schema.optionalKey(VideoKey),
  is_preview: Schema.optionalKey(Schema.Boolean),
  position: Schema.optionalKey(LessonPosition)
}).annotate({ identifier: "LessonCreate" })
export type LessonCreate = typeof LessonCreate.Type

/** The body of `PATCH /courses/{id}/lessons/{lesson_id}`: the fields to change. */
export const LessonUpdate = Schema.Struct({
  title: Schema.optionalKey(LessonTitle),
  content_html: Schema.optionalKey(ContentHtml),
  video_key: Schema.optionalKey(VideoKey),
  is_preview: Schema.optionalKey(Schema.Boolean),
  position: Schema.optionalKey(LessonPosition)
}).annotate({ identifier: "LessonUpdate" })
export type LessonUpdate = typeof LessonUpdate.Type

// --- errors ---------------------------------------------------------------------------

/** The course has no lesson with this id. */
export class LessonNotFound extends Schema.TaggedError<LessonNotFound>()(
  "LessonNotFound",
  { course_id: CourseId, id: LessonId },
  { description: "The course has no lesson with this id." }
) {
  override get message(): string {
    return `Course ${this.course_id} has no lesson with id ${this.id}.`
  }
}

/** `video_key` names no finalized media file. */
export class VideoNotFound extends Schema.TaggedError<VideoNotFound>()(
  "VideoNotFound",
  { video_key: Schema.String },
  { description: "video_key must name a finalized media file." }
) {
  override get message(): string {
    return `video_key ${JSON.stringify(this.video_key)} names no finalized media file.`
  }
}
