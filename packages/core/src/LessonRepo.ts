/**
 * The lesson repository port: where lessons are stored, in a dense order per course.
 * Adapters (PostgreSQL, PGlite, the in-memory layer here) pass the conformance suite in
 * `@coursekit/core/testing`.
 *
 * @since 0.1.0
 */
import { Context, DateTime, Effect, Layer, Ref } from "effect"
import { type CourseId, CourseNotFound } from "./Course.ts"
import { CourseRepo } from "./CourseRepo.ts"
import {
  hasPublicVideoWhilePaid,
  LessonChanges,
  type LessonId,
  LessonInsert,
  LessonNotFound,
  type LessonRecord,
  PublicVideoOnPaidLesson,
  type VideoNotFound,
  type ViewerLesson
} from "./Lesson.ts"
import type { LessonUsingFile } from "./Upload.ts"
import type { PersistenceError } from "./PersistenceError.ts"
import { isVisibleAt } from "./Publishing.ts"
import * as RecordVariants from "./RecordVariants.ts"

// Only the shapes' keys are stored: TypeScript lets objects with extra properties through.
const insertFields = RecordVariants.pick(LessonInsert)
const changedFields = RecordVariants.pick(LessonChanges)

/** What the use case hands the repository to create a lesson (HTML already sanitized). */
export type NewLesson = LessonInsert

/**
 * Stores lessons.
 *
 * - Positions of a course are always exactly 1…n. `insert` at position p (absent or past
 *   the end: n + 1) shifts the lessons at p and after down by one; `update` with a
 *   position moves the lesson there (past the end: last) and shifts the lessons between;
 *   `delete` closes the gap. Concurrent inserts, moves and deletes on one course keep
 *   the order dense and unique.
 * - `insert` into a course that does not exist fails with `CourseNotFound`. Deleting a
 *   course (through `CourseRepo`) deletes its lessons: they are never read again.
 * - `list` returns a course's lessons in position order (`[]` for an unknown course).
 * - A lesson that is not a preview never has a public video: `insert` of one, and an
 *   `update` that sets `video_key` or `is_preview` so that the lesson becomes one, fail
 *   with `PublicVideoOnPaidLesson` and change nothing. The check and the write are one
 *   step, so two concurrent updates (one sets the video, one unsets the preview) cannot
 *   make one together. (Lessons stored before the rule existed are left as they are.)
 * - A store that references media files (PostgreSQL) fails `insert` and `update` with
 *   `VideoNotFound` when `video_key` names no media file, e.g. one deleted meanwhile.
 * - `usingVideo(key)` names the lessons whose video is `key`, by course and id.
 * - `listForViewer(course, unlocked)` returns the lessons visible now (published, and
 *   `publish_at` null or passed, by the store's clock) in position order; drafts and
 *   scheduled lessons are not read at all. Unless `unlocked`, the bodies (`content_html`, `video_key`) of lessons that are not previews
 *   are null **and are not read from the store at all**, so no later code can leak them.
 */
/** The in-memory layer's state. */
type State = { readonly nextId: number; readonly lessons: Map<number, LessonRecord> }

export class LessonRepo extends Context.Service<LessonRepo, {
  insert(
    courseId: CourseId,
    lesson: NewLesson
  ): Effect.Effect<LessonRecord, CourseNotFound | PublicVideoOnPaidLesson | VideoNotFound | PersistenceError>
  list(courseId: CourseId): Effect.Effect<ReadonlyArray<LessonRecord>, PersistenceError>
  findById(courseId: CourseId, id: LessonId): Effect.Effect<LessonRecord, LessonNotFound | PersistenceError>
  update(
    courseId: CourseId,
    id: LessonId,
    changes: LessonChanges
  ): Effect.Effect<LessonRecord, LessonNotFound | PublicVideoOnPaidLesson | VideoNotFound | PersistenceError>
  usingVideo(key: string): Effect.Effect<ReadonlyArray<LessonUsingFile>, PersistenceError>
  delete(courseId: CourseId, id: LessonId): Effect.Effect<void, LessonNotFound | PersistenceError>
  listForViewer(courseId: CourseId, unlocked: boolean): Effect.Effect<ReadonlyArray<ViewerLesson>, PersistenceError>
}>()("@coursekit/core/LessonRepo") {
  /**
   * An in-memory repository over the `CourseRepo` in context (which says which courses
   * exist): for tests and for trying the core without a database.
   */
  static readonly layerMemory: Layer.Layer<LessonRepo, never, CourseRepo> = Layer.effect(
    LessonRepo,
    Effect.gen(function*() {
      const courses = yield* CourseRepo
      const state = yield* Ref.make<State>({ nextId: 1, lessons: new Map<number, LessonRecord>() })
      const courseExists = (courseId: CourseId) =>
        courses.findById(courseId).pipe(
          Effect.as(true),
          Effect.catchTag("CourseNotFound", () => Effect.succeed(false))
        )
      const ofCourse = (lessons: ReadonlyMap<number, LessonRecord>, courseId: CourseId) =>
        [...lessons.values()].filter((lesson) => lesson.course_id === courseId).sort((a, b) => a.position - b.position)
      const clamp = (position: number | undefined, last: number) =>
        position === undefined ? last : Math.min(Math.max(1, position), last)

      const insert = Effect.fn("LessonRepo.insert")(function*(courseId: CourseId, lesson: NewLesson) {
        if (!(yield* courseExists(courseId))) return yield* new CourseNotFound({ id: courseId })
        if (hasPublicVideoWhilePaid(lesson)) return yield* new PublicVideoOnPaidLesson({ video_key: lesson.video_key! })
        const now = yield* DateTime.now
        return yield* Ref.modify(state, ({ nextId, lessons }) => {
          const siblings = ofCourse(lessons, courseId)
          const position = clamp(lesson.position, siblings.length + 1)
          const next = new Map(lessons)
          for (const sibling of siblings) {
            if (sibling.position >= position) next.set(sibling.id, { ...sibling, position: sibling.position + 1 })
          }
          const record: LessonRecord = {
            ...insertFields(lesson),
            id: nextId as LessonId,
            course_id: courseId,
            position,
            created_at: now,
            updated_at: now
          }
          next.set(record.id, record)
          return [record, { nextId: nextId + 1, lessons: next }]
        })
      })

      const list = Effect.fn("LessonRepo.list")(function*(courseId: CourseId) {
        if (!(yield* courseExists(courseId))) return []
        return ofCourse((yield* Ref.get(state)).lessons, courseId)
      })

      const findById = Effect.fn("LessonRepo.findById")(function*(courseId: CourseId, id: LessonId) {
        const lesson = (yield* Ref.get(state)).lessons.get(id)
        if (lesson === undefined || lesson.course_id !== courseId || !(yield* courseExists(courseId))) {
          return yield* new LessonNotFound({ course_id: courseId, id })
        }
        return lesson
      })

      const update = Effect.fn("LessonRepo.update")(function*(courseId: CourseId, id: LessonId, changes: LessonChanges) {
        if (!(yield* courseExists(courseId))) return yield* new LessonNotFound({ course_id: courseId, id })
        const now = yield* DateTime.now
        const touchesVideo = changes.video_key !== undefined || changes.is_preview !== undefined
        const updated = yield* Ref.modify(state, (current): [LessonRecord | PublicVideoOnPaidLesson | undefined, State] => {
          const lesson = current.lessons.get(id)
          if (lesson === undefined || lesson.course_id !== courseId) return [undefined, current]
          const merged = { ...lesson, ...RecordVariants.definedOnly(changedFields(changes)) }
          if (touchesVideo && hasPublicVideoWhilePaid(merged)) {
            return [new PublicVideoOnPaidLesson({ video_key: merged.video_key! }), current]
          }
          const siblings = ofCourse(current.lessons, courseId)
          const from = lesson.position
          const to = changes.position === undefined ? from : clamp(changes.position, siblings.length)
          const next = new Map(current.lessons)
          for (const sibling of siblings) {
            if (sibling.id === id) continue
            if (to > from && sibling.position > from && sibling.position <= to) {
              next.set(sibling.id, { ...sibling, position: sibling.position - 1 })
            } else if (to < from && sibling.position >= to && sibling.position < from) {
              next.set(sibling.id, { ...sibling, position: sibling.position + 1 })
            }
          }
          const record: LessonRecord = { ...merged, position: to, updated_at: now }
          next.set(id, record)
          return [record, { ...current, lessons: next }]
        })
        if (updated === undefined) return yield* new LessonNotFound({ course_id: courseId, id })
        if (updated instanceof PublicVideoOnPaidLesson) return yield* updated
        return updated
      })

      const usingVideo = Effect.fn("LessonRepo.usingVideo")(function*(key: string) {
        const { lessons } = yield* Ref.get(state)
        const using = [...lessons.values()]
          .filter((lesson) => lesson.video_key === key)
          .sort((a, b) => a.course_id - b.course_id || a.id - b.id)
        // Lessons of a deleted course are gone, though this map still holds them.
        const live = yield* Effect.filter(using, (lesson) => courseExists(lesson.course_id))
        return live.map((lesson): LessonUsingFile => ({ course_id: lesson.course_id, lesson_id: lesson.id }))
      })

      const delete_ = Effect.fn("LessonRepo.delete")(function*(courseId: CourseId, id: LessonId) {
        const exists = yield* courseExists(courseId)
        const deleted = yield* Ref.modify(state, (current) => {
          const lesson = current.lessons.get(id)
          if (!exists || lesson === undefined || lesson.course_id !== courseId) return [false, current]
          const next = new Map(current.lessons)
          next.delete(id)
          for (const sibling of ofCourse(current.lessons, courseId)) {
            if (sibling.position > lesson.position) next.set(sibling.id, { ...sibling, position: sibling.position - 1 })
          }
          return [true, { ...current, lessons: next }]
        })
        if (!deleted) return yield* new LessonNotFound({ course_id: courseId, id })
      })

      const listForViewer = Effect.fn("LessonRepo.listForViewer")(function*(courseId: CourseId, unlocked: boolean) {
        const now = yield* DateTime.now
        const lessons = (yield* list(courseId)).filter((lesson) => isVisibleAt(lesson, now))
        return lessons.map((lesson): ViewerLesson => {
          const open = unlocked || lesson.is_preview
          return {
            id: lesson.id,
            title: lesson.title,
            position: lesson.position,
            is_preview: lesson.is_preview,
            content_html: open ? lesson.content_html : null,
            video_key: open ? lesson.video_key : null
          }
        })
      })

      return LessonRepo.of({ insert, list, findById, update, delete: delete_, usingVideo, listForViewer })
    })
  )
}
