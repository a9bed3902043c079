/**
 * The lesson repository port: where lessons are stored, in a dense order per course.
 * Adapters (PostgreSQL, PGlite, the in-memory layer here) pass the conformance suite in
 * `@coursekit/core/testing`.
 *
 * @since 0.1.0
 */
import { Context, DateTime, Effect, Layer, Ref, Schema } from "effect"
import { type Edit, meets, RevisionPolicies, StaleRecord, systemEdit } from "../editing/Edit.ts"
import { type RevisionId, RevisionNotFound, revisionWriteOf, type RevisionPageRequest, type RevisionSummary } from "../editing/Revision.ts"
import { dropRevisions, emptyRevisionLogs, recordRevision, type RevisionLogs, revisionRows, summaryOf } from "../editing/RevisionLog.ts"
import { type CourseId, CourseNotFound } from "../catalogue/Course.ts"
import { CourseRepo } from "../catalogue/CourseRepo.ts"
import {
  hasPublicVideoWhilePaid,
  LessonChanges,
  type LessonId,
  LessonInsert,
  LessonNotFound,
  type LessonRecord,
  type LessonRevision,
  LessonSnapshot,
  lessonSnapshotFields,
  lessonSnapshotOf,
  PublicVideoOnPaidLesson,
  viewerLessonAt,
  type VideoNotFound,
  type ViewerLesson
} from "./Lesson.ts"
import { LessonUsingFile } from "../media/Upload.ts"
import type { PersistenceError } from "../shared/PersistenceError.ts"
import { isVisibleAt } from "../catalogue/Publishing.ts"
import {
  SectionChanges,
  type SectionId,
  SectionInsert,
  SectionNotEmpty,
  SectionNotFound,
  type SectionRecord,
  UnknownSection
} from "../catalogue/Section.ts"
import * as RecordVariants from "../shared/RecordVariants.ts"

// Only the shapes' keys are stored: TypeScript lets objects with extra properties through.
const insertFields = RecordVariants.pick(LessonInsert)
const absentLessonFields = RecordVariants.absentAsNull(LessonInsert)
const changedFields = RecordVariants.pick(LessonChanges)
const sectionFields = RecordVariants.pick(SectionInsert)
const sectionChanges = RecordVariants.pick(SectionChanges)
const decodeSnapshot = Schema.decodeUnknownSync(LessonSnapshot)

/** A lesson whose video is `video_key`: one row of `LessonRepo.usingVideos`. */
export const LessonVideoUse = Schema.Struct({ video_key: Schema.String, ...LessonUsingFile.fields })
export type LessonVideoUse = typeof LessonVideoUse.Type

/** What the use case hands the repository to create a lesson (HTML already sanitized). */
export type NewLesson = LessonInsert

/** The in-memory layer's state: lessons and sections change together, in one step. */
type State = {
  readonly nextId: number
  readonly lessons: Map<number, LessonRecord>
  readonly nextSectionId: number
  readonly sections: Map<number, SectionRecord>
  readonly revisions: RevisionLogs
}

/** `after` with the version of every entry that differs from `before`'s counted (`RecordVariants.counted`). */
const countedMap = <A extends { readonly version: number }>(before: ReadonlyMap<number, A>, after: Map<number, A>): Map<number, A> => {
  if (before === after) return after
  const counted = new Map(after)
  for (const [id, item] of after) {
    const old = before.get(id)
    if (old !== undefined && old !== item) counted.set(id, RecordVariants.counted(old, item))
  }
  return counted
}

/** A requested position within 1…last; absent: last. */
const clamp = (position: number | undefined, last: number) =>
  position === undefined ? last : Math.min(Math.max(1, position), last)

/** Where a lesson's group is in `list`'s order: loose lessons first, then by section position. */
const groupRank = (sections: ReadonlyMap<number, SectionRecord>, sectionId: number | null) =>
  sectionId === null ? 0 : sections.get(sectionId)?.position ?? Number.MAX_SAFE_INTEGER

/**
 * Stores lessons and the sections that group them (a course's outline).
 *
 * - A lesson belongs to a section of its course (`section_id`) or to none (the course's
 *   loose lessons); each such group's positions are always exactly 1…n. `insert` at
 *   position p (absent or past the end: n + 1) shifts the group's lessons at p and after
 *   down by one; `update` with a position moves the lesson there (past the end: last)
 *   and shifts the lessons between; `update` with another `section_id` takes the lesson
 *   out of its group (closing the gap) and into the other at `position` (absent: last),
 *   in one step; `delete` closes the gap. A `section_id` that is no section of the course
 *   is `UnknownSection`. Concurrent inserts, moves and deletes on one course keep every
 *   group dense and unique.
 * - `list` returns the loose lessons in position order, then each section's in the
 *   sections' order.
 * - Sections have positions 1…n per course with the same rules (`insertSection`,
 *   `updateSection`). `deleteSection` of a section that still has lessons fails with
 *   `SectionNotEmpty` unless `detachLessons`: then its lessons become loose lessons,
 *   appended in their order, in the same step.
 * - `insert` into a course that does not exist fails with `CourseNotFound`. Deleting a
 *   course (through `CourseRepo`) deletes its lessons: they are never read again.
 * - `list` returns `[]` for an unknown course.
 * - A lesson that is not a preview never has a public video: `insert` of one, and an
 *   `update` that sets `video_key` or `is_preview` so that the lesson becomes one, fail
 *   with `PublicVideoOnPaidLesson` and change nothing. The check and the write are one
 *   step, so two concurrent updates (one sets the video, one unsets the preview) cannot
 *   make one together. (Lessons stored before the rule existed are left as they are.)
 * - A store that references media files (PostgreSQL) fails `insert` and `update` with
 *   `VideoNotFound` when `video_key` names no media file, e.g. one deleted meanwhile.
 * - `usingVideos(keys)` names, in one read, the lessons whose video is one of `keys`: a
 *   row per lesson, with its `video_key`, ordered by course and id (`[]` for no keys).
 *   A deleted course's lessons are not in it.
 * - `listForViewer(course, purchasedAt)` returns the lessons visible now (published, and
 *   `publish_at` null or passed, by the store's clock) in `list`'s order; drafts and
 *   scheduled lessons are not read at all. A lesson is open when it is a preview, or
 *   when the viewer bought the course (`purchasedAt` not null) and its drip released it
 *   (`accessAt`, by the store's clock; else `available_at` says when). The
 *   bodies (`content_html`, `video_key`) of lessons that are not open are null **and are
 *   not read from the store at all**, so no later code can leak them. Each row carries
 *   its section's title and position as read together with it (one statement, one
 *   snapshot), so a section changed meanwhile never leaves a lesson without its group.
 * - Versions, preconditions and revisions as `CourseRepo` has them: lessons and
 *   sections count `version` (a sibling shifted by a move included); `update` and
 *   `delete` of a lesson or section with an `edit.ifMatch` it does not meet fail with
 *   `StaleRecord` and write nothing, checked in the same step as the write. Lessons keep
 *   revisions of their snapshot fields (`lessonSnapshotFields`): `insert` stores the
 *   first, every write that changes one of them stores a step (`nextRevisionStep`) in
 *   the same step, the detaching `deleteSection` included; a shift of position does not.
 *   `revisions` and `revision` fail with `LessonNotFound` for a lesson that does not exist.
 */
export class LessonRepo extends Context.Service<LessonRepo, {
  insert(
    courseId: CourseId,
    lesson: NewLesson,
    edit?: Edit
  ): Effect.Effect<LessonRecord, CourseNotFound | UnknownSection | PublicVideoOnPaidLesson | VideoNotFound | PersistenceError>
  list(courseId: CourseId): Effect.Effect<ReadonlyArray<LessonRecord>, PersistenceError>
  findById(courseId: CourseId, id: LessonId): Effect.Effect<LessonRecord, LessonNotFound | PersistenceError>
  update(
    courseId: CourseId,
    id: LessonId,
    changes: LessonChanges,
    edit?: Edit
  ): Effect.Effect<
    LessonRecord,
    LessonNotFound | StaleRecord<LessonRecord> | UnknownSection | PublicVideoOnPaidLesson | VideoNotFound | PersistenceError
  >
  usingVideos(keys: ReadonlyArray<string>): Effect.Effect<ReadonlyArray<LessonVideoUse>, PersistenceError>
  delete(courseId: CourseId, id: LessonId, edit?: Edit): Effect.Effect<void, LessonNotFound | StaleRecord<LessonRecord> | PersistenceError>
  revisions(
    courseId: CourseId,
    id: LessonId,
    request: RevisionPageRequest
  ): Effect.Effect<ReadonlyArray<RevisionSummary>, LessonNotFound | PersistenceError>
  revision(
    courseId: CourseId,
    id: LessonId,
    revisionId: RevisionId
  ): Effect.Effect<LessonRevision, LessonNotFound | RevisionNotFound | PersistenceError>
  listForViewer(courseId: CourseId, purchasedAt: DateTime.Utc | null): Effect.Effect<ReadonlyArray<ViewerLesson>, PersistenceError>
  insertSection(courseId: CourseId, section: SectionInsert): Effect.Effect<SectionRecord, CourseNotFound | PersistenceError>
  listSections(courseId: CourseId): Effect.Effect<ReadonlyArray<SectionRecord>, PersistenceError>
  updateSection(
    courseId: CourseId,
    id: SectionId,
    changes: SectionChanges,
    edit?: Edit
  ): Effect.Effect<SectionRecord, SectionNotFound | StaleRecord<SectionRecord> | PersistenceError>
  deleteSection(
    courseId: CourseId,
    id: SectionId,
    detachLessons: boolean,
    edit?: Edit
  ): Effect.Effect<void, SectionNotFound | StaleRecord<SectionRecord> | SectionNotEmpty | PersistenceError>
}>()("@coursekit/core/LessonRepo") {
  /**
   * An in-memory repository over the `CourseRepo` in context (which says which courses
   * exist): for tests and for trying the core without a database.
   */
  static readonly layerMemory: Layer.Layer<LessonRepo, never, CourseRepo> = Layer.effect(
    LessonRepo,
    Effect.gen(function*() {
      const courses = yield* CourseRepo
      const policy = yield* RevisionPolicies
      const state = yield* Ref.make<State>({ nextId: 1, lessons: new Map(), nextSectionId: 1, sections: new Map(), revisions: emptyRevisionLogs })
      const courseExists = (courseId: CourseId) =>
        courses.findById(courseId).pipe(
          Effect.as(true),
          Effect.catchTag("CourseNotFound", () => Effect.succeed(false))
        )
      /**
       * `Ref.modify` of the state, each lesson and section it changed counted as a store
       * counts versions (moved siblings included), and the record it answers with as
       * counted; each lesson it changed, added or removed has its revisions follow, by `edit`.
       */
      const modify = <A>(f: (current: State) => readonly [A, State], edit: Edit = systemEdit, now?: DateTime.Utc): Effect.Effect<A> =>
        Ref.modify(state, (current) => {
          const [result, next] = f(current)
          const lessons = countedMap(current.lessons, next.lessons)
          const sections = countedMap(current.sections, next.sections)
          let revisions = current.revisions
          if (lessons !== current.lessons && now !== undefined) {
            for (const [id, lesson] of lessons) {
              if (current.lessons.get(id)?.version === lesson.version) continue
              revisions = recordRevision(revisions, id, lessonSnapshotOf(lesson), revisionWriteOf(lesson.version, edit), lessonSnapshotFields, now, policy)
            }
            for (const id of current.lessons.keys()) if (!lessons.has(id)) revisions = dropRevisions(revisions, id)
          }
          const settled = lessons === next.lessons && sections === next.sections && revisions === next.revisions
            ? next
            : { ...next, lessons, sections, revisions }
          const item: unknown = result
          let answer: unknown = result
          if (typeof item === "object" && item !== null && "id" in item && typeof item.id === "number") {
            if (next.lessons.get(item.id) === item) answer = settled.lessons.get(item.id)
            else if (next.sections.get(item.id) === item) answer = settled.sections.get(item.id)
          }
          return [answer as A, settled]
        })

      /** The lessons of one group (a section, or the loose lessons), in position order. */
      const ofGroup = (lessons: ReadonlyMap<number, LessonRecord>, courseId: CourseId, sectionId: number | null) =>
        [...lessons.values()]
          .filter((lesson) => lesson.course_id === courseId && lesson.section_id === sectionId)
          .sort((a, b) => a.position - b.position)
      const sectionsOf = (sections: ReadonlyMap<number, SectionRecord>, courseId: CourseId) =>
        [...sections.values()].filter((section) => section.course_id === courseId).sort((a, b) => a.position - b.position)
      const inCourse = (current: State, courseId: CourseId, sectionId: number | null) =>
        sectionId === null || current.sections.get(sectionId)?.course_id === courseId
      /** `items` (in order) renumbered 1…n into `into`, with `moved` placed at `to`. */
      const place = <A extends { readonly id: number; readonly position: number }>(
        into: Map<number, A>,
        items: ReadonlyArray<A>,
        moved?: { readonly item: A; readonly to: number }
      ) => {
        const order = items.filter((item) => item.id !== moved?.item.id)
        if (moved !== undefined) order.splice(moved.to - 1, 0, moved.item)
        order.forEach((item, index) => {
          if (item.position !== index + 1 || item === moved?.item) into.set(item.id, { ...item, position: index + 1 })
        })
      }

      const insert = Effect.fn("LessonRepo.insert")(function*(courseId: CourseId, lesson: NewLesson, edit: Edit = systemEdit) {
        if (!(yield* courseExists(courseId))) return yield* new CourseNotFound({ id: courseId })
        if (hasPublicVideoWhilePaid(lesson)) return yield* new PublicVideoOnPaidLesson({ video_key: lesson.video_key! })
        const now = yield* DateTime.now
        const inserted = yield* modify((current): [LessonRecord | undefined, State] => {
          if (!inCourse(current, courseId, lesson.section_id)) return [undefined, current]
          const siblings = ofGroup(current.lessons, courseId, lesson.section_id)
          const record: LessonRecord = {
            ...absentLessonFields,
            ...insertFields(lesson),
            id: current.nextId as LessonId,
            course_id: courseId,
            position: clamp(lesson.position, siblings.length + 1),
            version: 1,
            created_at: now,
            updated_at: now
          }
          const lessons = new Map(current.lessons)
          place(lessons, siblings, { item: record, to: record.position })
          return [lessons.get(record.id)!, { ...current, nextId: current.nextId + 1, lessons }]
        }, edit, now)
        if (inserted === undefined) return yield* new UnknownSection({ course_id: courseId, section_id: lesson.section_id as SectionId })
        return inserted
      })

      const list = Effect.fn("LessonRepo.list")(function*(courseId: CourseId) {
        if (!(yield* courseExists(courseId))) return []
        const { lessons, sections } = yield* Ref.get(state)
        return [...lessons.values()]
          .filter((lesson) => lesson.course_id === courseId)
          .sort((a, b) => groupRank(sections, a.section_id) - groupRank(sections, b.section_id) || a.position - b.position)
      })

      const findById = Effect.fn("LessonRepo.findById")(function*(courseId: CourseId, id: LessonId) {
        const lesson = (yield* Ref.get(state)).lessons.get(id)
        if (lesson === undefined || lesson.course_id !== courseId || !(yield* courseExists(courseId))) {
          return yield* new LessonNotFound({ course_id: courseId, id })
        }
        return lesson
      })

      const update = Effect.fn("LessonRepo.update")(function*(courseId: CourseId, id: LessonId, changes: LessonChanges, edit: Edit = systemEdit) {
        if (!(yield* courseExists(courseId))) return yield* new LessonNotFound({ course_id: courseId, id })
        const now = yield* DateTime.now
        const touchesVideo = changes.video_key !== undefined || changes.is_preview !== undefined
        const updated = yield* modify(
          (current): [LessonRecord | StaleRecord<LessonRecord> | PublicVideoOnPaidLesson | UnknownSection | undefined, State] => {
            const lesson = current.lessons.get(id)
            if (lesson === undefined || lesson.course_id !== courseId) return [undefined, current]
            if (!meets(edit.ifMatch, lesson.version)) return [new StaleRecord({ current: lesson }), current]
            const merged = { ...lesson, ...RecordVariants.definedOnly(changedFields(changes)) }
            if (touchesVideo && hasPublicVideoWhilePaid(merged)) {
              return [new PublicVideoOnPaidLesson({ video_key: merged.video_key! }), current]
            }
            const target = changes.section_id === undefined ? lesson.section_id : changes.section_id
            if (!inCourse(current, courseId, target)) {
              return [new UnknownSection({ course_id: courseId, section_id: target as SectionId }), current]
            }
            const lessons = new Map(current.lessons)
            const record: LessonRecord = { ...merged, section_id: target, updated_at: now }
            if (target === lesson.section_id) {
              const siblings = ofGroup(current.lessons, courseId, target)
              place(lessons, siblings, { item: record, to: changes.position === undefined ? lesson.position : clamp(changes.position, siblings.length) })
            } else {
              // Out of its group (the gap closes) and into the other, at `position` or last.
              place(lessons, ofGroup(current.lessons, courseId, lesson.section_id).filter((other) => other.id !== id))
              const siblings = ofGroup(current.lessons, courseId, target)
              place(lessons, siblings, { item: record, to: clamp(changes.position, siblings.length + 1) })
            }
            return [lessons.get(id)!, { ...current, lessons }]
          },
          edit,
          now
        )
        if (updated === undefined) return yield* new LessonNotFound({ course_id: courseId, id })
        if (updated instanceof PublicVideoOnPaidLesson || updated instanceof UnknownSection || updated instanceof StaleRecord) return yield* updated
        return updated
      })

      const usingVideos = Effect.fn("LessonRepo.usingVideos")(function*(keys: ReadonlyArray<string>) {
        const wanted = new Set(keys)
        const { lessons } = yield* Ref.get(state)
        const using = [...lessons.values()]
          .filter((lesson) => lesson.video_key !== null && wanted.has(lesson.video_key))
          .sort((a, b) => a.course_id - b.course_id || a.id - b.id)
        const live = yield* Effect.filter(using, (lesson) => courseExists(lesson.course_id))
        return live.map((lesson): LessonVideoUse => ({ video_key: lesson.video_key!, course_id: lesson.course_id, lesson_id: lesson.id }))
      })

      const delete_ = Effect.fn("LessonRepo.delete")(function*(courseId: CourseId, id: LessonId, edit: Edit = systemEdit) {
        const exists = yield* courseExists(courseId)
        const now = yield* DateTime.now
        const deleted = yield* modify((current): [boolean | StaleRecord<LessonRecord>, State] => {
          const lesson = current.lessons.get(id)
          if (!exists || lesson === undefined || lesson.course_id !== courseId) return [false, current]
          if (!meets(edit.ifMatch, lesson.version)) return [new StaleRecord({ current: lesson }), current]
          const lessons = new Map(current.lessons)
          lessons.delete(id)
          place(lessons, ofGroup(current.lessons, courseId, lesson.section_id).filter((other) => other.id !== id))
          return [true, { ...current, lessons }]
        }, edit, now)
        if (deleted instanceof StaleRecord) return yield* deleted
        if (!deleted) return yield* new LessonNotFound({ course_id: courseId, id })
      })

      /** The lesson, when it is one of the course's and the course exists. */
      const lessonOf = Effect.fnUntraced(function*(courseId: CourseId, id: LessonId) {
        const current = yield* Ref.get(state)
        const lesson = current.lessons.get(id)
        if (lesson === undefined || lesson.course_id !== courseId || !(yield* courseExists(courseId))) {
          return yield* new LessonNotFound({ course_id: courseId, id })
        }
        return current
      })

      const revisions = Effect.fn("LessonRepo.revisions")(function*(courseId: CourseId, id: LessonId, request: RevisionPageRequest) {
        return revisionRows((yield* lessonOf(courseId, id)).revisions, id, request).map(summaryOf)
      })

      const revision = Effect.fn("LessonRepo.revision")(function*(courseId: CourseId, id: LessonId, revisionId: RevisionId) {
        const current = yield* lessonOf(courseId, id)
        const found = current.revisions.byRecord.get(id)?.find((stored) => stored.revision_id === revisionId)
        if (found === undefined) return yield* new RevisionNotFound({ revision_id: revisionId })
        const answer: LessonRevision = { ...summaryOf(found), record: decodeSnapshot(found.record) }
        return answer
      })

      const listForViewer = Effect.fn("LessonRepo.listForViewer")(function*(courseId: CourseId, purchasedAt: DateTime.Utc | null) {
        const now = yield* DateTime.now
        if (!(yield* courseExists(courseId))) return []
        // One read of the state: the lessons and their sections as of the same instant.
        const { lessons, sections } = yield* Ref.get(state)
        const ordered = [...lessons.values()]
          .filter((lesson) => lesson.course_id === courseId && isVisibleAt(lesson, now))
          .sort((a, b) => groupRank(sections, a.section_id) - groupRank(sections, b.section_id) || a.position - b.position)
        return ordered.map((lesson) =>
          viewerLessonAt(lesson, lesson.section_id === null ? undefined : sections.get(lesson.section_id), purchasedAt, now)
        )
      })

      const insertSection = Effect.fn("LessonRepo.insertSection")(function*(courseId: CourseId, section: SectionInsert) {
        if (!(yield* courseExists(courseId))) return yield* new CourseNotFound({ id: courseId })
        const now = yield* DateTime.now
        return yield* modify((current): [SectionRecord, State] => {
          const siblings = sectionsOf(current.sections, courseId)
          const record: SectionRecord = {
            ...sectionFields(section),
            id: current.nextSectionId as SectionId,
            course_id: courseId,
            position: clamp(section.position, siblings.length + 1),
            version: 1,
            created_at: now,
            updated_at: now
          }
          const sections = new Map(current.sections)
          place(sections, siblings, { item: record, to: record.position })
          return [sections.get(record.id)!, { ...current, nextSectionId: current.nextSectionId + 1, sections }]
        })
      })

      const listSections = Effect.fn("LessonRepo.listSections")(function*(courseId: CourseId) {
        if (!(yield* courseExists(courseId))) return []
        return sectionsOf((yield* Ref.get(state)).sections, courseId)
      })

      const updateSection = Effect.fn("LessonRepo.updateSection")(function*(
        courseId: CourseId,
        id: SectionId,
        changes: SectionChanges,
        edit: Edit = systemEdit
      ) {
        const exists = yield* courseExists(courseId)
        const now = yield* DateTime.now
        const updated = yield* modify((current): [SectionRecord | StaleRecord<SectionRecord> | undefined, State] => {
          const section = current.sections.get(id)
          if (!exists || section === undefined || section.course_id !== courseId) return [undefined, current]
          if (!meets(edit.ifMatch, section.version)) return [new StaleRecord({ current: section }), current]
          const siblings = sectionsOf(current.sections, courseId)
          const record: SectionRecord = { ...section, ...RecordVariants.definedOnly(sectionChanges(changes)), updated_at: now }
          const sections = new Map(current.sections)
          place(sections, siblings, { item: record, to: changes.position === undefined ? section.position : clamp(changes.position, siblings.length) })
          return [sections.get(id)!, { ...current, sections }]
        }, edit, now)
        if (updated === undefined) return yield* new SectionNotFound({ course_id: courseId, id })
        if (updated instanceof StaleRecord) return yield* updated
        return updated
      })

      const deleteSection = Effect.fn("LessonRepo.deleteSection")(function*(
        courseId: CourseId,
        id: SectionId,
        detachLessons: boolean,
        edit: Edit = systemEdit
      ) {
        const exists = yield* courseExists(courseId)
        const now = yield* DateTime.now
        const outcome = yield* modify((current): [SectionNotFound | StaleRecord<SectionRecord> | SectionNotEmpty | undefined, State] => {
          const section = current.sections.get(id)
          if (!exists || section === undefined || section.course_id !== courseId) {
            return [new SectionNotFound({ course_id: courseId, id }), current]
          }
          if (!meets(edit.ifMatch, section.version)) return [new StaleRecord({ current: section }), current]
          const inSection = ofGroup(current.lessons, courseId, id)
          if (inSection.length > 0 && !detachLessons) {
            return [new SectionNotEmpty({ course_id: courseId, id, lessons: inSection.length }), current]
          }
          // Its lessons follow the loose lessons, in their order.
          const lessons = new Map(current.lessons)
          const loose = ofGroup(current.lessons, courseId, null)
          inSection.forEach((lesson, index) => lessons.set(lesson.id, { ...lesson, section_id: null, position: loose.length + index + 1 }))
          const sections = new Map(current.sections)
          sections.delete(id)
          place(sections, sectionsOf(current.sections, courseId).filter((other) => other.id !== id))
          return [undefined, { ...current, lessons, sections }]
        }, edit, now)
        if (outcome !== undefined) return yield* outcome
      })

      return LessonRepo.of({
        insert,
        list,
        findById,
        update,
        delete: delete_,
        revisions,
        revision,
        usingVideos,
        listForViewer,
        insertSection,
        listSections,
        updateSection,
        deleteSection
      })
    })
  )
}
