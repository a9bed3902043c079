/**
 * The public course (DECISIONS §5): a course by its slug with its lessons, as a viewer may
 * see it. Only what is visible now is shown: a draft or scheduled course is not found,
 * and draft or scheduled lessons are left out entirely (never read; the positions shown
 * are 1…n over the lessons shown, so a hidden lesson leaves no gap). Lessons come grouped
 * as the course's outline: the loose lessons, then the sections in order (a section with
 * no lesson shown is left out too). Preview lessons are open to everyone; the others
 * only to viewers who bought the course. Locked bodies are never read for a response that
 * must not show them: the rows are read for the viewer by the `PublicCourseRows` reader
 * the layers provide, and a lesson the viewer has not bought comes without its body (see
 * `LessonRepo.listForViewer`).
 *
 * `preview` is the admins' "preview as a learner" (issue #35): the same page, built by the
 * same code from the same kind of rows, for a course of any status, as a visitor or as a
 * buyer who bought it now, with the course's drafts and scheduled lessons in their places
 * and named (`not_public_lessons`). Its rows are the admin's reads (the course by id, every
 * lesson) put through the rule every store applies (`accessAt`); nothing public reads them.
 *
 * @since 0.1.0
 */
import { Context, DateTime, Effect, Layer } from "effect"
import { FileUrl } from "../media/FileUrl.ts"
import { CoursePublicView, type CourseId, type CourseNotFound, type CourseSlugNotFound } from "../catalogue/Course.ts"
import { CourseRepo } from "../catalogue/CourseRepo.ts"
import { isVisibleAt } from "../catalogue/Publishing.ts"
import { type PublicLesson, viewerLessonAt } from "./Lesson.ts"
import { LessonRepo } from "./LessonRepo.ts"
import type { CoursePreview, PreviewAudience, PublicCourse, PublicSection } from "./PublicCourse.ts"
import { type PublicCourseRead, PublicCourseRows } from "./PublicCourseRows.ts"
import { MediaUrls } from "../media/MediaUrls.ts"
import type { StorageError } from "../media/ObjectStore.ts"
import type { PersistenceError } from "../shared/PersistenceError.ts"
import * as RecordVariants from "../shared/RecordVariants.ts"
import type { Viewer } from "../shared/Viewer.ts"

/** The course's fields students see, and no other stored field. */
const publicFields = RecordVariants.pick(CoursePublicView)

export class PublicCourses extends Context.Service<PublicCourses, {
  view(slug: string, viewer: Viewer): Effect.Effect<PublicCourse, CourseSlugNotFound | PersistenceError | StorageError>
  /**
   * The public course of `courseId` (any status) as `audience` would see it, drafts and
   * scheduled lessons included and named; admins only (the caller checks).
   */
  preview(courseId: CourseId, audience: PreviewAudience): Effect.Effect<CoursePreview, CourseNotFound | PersistenceError | StorageError>
}>()("@coursekit/core/PublicCourses") {
  /** Over the `PublicCourseRows` reader provided (see there for which to choose); previews read `CourseRepo` and `LessonRepo`. */
  static readonly layerNoDeps: Layer.Layer<PublicCourses, never, PublicCourseRows | FileUrl | MediaUrls | CourseRepo | LessonRepo> = Layer.effect(
    PublicCourses,
    Effect.gen(function*() {
      const { read } = yield* PublicCourseRows
      const files = yield* FileUrl
      const urls = yield* MediaUrls
      const courseRepo = yield* CourseRepo
      const lessonRepo = yield* LessonRepo

      // The page from its rows: the one definition of what a viewer sees, for `view` and `preview`.
      const pageOf = Effect.fnUntraced(function*({ course, purchased, lessons: rows }: PublicCourseRead) {
        // A loop in this generator rather than an effect per lesson: only a video needs one
        // (this runs on the page every student opens).
        const shown: Array<{ readonly sectionId: number | null; readonly lesson: PublicLesson }> = []
        for (const row of rows) {
          const access = row.is_preview ? "preview" : !purchased ? "locked" : row.available_at !== null ? "upcoming" : "purchased"
          // The repository already left locked bodies out; this is the second lock.
          const open = access === "preview" || access === "purchased"
          // Signed on this request: a refund or a lesson made paid stops new URLs at once.
          const video = open && row.video_key !== null ? yield* urls.urlOf(row.video_key) : null
          shown.push({
            sectionId: row.section_id,
            lesson: {
              id: row.id,
              title: row.title,
              position: row.position,
              is_preview: row.is_preview,
              access,
              content_html: open ? row.content_html : null,
              video_url: video?.url ?? null,
              video_url_expires_at: video?.expiresAt ?? null,
              available_at: row.available_at
            }
          })
        }
        // Grouped and numbered over what is shown: a hidden lesson or section leaves no gap.
        // The rows come in outline order, each with its section as read with it.
        const groupOf = (sectionId: number | null) =>
          shown.filter((item) => item.sectionId === sectionId).map(({ lesson }, index) => ({ ...lesson, position: index + 1 }))
        const publicSections: Array<PublicSection> = []
        for (const row of rows) {
          if (row.section_id === null || publicSections.some((section) => section.id === row.section_id)) continue
          publicSections.push({ id: row.section_id, title: row.section_title ?? "", position: publicSections.length + 1, lessons: groupOf(row.section_id) })
        }
        const response: PublicCourse = {
          ...publicFields({
            ...course,
            thumbnail_url: course.thumbnail_key === null ? null : files.publicUrl(course.thumbnail_key)
          }),
          purchased,
          lessons: groupOf(null),
          sections: publicSections
        }
        return response
      })

      // A span but no call-site capture (`Effect.fn` takes a stack trace per call): this is
      // the page every student opens.
      const view = Effect.fnUntraced(function*(slug: string, viewer: Viewer) {
        return yield* pageOf(yield* read(slug, viewer))
      }, Effect.withSpan("PublicCourses.view"))

      const preview = Effect.fn("PublicCourses.preview")(function*(courseId: CourseId, audience: PreviewAudience) {
        const course = yield* courseRepo.findById(courseId)
        // Every lesson, in outline order (loose first, then by section), with its section's title.
        const lessons = yield* lessonRepo.list(courseId)
        const sections = new Map((yield* lessonRepo.listSections(courseId)).map((section) => [section.id, section]))
        const now = yield* DateTime.now
        // A buyer previewed is one who bought the course now: drip counts its days from here.
        const purchasedAt = audience === "buyer" ? now : null
        const rows = lessons.map((lesson) =>
          viewerLessonAt(lesson, lesson.section_id === null ? undefined : sections.get(lesson.section_id), purchasedAt, now)
        )
        const page = yield* pageOf({ course, purchased: audience === "buyer", lessons: rows })
        const answer: CoursePreview = {
          as: audience,
          public: isVisibleAt(course, now),
          status: course.status,
          publish_at: course.publish_at,
          not_public_lessons: lessons
            .filter((lesson) => !isVisibleAt(lesson, now))
            .map((lesson) => ({ id: lesson.id, status: lesson.status, publish_at: lesson.publish_at })),
          course: page
        }
        return answer
      })

      return PublicCourses.of({ view, preview })
    })
  )
}
