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
 * @since 0.1.0
 */
import { Context, Effect, Layer } from "effect"
import { FileUrl } from "../media/FileUrl.ts"
import { CoursePublicView, type CourseSlugNotFound } from "../catalogue/Course.ts"
import type { PublicLesson } from "./Lesson.ts"
import type { PublicCourse, PublicSection } from "./PublicCourse.ts"
import { PublicCourseRows } from "./PublicCourseRows.ts"
import { MediaUrls } from "../media/MediaUrls.ts"
import type { StorageError } from "../media/ObjectStore.ts"
import type { PersistenceError } from "../shared/PersistenceError.ts"
import * as RecordVariants from "../shared/RecordVariants.ts"
import type { Viewer } from "../shared/Viewer.ts"

/** The course's fields students see, and no other stored field. */
const publicFields = RecordVariants.pick(CoursePublicView)

export class PublicCourses extends Context.Service<PublicCourses, {
  view(slug: string, viewer: Viewer): Effect.Effect<PublicCourse, CourseSlugNotFound | PersistenceError | StorageError>
}>()("@coursekit/core/PublicCourses") {
  /** Over the `PublicCourseRows` reader provided (see there for which to choose). */
  static readonly layerNoDeps: Layer.Layer<PublicCourses, never, PublicCourseRows | FileUrl | MediaUrls> = Layer.effect(
    PublicCourses,
    Effect.gen(function*() {
      const { read } = yield* PublicCourseRows
      const files = yield* FileUrl
      const urls = yield* MediaUrls

      // A span but no call-site capture (`Effect.fn` takes a stack trace per call): this is
      // the page every student opens.
      const view = Effect.fnUntraced(function*(slug: string, viewer: Viewer) {
        const { course, purchased, lessons: rows } = yield* read(slug, viewer)
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
      }, Effect.withSpan("PublicCourses.view"))

      return PublicCourses.of({ view })
    })
  )
}
