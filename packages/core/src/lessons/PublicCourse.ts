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
import { LessonId, PublicLesson } from "./Lesson.ts"
import { PublishStatus } from "../catalogue/Publishing.ts"
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

/**
 * Whom an admin previews the public course as (`GET /admin/courses/{id}/preview?as=`):
 * `visitor`, anyone without the purchase (anonymous or signed in), or `buyer`, a viewer
 * who bought the course at this instant (so drip counts its days from now).
 */
export const PreviewAudience = Schema.Literals(["visitor", "buyer"]).annotate({
  identifier: "PreviewAudience",
  description: "visitor: anyone without the purchase (anonymous or signed in); buyer: a viewer who bought the course now."
})
export type PreviewAudience = typeof PreviewAudience.Type

/** A lesson the preview shows that the public does not see yet: a draft, or scheduled. */
export const NotPublicLesson = Schema.Struct({
  id: LessonId,
  status: PublishStatus,
  publish_at: Schema.NullOr(Schema.DateTimeUtcFromString)
}).annotate({ identifier: "NotPublicLesson" })
export type NotPublicLesson = typeof NotPublicLesson.Type

/**
 * `GET /admin/courses/{id}/preview`: the public course as `as` would see it were the course
 * and all its lessons visible now, with what is not public yet named beside it.
 */
export const CoursePreview = Schema.Struct({
  as: PreviewAudience,
  public: Schema.Boolean.annotate({ description: "Whether the public sees the course now (published, publish_at null or passed)." }),
  status: PublishStatus,
  publish_at: Schema.NullOr(Schema.DateTimeUtcFromString),
  not_public_lessons: Schema.Array(NotPublicLesson).annotate({
    description: "The lessons in course that the public does not see yet (drafts and scheduled ones), by id; the public course leaves them out."
  }),
  course: PublicCourse.annotate({ description: "The public course as `as` sees it, drafts and scheduled lessons included in their places." })
}).annotate({ identifier: "CoursePreview" })
export type CoursePreview = typeof CoursePreview.Type
