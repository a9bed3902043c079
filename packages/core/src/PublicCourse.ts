/**
 * The public view of a course with its lessons (DECISIONS §5): preview lessons open to
 * everyone, the rest only to viewers who bought the course.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { CourseId } from "./Course.ts"
import { LessonId } from "./Lesson.ts"

/** How a viewer may see a lesson of the public course. */
export const LessonAccess = Schema.Literals(["preview", "purchased", "locked"]).annotate({
  description: "preview: open to everyone; purchased: open because the viewer bought the course; " +
    "locked: title only."
})
export type LessonAccess = typeof LessonAccess.Type

/** A lesson of the public course. */
export const PublicLesson = Schema.Struct({
  id: LessonId,
  title: Schema.String,
  position: Schema.Int,
  is_preview: Schema.Boolean,
  access: LessonAccess,
  content_html: Schema.NullOr(Schema.String).annotate({ description: "Null when the lesson is locked." }),
  video_url: Schema.NullOr(Schema.String).annotate({ description: "Null when the lesson is locked or has no video." })
}).annotate({ identifier: "PublicLesson" })
export type PublicLesson = typeof PublicLesson.Type

/** `GET /public/courses/{slug}`: the course, whether the viewer bought it, its lessons in order. */
export const PublicCourse = Schema.Struct({
  id: CourseId,
  title: Schema.String,
  slug: Schema.String,
  content_html: Schema.String,
  thumbnail_url: Schema.NullOr(Schema.String),
  purchased: Schema.Boolean.annotate({ description: "Whether the signed-in viewer bought the course; false without a viewer." }),
  lessons: Schema.Array(PublicLesson)
}).annotate({ identifier: "PublicCourse" })
export type PublicCourse = typeof PublicCourse.Type
