/**
 * The lesson use cases of the admin API: create, list, change (and move) and delete the
 * lessons of a course, and the sections that group them.
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer, Option } from "effect"
import type { CourseId, CourseNotFound } from "../catalogue/Course.ts"
import { CourseRepo } from "../catalogue/CourseRepo.ts"
import { type HtmlRefused, HtmlSanitizer } from "../html/HtmlSanitizer.ts"
import {
  type Lesson,
  type LessonCreate,
  type LessonId,
  type LessonNotFound,
  type LessonRecord,
  type LessonUpdate,
  type PublicVideoOnPaidLesson,
  VideoNotFound
} from "./Lesson.ts"
import { LessonRepo } from "./LessonRepo.ts"
import { MediaRepo } from "../media/MediaRepo.ts"
import { MediaUrls } from "../media/MediaUrls.ts"
import type { StorageError } from "../media/ObjectStore.ts"
import type { PersistenceError } from "../shared/PersistenceError.ts"
import type {
  Section,
  SectionCreate,
  SectionId,
  SectionNotEmpty,
  SectionNotFound,
  SectionUpdate,
  UnknownSection
} from "../catalogue/Section.ts"

/** What a lesson's video or section may be refused for. */
type PlacementError = VideoNotFound | PublicVideoOnPaidLesson | UnknownSection

/**
 * Lessons. `content_html` is sanitized on every write (stages 2 and 3, for HTML a person
 * wrote); `video_key` must name a finalized media file (`VideoNotFound` otherwise), and a
 * public one only for a preview (`PublicVideoOnPaidLesson`); `video_url` is where to
 * play it now (`MediaUrls`: signed for a private file).
 */
export class Lessons extends Context.Service<Lessons, {
  create(courseId: CourseId, input: LessonCreate): Effect.Effect<Lesson, CourseNotFound | PlacementError | HtmlRefused | PersistenceError | StorageError>
  list(courseId: CourseId): Effect.Effect<ReadonlyArray<Lesson>, CourseNotFound | PersistenceError | StorageError>
  update(
    courseId: CourseId,
    id: LessonId,
    changes: LessonUpdate
  ): Effect.Effect<Lesson, LessonNotFound | PlacementError | HtmlRefused | PersistenceError | StorageError>
  delete(courseId: CourseId, id: LessonId): Effect.Effect<void, LessonNotFound | PersistenceError>
  createSection(courseId: CourseId, input: SectionCreate): Effect.Effect<Section, CourseNotFound | PersistenceError>
  listSections(courseId: CourseId): Effect.Effect<ReadonlyArray<Section>, CourseNotFound | PersistenceError>
  updateSection(courseId: CourseId, id: SectionId, changes: SectionUpdate): Effect.Effect<Section, SectionNotFound | PersistenceError>
  /** Deletes the section; one that still has lessons is `SectionNotEmpty` unless `detachLessons`. */
  deleteSection(
    courseId: CourseId,
    id: SectionId,
    detachLessons: boolean
  ): Effect.Effect<void, SectionNotFound | SectionNotEmpty | PersistenceError>
}>()("@coursekit/core/Lessons") {
  static readonly layerNoDeps: Layer.Layer<Lessons, never, LessonRepo | CourseRepo | MediaRepo | MediaUrls | HtmlSanitizer> =
    Layer.effect(
      Lessons,
      Effect.gen(function*() {
        const repo = yield* LessonRepo
        const courses = yield* CourseRepo
        const media = yield* MediaRepo
        const urls = yield* MediaUrls
        const sanitizer = yield* HtmlSanitizer

        const toLesson = (record: LessonRecord) =>
          record.video_key === null
            ? Effect.succeed<Lesson>({ ...record, video_url: null, video_url_expires_at: null })
            : Effect.map(urls.urlOf(record.video_key), (readable): Lesson => ({
              ...record,
              video_url: readable.url,
              video_url_expires_at: readable.expiresAt
            }))

        const checkVideo = (videoKey: string | null | undefined) =>
          videoKey === null || videoKey === undefined
            ? Effect.void
            : media.findByKey(videoKey).pipe(
              Effect.flatMap((found) => Option.isSome(found) ? Effect.void : Effect.fail(new VideoNotFound({ video_key: videoKey })))
            )

        const create = Effect.fn("Lessons.create")(function*(courseId: CourseId, input: LessonCreate) {
          yield* checkVideo(input.video_key)
          const record = yield* repo.insert(courseId, {
            title: input.title,
            content_html: yield* sanitizer.sanitizeAuthored(input.content_html ?? ""),
            video_key: input.video_key ?? null,
            is_preview: input.is_preview ?? false,
            position: input.position,
            section_id: input.section_id ?? null,
            status: input.status ?? "published",
            publish_at: input.publish_at ?? null
          })
          return yield* toLesson(record)
        })

        const list = Effect.fn("Lessons.list")(function*(courseId: CourseId) {
          // An unknown course is a 404, not an empty list.
          yield* courses.findById(courseId)
          return yield* Effect.forEach(yield* repo.list(courseId), toLesson)
        })

        const update = Effect.fn("Lessons.update")(function*(courseId: CourseId, id: LessonId, changes: LessonUpdate) {
          yield* checkVideo(changes.video_key)
          const record = yield* repo.update(
            courseId,
            id,
            changes.content_html === undefined
              ? changes
              : { ...changes, content_html: yield* sanitizer.sanitizeAuthored(changes.content_html) }
          )
          return yield* toLesson(record)
        })

        const delete_ = Effect.fn("Lessons.delete")(function*(courseId: CourseId, id: LessonId) {
          yield* repo.delete(courseId, id)
        })

        const createSection = Effect.fn("Lessons.createSection")(function*(courseId: CourseId, input: SectionCreate) {
          return yield* repo.insertSection(courseId, input)
        })

        const listSections = Effect.fn("Lessons.listSections")(function*(courseId: CourseId) {
          // An unknown course is a 404, not an empty list.
          yield* courses.findById(courseId)
          return yield* repo.listSections(courseId)
        })

        const updateSection = Effect.fn("Lessons.updateSection")(function*(courseId: CourseId, id: SectionId, changes: SectionUpdate) {
          return yield* repo.updateSection(courseId, id, changes)
        })

        const deleteSection = Effect.fn("Lessons.deleteSection")(function*(courseId: CourseId, id: SectionId, detachLessons: boolean) {
          yield* repo.deleteSection(courseId, id, detachLessons)
        })

        return Lessons.of({ create, list, update, delete: delete_, createSection, listSections, updateSection, deleteSection })
      })
    )
}
