/**
 * The lesson use cases of the admin API: create, list, change (and move) and delete the
 * lessons of a course, and the sections that group them.
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer, Option } from "effect"
import type { CourseId, CourseNotFound } from "../catalogue/Course.ts"
import { CourseRepo } from "../catalogue/CourseRepo.ts"
import { publishAtStored, withPublishAtStored } from "../catalogue/Publishing.ts"
import { type HtmlRefused, HtmlSanitizer } from "../html/HtmlSanitizer.ts"
import {
  type Lesson,
  type LessonCreate,
  type LessonId,
  type LessonNotFound,
  type LessonRecord,
  type LessonRevision,
  type LessonUpdate,
  LessonVersionMismatch,
  type PublicVideoOnPaidLesson,
  VideoNotFound
} from "./Lesson.ts"
import { LessonRepo } from "./LessonRepo.ts"
import { MediaRepo } from "../media/MediaRepo.ts"
import { MediaUrls } from "../media/MediaUrls.ts"
import type { StorageError } from "../media/ObjectStore.ts"
import type { PersistenceError } from "../shared/PersistenceError.ts"
import { type Edit, type StaleRecord, systemEdit } from "../editing/Edit.ts"
import { type RevisionId, type RevisionNotFound, type RevisionPage, revisionPageOf, type RevisionPageRequest } from "../editing/Revision.ts"
import {
  type Section,
  type SectionCreate,
  type SectionId,
  type SectionNotEmpty,
  type SectionNotFound,
  type SectionRecord,
  type SectionUpdate,
  SectionVersionMismatch,
  type UnknownSection
} from "../catalogue/Section.ts"

/** What a lesson's video or section may be refused for. */
type PlacementError = VideoNotFound | PublicVideoOnPaidLesson | UnknownSection

/**
 * Lessons. `content_html` is sanitized on every write (stages 2 and 3, for HTML a person
 * wrote); `video_key` must name a finalized media file (`VideoNotFound` otherwise), and a
 * public one only for a preview (`PublicVideoOnPaidLesson`); `video_url` is where to
 * play it now (`MediaUrls`: signed for a private file).
 *
 * Writes carry an {@link Edit} as `Courses`' do: `ifMatch` refusals are
 * `LessonVersionMismatch` and `SectionVersionMismatch` with the record as it is now.
 * Lessons keep revisions (`revisions`, `revision`); `restore` writes one back as a new
 * change, its body sanitized again and its video checked again; a lesson whose section
 * no longer exists is restored among the loose lessons, and its revision's note says so.
 */
export class Lessons extends Context.Service<Lessons, {
  create(
    courseId: CourseId,
    input: LessonCreate,
    edit?: Edit
  ): Effect.Effect<Lesson, CourseNotFound | PlacementError | HtmlRefused | PersistenceError | StorageError>
  list(courseId: CourseId): Effect.Effect<ReadonlyArray<Lesson>, CourseNotFound | PersistenceError | StorageError>
  update(
    courseId: CourseId,
    id: LessonId,
    changes: LessonUpdate,
    edit?: Edit
  ): Effect.Effect<Lesson, LessonNotFound | LessonVersionMismatch | PlacementError | HtmlRefused | PersistenceError | StorageError>
  delete(courseId: CourseId, id: LessonId, edit?: Edit): Effect.Effect<void, LessonNotFound | LessonVersionMismatch | PersistenceError | StorageError>
  revisions(courseId: CourseId, id: LessonId, request: RevisionPageRequest): Effect.Effect<RevisionPage, LessonNotFound | PersistenceError>
  revision(
    courseId: CourseId,
    id: LessonId,
    revisionId: RevisionId
  ): Effect.Effect<LessonRevision, LessonNotFound | RevisionNotFound | PersistenceError>
  restore(
    courseId: CourseId,
    id: LessonId,
    revisionId: RevisionId,
    edit: Edit
  ): Effect.Effect<
    Lesson,
    LessonNotFound | RevisionNotFound | LessonVersionMismatch | PlacementError | HtmlRefused | PersistenceError | StorageError
  >
  createSection(courseId: CourseId, input: SectionCreate): Effect.Effect<Section, CourseNotFound | PersistenceError>
  listSections(courseId: CourseId): Effect.Effect<ReadonlyArray<Section>, CourseNotFound | PersistenceError>
  updateSection(
    courseId: CourseId,
    id: SectionId,
    changes: SectionUpdate,
    edit?: Edit
  ): Effect.Effect<Section, SectionNotFound | SectionVersionMismatch | PersistenceError>
  /** Deletes the section; one that still has lessons is `SectionNotEmpty` unless `detachLessons`. */
  deleteSection(
    courseId: CourseId,
    id: SectionId,
    detachLessons: boolean,
    edit?: Edit
  ): Effect.Effect<void, SectionNotFound | SectionVersionMismatch | SectionNotEmpty | PersistenceError>
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

        /** A repository's refusal as the lesson's own error, with the lesson as the API shows it. */
        const lessonMismatch = (stale: StaleRecord<LessonRecord>) =>
          Effect.flatMap(toLesson(stale.current), (current) =>
            Effect.fail(new LessonVersionMismatch({ course_id: stale.current.course_id, id: stale.current.id, current })))
        const sectionMismatch = (stale: StaleRecord<SectionRecord>) =>
          Effect.fail(new SectionVersionMismatch({ course_id: stale.current.course_id, id: stale.current.id, current: stale.current }))

        const create = Effect.fn("Lessons.create")(function*(courseId: CourseId, input: LessonCreate, edit: Edit = systemEdit) {
          yield* checkVideo(input.video_key)
          const record = yield* repo.insert(courseId, {
            title: input.title,
            content_html: yield* sanitizer.sanitizeAuthored(input.content_html ?? ""),
            video_key: input.video_key ?? null,
            is_preview: input.is_preview ?? false,
            position: input.position,
            section_id: input.section_id ?? null,
            status: input.status ?? "published",
            publish_at: publishAtStored(input.publish_at ?? null),
            available_after_days: input.available_after_days ?? null
          }, edit)
          return yield* toLesson(record)
        })

        const list = Effect.fn("Lessons.list")(function*(courseId: CourseId) {
          // An unknown course is a 404, not an empty list.
          yield* courses.findById(courseId)
          return yield* Effect.forEach(yield* repo.list(courseId), toLesson)
        })

        const update = Effect.fn("Lessons.update")(function*(courseId: CourseId, id: LessonId, changes: LessonUpdate, edit: Edit = systemEdit) {
          yield* checkVideo(changes.video_key)
          const stored = withPublishAtStored(changes)
          const record = yield* repo.update(
            courseId,
            id,
            stored.content_html === undefined
              ? stored
              : { ...stored, content_html: yield* sanitizer.sanitizeAuthored(stored.content_html) },
            edit
          ).pipe(Effect.catchTag("StaleRecord", lessonMismatch))
          return yield* toLesson(record)
        })

        const delete_ = Effect.fn("Lessons.delete")(function*(courseId: CourseId, id: LessonId, edit: Edit = systemEdit) {
          yield* repo.delete(courseId, id, edit).pipe(Effect.catchTag("StaleRecord", lessonMismatch))
        })

        const revisions = Effect.fn("Lessons.revisions")(function*(courseId: CourseId, id: LessonId, request: RevisionPageRequest) {
          return revisionPageOf(yield* repo.revisions(courseId, id, { cursor: request.cursor, limit: request.limit + 1 }), request)
        })

        const revision = Effect.fn("Lessons.revision")(function*(courseId: CourseId, id: LessonId, revisionId: RevisionId) {
          return yield* repo.revision(courseId, id, revisionId)
        })

        const restore = Effect.fn("Lessons.restore")(function*(courseId: CourseId, id: LessonId, revisionId: RevisionId, edit: Edit) {
          const { record } = yield* repo.revision(courseId, id, revisionId)
          yield* checkVideo(record.video_key)
          // The body goes through today's sanitizer: what was allowed then may not be now.
          const changes = { ...record, content_html: yield* sanitizer.sanitizeAuthored(record.content_html) }
          const note = `Restored from revision ${revisionId}.`
          const restored = yield* repo.update(courseId, id, changes, { ...edit, autosave: false, note }).pipe(
            Effect.catchTag("UnknownSection", () =>
              // Its section is gone: the lesson comes back among the loose lessons, and says so.
              repo.update(courseId, id, { ...changes, section_id: null }, {
                ...edit,
                autosave: false,
                note: `${note} Its section ${record.section_id} no longer exists: it was restored among the loose lessons.`
              })),
            Effect.catchTag("StaleRecord", lessonMismatch)
          )
          return yield* toLesson(restored)
        })

        const createSection = Effect.fn("Lessons.createSection")(function*(courseId: CourseId, input: SectionCreate) {
          return yield* repo.insertSection(courseId, input)
        })

        const listSections = Effect.fn("Lessons.listSections")(function*(courseId: CourseId) {
          // An unknown course is a 404, not an empty list.
          yield* courses.findById(courseId)
          return yield* repo.listSections(courseId)
        })

        const updateSection = Effect.fn("Lessons.updateSection")(function*(
          courseId: CourseId,
          id: SectionId,
          changes: SectionUpdate,
          edit: Edit = systemEdit
        ) {
          return yield* repo.updateSection(courseId, id, changes, edit).pipe(Effect.catchTag("StaleRecord", sectionMismatch))
        })

        const deleteSection = Effect.fn("Lessons.deleteSection")(function*(
          courseId: CourseId,
          id: SectionId,
          detachLessons: boolean,
          edit: Edit = systemEdit
        ) {
          yield* repo.deleteSection(courseId, id, detachLessons, edit).pipe(Effect.catchTag("StaleRecord", sectionMismatch))
        })

        return Lessons.of({
          create,
          list,
          update,
          delete: delete_,
          revisions,
          revision,
          restore,
          createSection,
          listSections,
          updateSection,
          deleteSection
        })
      })
    )
}
