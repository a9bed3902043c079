/**
 * The course repository port: where courses are stored. Adapters (PostgreSQL, PGlite,
 * the in-memory layer here) all pass the conformance suite in `@coursekit/core/testing`.
 *
 * @since 0.1.0
 */
import { Context, DateTime, Effect, Layer, Ref, Schema } from "effect"
import {
  CourseChanges,
  CourseId,
  CourseInsert,
  CourseNotFound,
  CourseListRow,
  type CourseRecord,
  type CourseRevision,
  CourseSlugNotFound,
  CourseSnapshot,
  courseSnapshotFields,
  courseSnapshotOf
} from "./Course.ts"
import { type Edit, meets, RevisionPolicies, StaleRecord, systemEdit } from "../editing/Edit.ts"
import { type RevisionId, RevisionNotFound, revisionWriteOf, type RevisionPageRequest, type RevisionSummary } from "../editing/Revision.ts"
import { dropRevisions, emptyRevisionLogs, recordRevision, type RevisionLogs, revisionRows, summaryOf } from "../editing/RevisionLog.ts"
import { type CourseSearchRequest, type CourseSearchRow, scoreOf, type SearchDocument, searchDocument } from "./CourseSearch.ts"
import type { PersistenceError } from "../shared/PersistenceError.ts"
import { md5Hex } from "../shared/md5.ts"
import { type CatalogueAudience, isShownTo, isVisibleAt, publicAudience } from "./Publishing.ts"
import * as RecordVariants from "../shared/RecordVariants.ts"
import * as Slug from "./Slug.ts"

/** How a course is looked up: `visibleOnly` finds only a course the public may see now. */
export interface CourseLookup {
  readonly visibleOnly?: boolean | undefined
}

/** A request for rows of the course list (see `CourseRepo.list`). */
export interface CourseListRequest {
  readonly cursor: CourseId | undefined
  readonly limit: number
  readonly audience: CatalogueAudience
}

/** Rows of the course list and the catalogue version they were read at (see `CourseRepo.list`). */
export interface CourseListRows {
  readonly rows: ReadonlyArray<CourseListRow>
  readonly version: string
}

/** A course showing `thumbnail_key` as its thumbnail: one row of `CourseRepo.thumbnailsAmong`. */
export const CourseThumbnail = Schema.Struct({ course_id: CourseId, thumbnail_key: Schema.String })
export type CourseThumbnail = typeof CourseThumbnail.Type

/** What the use cases hand the repository to create a course. */
export interface NewCourse extends CourseInsert {
  /** Base slug from {@link Slug.fromTitle}; may be `""`. */
  readonly slugBase: string
}

const listRow = RecordVariants.pick(CourseListRow)
const absent = RecordVariants.absentAsNull(CourseInsert)
// Only the shapes' keys are stored: TypeScript lets objects with extra properties through.
const insertFields = RecordVariants.pick(CourseInsert)
const changedFields = RecordVariants.pick(CourseChanges)
const decodeSnapshot = Schema.decodeUnknownSync(CourseSnapshot)

/**
 * Stores courses.
 *
 * `insert` owns slug uniqueness, because only the store can make it atomic: the stored
 * slug is the first free one of `Slug.candidate(slugBase, 1)`, `…(slugBase, 2)`, …; when
 * `slugBase` is `""` the base is `Slug.fallback(id)`. Concurrent inserts of one title
 * must all succeed with distinct slugs.
 *
 * `list` returns rows with `id >= cursor` (all rows without a cursor) in ascending id
 * order, at most `limit` of them, of the courses its `audience` sees: for the public,
 * those published with `publish_at` null or passed, by the store's clock (see
 * `Publishing.isVisibleAt`); for admins all, or those matching the status filter. With
 * them it answers the `version` of the very state it read them from (one snapshot), so
 * a cache can keep the page under that version without reading the version first.
 * `findById` and `findBySlug` with `visibleOnly` fail as for a missing course when the
 * course is not visible: a hidden course is not even read into the answer.
 *
 * `search` returns the courses its `audience` sees, as `list` decides for it (absent:
 * the public, so the courses visible now), that match `terms`, by the rules of
 * `CourseSearch`: every term occurs among the course's {@link searchDocument} words,
 * the last one as a prefix; rows carry
 * {@link scoreOf} as `score` and come best first (score descending, then id ascending),
 * after `after`, at most `limit` of them. The store keeps each course's words from the
 * `title`, `description` and `content_html` it last wrote: `insert` and every `update`
 * that changes one of them compute them again.
 *
 * `delete` answers the course as it was when deleted (its thumbnail goes with it).
 *
 * `thumbnailsAmong(keys)` names, in one read, the courses whose `thumbnail_key` is one of
 * `keys`: a row per such course, ordered by id (`[]` for no keys).
 *
 * `version` is a token that changes with every committed change to any course, made
 * through this repository or beside it (another instance, plain SQL), and is read from
 * the store itself. Caches key on it: a page read after reading version `v` is at least
 * as new as `v`, so a cache keyed on the version never serves a change's predecessor
 * once the change has committed. It also changes when a scheduled course becomes
 * visible (the earliest future `publish_at` of a published course is part of it, read
 * with the same clock as `list`), so a cache keyed on it shows the course from that
 * instant on, without any job or write. It goes into public ETags, so it is opaque as a
 * whole, the same on every instance: it reveals neither that instant nor how many
 * changes were made (drafts included).
 *
 * Versions and revisions: a course's `version` is 1 when inserted and one more on every
 * update that changes it (see `RecordVariants.counted`). `update` and `delete` with an
 * `edit.ifMatch` the course's version does not meet fail with `StaleRecord` carrying the
 * course as stored, and write nothing; the check and the write are one step, so of
 * concurrent writes naming one version exactly one succeeds. `insert` stores the first
 * revision, and every `update` that changes the course stores the step
 * `nextRevisionStep` decides (by `edit.author`, `edit.autosave`, `edit.note`, with
 * `RevisionPolicies`' window by the store's clock) in the same step, keeping the newest
 * `keep`. `revisions` pages them newest first (ids ≤ cursor, at most `limit`);
 * `revision` reads one with its snapshot. Deleting a course deletes its revisions. Both
 * reads fail with `CourseNotFound` for a course that does not exist.
 */
/** The in-memory layer's state: the courses, and the search words of each. */
type State = {
  readonly nextId: number
  readonly version: number
  readonly courses: Map<number, CourseRecord>
  readonly documents: Map<number, SearchDocument>
  readonly revisions: RevisionLogs
}

export class CourseRepo extends Context.Service<CourseRepo, {
  insert(course: NewCourse, edit?: Edit): Effect.Effect<CourseRecord, PersistenceError>
  findById(id: CourseId, lookup?: CourseLookup): Effect.Effect<CourseRecord, CourseNotFound | PersistenceError>
  findBySlug(slug: string, lookup?: CourseLookup): Effect.Effect<CourseRecord, CourseSlugNotFound | PersistenceError>
  list(request: CourseListRequest): Effect.Effect<CourseListRows, PersistenceError>
  search(request: CourseSearchRequest): Effect.Effect<ReadonlyArray<CourseSearchRow>, PersistenceError>
  update(id: CourseId, changes: CourseChanges, edit?: Edit): Effect.Effect<CourseRecord, CourseNotFound | StaleRecord<CourseRecord> | PersistenceError>
  delete(id: CourseId, edit?: Edit): Effect.Effect<CourseRecord, CourseNotFound | StaleRecord<CourseRecord> | PersistenceError>
  thumbnailsAmong(keys: ReadonlyArray<string>): Effect.Effect<ReadonlyArray<CourseThumbnail>, PersistenceError>
  revisions(id: CourseId, request: RevisionPageRequest): Effect.Effect<ReadonlyArray<RevisionSummary>, CourseNotFound | PersistenceError>
  revision(id: CourseId, revisionId: RevisionId): Effect.Effect<CourseRevision, CourseNotFound | RevisionNotFound | PersistenceError>
  readonly version: Effect.Effect<string, PersistenceError>
}>()("@coursekit/core/CourseRepo") {
  /** An in-memory repository: for tests and for trying the core without a database. */
  static readonly layerMemory: Layer.Layer<CourseRepo> = Layer.effect(
    CourseRepo,
    Effect.gen(function*() {
      const policy = yield* RevisionPolicies
      const state = yield* Ref.make<State>({ nextId: 1, version: 0, courses: new Map(), documents: new Map(), revisions: emptyRevisionLogs })
      /** `revisions` with the write that made `record` recorded. */
      const recorded = (revisions: RevisionLogs, record: CourseRecord, edit: Edit, now: DateTime.Utc) =>
        recordRevision(revisions, record.id, courseSnapshotOf(record), revisionWriteOf(record.version, edit), courseSnapshotFields, now, policy)

      const insert = Effect.fn("CourseRepo.insert")(function*(course: NewCourse, edit: Edit = systemEdit) {
        const now = yield* DateTime.now
        const document = searchDocument(course)
        // Ref.modify runs the whole read-choose-write step atomically, as the port requires.
        return yield* Ref.modify(state, ({ documents, nextId, version, courses, revisions }) => {
          const id = nextId as CourseId
          const base = course.slugBase === "" ? Slug.fallback(id) : course.slugBase
          const taken = new Set<string>()
          for (const stored of courses.values()) taken.add(stored.slug)
          let n = 1
          while (taken.has(Slug.candidate(base, n))) n++
          const fields = insertFields(course)
          const record: CourseRecord = {
            ...absent,
            ...fields,
            id,
            slug: Slug.candidate(base, n),
            thumbnail_key: null,
            version: 1,
            created_at: now,
            updated_at: now
          }
          return [record, {
            nextId: nextId + 1,
            version: version + 1,
            courses: new Map(courses).set(id, record),
            documents: new Map(documents).set(id, document),
            revisions: recorded(revisions, record, edit, now)
          }]
        })
      })

      /** Whether a lookup finds `record` at `now`. */
      const found = (record: CourseRecord | undefined, lookup: CourseLookup | undefined, now: DateTime.Utc) =>
        record !== undefined && (lookup?.visibleOnly !== true || isVisibleAt(record, now))

      const findById = Effect.fn("CourseRepo.findById")(function*(id: CourseId, lookup?: CourseLookup) {
        const { courses } = yield* Ref.get(state)
        const record = courses.get(id)
        if (!found(record, lookup, yield* DateTime.now)) return yield* new CourseNotFound({ id })
        return record!
      })

      const findBySlug = Effect.fn("CourseRepo.findBySlug")(function*(slug: string, lookup?: CourseLookup) {
        const { courses } = yield* Ref.get(state)
        const now = yield* DateTime.now
        for (const record of courses.values()) if (record.slug === slug && found(record, lookup, now)) return record
        return yield* new CourseSlugNotFound({ slug })
      })

      const list = Effect.fn("CourseRepo.list")(function*(request: CourseListRequest) {
        const current = yield* Ref.get(state)
        const { courses } = current
        const now = yield* DateTime.now
        const { audience } = request
        const shown = (record: CourseRecord) => isShownTo(audience, record, now)
        const from = request.cursor ?? 0
        const rows: Array<CourseListRow> = []
        // Map iteration follows insertion order, which is ascending id order.
        for (const record of courses.values()) {
          if (rows.length >= request.limit) break
          if (record.id < from || !shown(record)) continue
          rows.push(listRow(record))
        }
        const listed: CourseListRows = { rows, version: versionOf(current, now) }
        return listed
      })

      const search = Effect.fn("CourseRepo.search")(function*(request: CourseSearchRequest) {
        const { courses, documents } = yield* Ref.get(state)
        const now = yield* DateTime.now
        const { after, terms, audience = publicAudience } = request
        const rows: Array<CourseSearchRow> = []
        for (const record of courses.values()) {
          if (!isShownTo(audience, record, now)) continue
          const score = scoreOf(documents.get(record.id)!, terms)
          if (score === 0) continue
          if (after !== undefined && (score > after.score || (score === after.score && record.id <= after.id))) continue
          rows.push({ ...listRow(record), score })
        }
        rows.sort((a, b) => b.score - a.score || a.id - b.id)
        return rows.slice(0, request.limit)
      })

      const update = Effect.fn("CourseRepo.update")(function*(id: CourseId, changes: CourseChanges, edit: Edit = systemEdit) {
        const now = yield* DateTime.now
        const updated = yield* Ref.modify(state, (current): [CourseRecord | StaleRecord<CourseRecord> | undefined, State] => {
          const record = current.courses.get(id)
          if (record === undefined) return [undefined, current]
          if (!meets(edit.ifMatch, record.version)) return [new StaleRecord({ current: record }), current]
          const next: CourseRecord = RecordVariants.counted(record, { ...record, ...RecordVariants.definedOnly(changedFields(changes)), updated_at: now })
          const documents = changes.title === undefined && changes.description === undefined && changes.content_html === undefined
            ? current.documents
            : new Map(current.documents).set(id, searchDocument(next))
          const revisions = next.version === record.version ? current.revisions : recorded(current.revisions, next, edit, now)
          return [next, { ...current, version: current.version + 1, courses: new Map(current.courses).set(id, next), documents, revisions }]
        })
        if (updated === undefined) return yield* new CourseNotFound({ id })
        if (updated instanceof StaleRecord) return yield* updated
        return updated
      })

      const delete_ = Effect.fn("CourseRepo.delete")(function*(id: CourseId, edit: Edit = systemEdit) {
        const deleted = yield* Ref.modify(state, (current): [CourseRecord | StaleRecord<CourseRecord> | undefined, State] => {
          const course = current.courses.get(id)
          if (course === undefined) return [undefined, current]
          if (!meets(edit.ifMatch, course.version)) return [new StaleRecord({ current: course }), current]
          const courses = new Map(current.courses)
          courses.delete(id)
          const documents = new Map(current.documents)
          documents.delete(id)
          return [course, { ...current, version: current.version + 1, courses, documents, revisions: dropRevisions(current.revisions, id) }]
        })
        if (deleted === undefined) return yield* new CourseNotFound({ id })
        if (deleted instanceof StaleRecord) return yield* deleted
        return deleted
      })

      const thumbnailsAmong = Effect.fn("CourseRepo.thumbnailsAmong")(function*(keys: ReadonlyArray<string>) {
        const wanted = new Set(keys)
        const { courses } = yield* Ref.get(state)
        const rows: Array<CourseThumbnail> = []
        // Map iteration follows insertion order, which is ascending id order.
        for (const record of courses.values()) {
          if (record.thumbnail_key !== null && wanted.has(record.thumbnail_key)) rows.push({ course_id: record.id, thumbnail_key: record.thumbnail_key })
        }
        return rows
      })

      const revisions = Effect.fn("CourseRepo.revisions")(function*(id: CourseId, request: RevisionPageRequest) {
        const current = yield* Ref.get(state)
        if (!current.courses.has(id)) return yield* new CourseNotFound({ id })
        return revisionRows(current.revisions, id, request).map(summaryOf)
      })

      const revision = Effect.fn("CourseRepo.revision")(function*(id: CourseId, revisionId: RevisionId) {
        const current = yield* Ref.get(state)
        if (!current.courses.has(id)) return yield* new CourseNotFound({ id })
        const found = current.revisions.byRecord.get(id)?.find((stored) => stored.revision_id === revisionId)
        if (found === undefined) return yield* new RevisionNotFound({ revision_id: revisionId })
        const answer: CourseRevision = { ...summaryOf(found), record: decodeSnapshot(found.record) }
        return answer
      })

      // Versions go into public ETags: the counter (drafts count) and the next launch date
      // appear only hashed with this layer's own secret salt, as the database hashes them
      // with its `release_salt`. The last token is kept: most reads find the same state.
      const salt = globalThis.crypto.randomUUID()
      let last = { state: "", token: "" }
      function versionOf(current: State, at: DateTime.Utc) {
        const now = DateTime.toEpochMillis(at)
        let nextRelease = Infinity
        for (const record of current.courses.values()) {
          if (record.status !== "published" || record.publish_at === null) continue
          const releaseAt = DateTime.toEpochMillis(record.publish_at)
          if (releaseAt > now && releaseAt < nextRelease) nextRelease = releaseAt
        }
        const state = `${current.version}:${nextRelease === Infinity ? "" : nextRelease}`
        if (state !== last.state) last = { state, token: md5Hex(new TextEncoder().encode(`${salt}:${state}`)) }
        return last.token
      }
      const version = Effect.gen(function*() {
        return versionOf(yield* Ref.get(state), yield* DateTime.now)
      })

      return CourseRepo.of({ insert, findById, findBySlug, list, search, update, delete: delete_, thumbnailsAmong, revisions, revision, version })
    })
  )
}
