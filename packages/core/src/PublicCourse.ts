/**
 * The public view of a course with its lessons (DECISIONS §5): preview lessons open to
 * everyone, the rest only to viewers who bought the course. Its fields are the course's
 * and the lessons' public shapes (`CoursePublicView`, `PublicLesson`), plus whether the
 * viewer bought the course.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { CoursePublicView } from "./Course.ts"
import { PublicLesson } from "./Lesson.ts"

/** `GET /public/courses/{slug}`: the course, whether the viewer bought it, its lessons in order. */
export const PublicCourse = CoursePublicView.mapFields((fields) => ({
  ...fields,
  purchased: Schema.Boolean.annotate({ description: "Whether the signed-in viewer bought the course; false without a viewer." }),
  lessons: Schema.Array(PublicLesson)
})).annotate({ identifier: "PublicCourse" })
export type PublicCourse = typeof PublicCourse.Type
