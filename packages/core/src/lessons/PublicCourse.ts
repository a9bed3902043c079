/**
 * The public view of a course with its lessons (DECISIONS §5): preview lessons open to
 * everyone, the rest only to viewers who bought the course. Its fields are the course's
 * and the lessons' public shapes (`CoursePublicView`, `PublicLesson`), plus whether the
 * viewer bought the course.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { CoursePublicView } from "../catalogue/Course.ts"
import { PublicLesson } from "./Lesson.ts"
import { PublicSectionView } from "../catalogue/Section.ts"

/** A section of the public course with its lessons (those visible now), in order. */
export const PublicSection = PublicSectionView.mapFields((fields) => ({
  ...fields,
  lessons: Schema.Array(PublicLesson)
})).annotate({ identifier: "PublicSection" })
export type PublicSection = typeof PublicSection.Type

/**
 * `GET /public/courses/{slug}`: the course, whether the viewer bought it, its loose
 * lessons and its sections with theirs, in order.
 */
export const PublicCourse = CoursePublicView.mapFields((fields) => ({
  ...fields,
  purchased: Schema.Boolean.annotate({ description: "Whether the signed-in viewer bought the course; false without a viewer." }),
  lessons: Schema.Array(PublicLesson).annotate({ description: "The lessons in no section, in order." }),
  sections: Schema.Array(PublicSection).annotate({
    description: "The sections in order, each with its lessons; a section with no lesson visible now is left out. " +
      "Positions (of sections, and of lessons within each group) are 1…n over what is shown."
  })
})).annotate({ identifier: "PublicCourse" })
export type PublicCourse = typeof PublicCourse.Type
