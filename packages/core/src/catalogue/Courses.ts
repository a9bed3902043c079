/**
 * The course catalogue use cases: create, page through, read, change and delete courses.
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer, Option } from "effect"
import {
  type Course,
  type CourseCreate,
  type CourseId,
  CourseListItem,
  type CourseListRow,
  type CourseNotFound,
  type CoursePage,
  type CoursePageRequest,
  type CourseRecord,
  type CourseRevision,
  type CourseUpdate,
  CourseVersionMismatch
} from "./Course.ts"
import { type Edit, type StaleRecord, systemEdit } from "../editing/Edit.ts"
import { type RevisionId, type RevisionNotFound, type RevisionPage, revisionPageOf, type RevisionPageRequest } from "../editing/Revision.ts"
import { CourseRepo } from "./CourseRepo.ts"
import {
  type CourseSearchPage,
  type CourseSearchPageRequest,
  decodeSearchCursor,
  encodeSearchCursor,
  InvalidSearchCursor,
  type SearchCursor,
  searchTerms
} from "./CourseSearch.ts"
import { FileUrl } from "../media/FileUrl.ts"
import { type HtmlRefused, HtmlSanitizer } from "../html/HtmlSanitizer.ts"
import type { PersistenceError } from "../shared/PersistenceError.ts"
import { type CatalogueAudience, publicAudience, publishAtStored, withPublishAtStored } from "./Publishing.ts"
import * as RecordVariants from "../shared/RecordVariants.ts"
import * as Slug from "./Slug.ts"
import { LessonRepo } from "../lessons/LessonRepo.ts"
import { MediaRepo } from "../media/MediaRepo.ts"
import { MediaUrls } from "../media/MediaUrls.ts"
import { ObjectStore } from "../media/ObjectStore.ts"
import { UploadRepo } from "../media/UploadRepo.ts"
import { Uploads } from "../media/Uploads.ts"

// The keys a list item shows, read from `CourseListItem`: a field added there is listed
// with no change here. The public's leave out the admins' fields.
const adminOnlyListKeys = RecordVariants.adminOnlyKeys(CourseListItem)
const adminListKeys = RecordVariants.columnsOf(CourseListItem)
const publicListKeys = adminListKeys.filter((key) => !adminOnlyListKeys.includes(key))

/**
 * List items as admins (`"admin"`) or the public see them, from rows with the list's
 * stored fields, the thumbnail's URL from `files`. Built key by key, with no copy of the
 * row and no `delete`: this is the hottest read.
 */
export const listItemsOf = (files: FileUrl["Service"], audience: "admin" | "public") => {
  const keys = audience === "admin" ? adminListKeys : publicListKeys
  return (row: CourseListRow): CourseListItem => {
    const item: Partial<Record<keyof CourseListItem, unknown>> = {}
    for (const key of keys) {
      item[key] = key === "thumbnail_url" ? (row.thumbnail_key === null ? null : files.publicUrl(row.thumbnail_key)) : row[key]
    }
    return item as CourseListItem
  }
}

/**
 * The catalogue. Pages are ascending by id and the cursor is inclusive: a page holds
 * the courses with `id >= cursor`, and `next` is the id the following page starts at.
 *
 * `version` changes with every committed change to the catalogue, wherever it was made,
 * and when a scheduled course becomes visible; caches of list pages key on it (see
 * `CourseRepo`). A page carries the version it was read at, from the same snapshot.
 *
 * Reads take the audience: the public sees the courses visible now (published, and
 * `publish_at` null or passed: drafts and scheduled courses are not found), admins see
 * every course with its `status` and `publish_at`. A create without `status` publishes
 * at once, as the specification's flow expects.
 *
 * `search` finds the courses whose words match a query (the rules are in
 * `CourseSearch`), best first. Without an audience it is the students' search: the
 * courses visible now, for whoever asks. With an admin audience it is the authors':
 * the courses the admin list shows that audience (drafts and scheduled ones too, or one
 * status), as admin list items. Its cursor is opaque text; one this service did not
 * write is an `InvalidSearchCursor`. A query without a letter or digit finds nothing.
 *
 * `content_html` is sanitized on every write (the pipeline's stages 2 and 3, for HTML a
 * person wrote) and stored as sanitized; what is read back is what was stored.
 *
 * Writes carry an {@link Edit}: its author goes into the revisions, and `update`,
 * `delete` and `restore` with `ifMatch` fail with `CourseVersionMismatch` (the course as
 * it is now) when the course is at none of those versions, writing nothing. `revisions`
 * pages a course's revisions newest first; `restore` writes a revision's fields back as
 * a new change (a new version and revision whose note names the one restored; the body
 * is sanitized again; a thumbnail deleted from the media library since is not put back,
 * and the note says so). A restore that would change nothing writes nothing.
 */
export class Courses extends Context.Service<Courses, {
  create(input: CourseCreate, edit?: Edit): Effect.Effect<Course, HtmlRefused | PersistenceError>
  list(request: CoursePageRequest): Effect.Effect<CoursePage, PersistenceError>
  search(request: CourseSearchPageRequest): Effect.Effect<CourseSearchPage, InvalidSearchCursor | PersistenceError>
  get(id: CourseId, audience: CatalogueAudience): Effect.Effect<Course, CourseNotFound | PersistenceError>
  update(
    id: CourseId,
    changes: CourseUpdate,
    edit?: Edit
  ): Effect.Effect<Course, CourseNotFound | CourseVersionMismatch | HtmlRefused | PersistenceError>
  delete(id: CourseId, edit?: Edit): Effect.Effect<void, CourseNotFound | CourseVersionMismatch | PersistenceError>
  revisions(id: CourseId, request: RevisionPageRequest): Effect.Effect<RevisionPage, CourseNotFound | PersistenceError>
  revision(id: CourseId, revisionId: RevisionId): Effect.Effect<CourseRevision, CourseNotFound | RevisionNotFound | PersistenceError>
  restore(
    id: CourseId,
    revisionId: RevisionId,
    edit: Edit
  ): Effect.Effect<Course, CourseNotFound | RevisionNotFound | CourseVersionMismatch | HtmlRefused | PersistenceError>
  readonly version: Effect.Effect<string, PersistenceError>
}>()("@coursekit/core/Courses") {
  /**
   * The catalogue over whichever `CourseRepo`, `FileUrl` and `HtmlSanitizer` the caller
   * provides, `Uploads`, which removes a deleted course's thumbnail, and `MediaRepo`,
   * which says whether a restored thumbnail still exists.
   */
  static readonly layerNoDeps: Layer.Layer<Courses, never, CourseRepo | FileUrl | HtmlSanitizer | MediaRepo | Uploads> = Layer.effect(
    Courses,
    Effect.gen(function*() {
      const repo = yield* CourseRepo
      const uploads = yield* Uploads
      const files = yield* FileUrl
      const sanitizer = yield* HtmlSanitizer
      const media = yield* MediaRepo
      const thumbnailUrl = (key: string | null) => key === null ? null : files.publicUrl(key)
      const toCourse = (record: CourseRecord): Course => ({
        ...record,
        thumbnail_url: thumbnailUrl(record.thumbnail_key)
      })
      const toAdminListItem = listItemsOf(files, "admin")
      const toListItem = listItemsOf(files, "public")

      /** A repository's refusal as the course's own error, with the course as the API shows it. */
      const mismatch = (stale: StaleRecord<CourseRecord>) =>
        Effect.fail(new CourseVersionMismatch({ id: stale.current.id, current: toCourse(stale.current) }))

      const create = Effect.fn("Courses.create")(function*(input: CourseCreate, edit: Edit = systemEdit) {
        const record = yield* repo.insert({
          ...input,
          status: input.status ?? "published",
          publish_at: publishAtStored(input.publish_at ?? null),
          slugBase: Slug.fromTitle(input.title),
          content_html: yield* sanitizer.sanitizeAuthored(input.content_html)
        }, edit)
        return toCourse(record)
      })

      // A span but no call-site capture (`Effect.fn` takes a stack trace per call): this is
      // the hottest read, every uncached list page.
      const list = Effect.fnUntraced(function*(request: CoursePageRequest) {
        // One row past the page tells whether a next page exists, and where it starts.
        const { rows, version } = yield* repo.list({ cursor: request.cursor, limit: request.limit + 1, audience: request.audience })
        const pageRows = rows.length > request.limit ? rows.slice(0, request.limit) : rows
        const items = pageRows.map(request.audience._tag === "Admin" ? toAdminListItem : toListItem)
        const page: CoursePage = { items, next: rows.length > request.limit ? rows[request.limit]!.id : undefined, version }
        return page
      }, Effect.withSpan("Courses.list"))

      const search = Effect.fn("Courses.search")(function*(request: CourseSearchPageRequest) {
        let after: SearchCursor | undefined
        if (request.cursor !== undefined) {
          const decoded = decodeSearchCursor(request.cursor)
          if (Option.isNone(decoded)) return yield* new InvalidSearchCursor()
          after = decoded.value
        }
        const terms = searchTerms(request.query)
        if (terms.length === 0) return { items: [], next: undefined } satisfies CourseSearchPage
        const audience = request.audience ?? publicAudience
        const rows = yield* repo.search({ terms, after, limit: request.limit + 1, audience })
        const pageRows = rows.length > request.limit ? rows.slice(0, request.limit) : rows
        const last = pageRows.at(-1)
        const page: CourseSearchPage = {
          items: pageRows.map(audience._tag === "Admin" ? toAdminListItem : toListItem),
          // The cursor is the last result shown: the next page starts after it.
          next: rows.length > request.limit && last !== undefined ? encodeSearchCursor({ score: last.score, id: last.id }) : undefined
        }
        return page
      })

      const get = Effect.fn("Courses.get")(function*(id: CourseId, audience: CatalogueAudience) {
        return toCourse(yield* repo.findById(id, { visibleOnly: audience._tag === "Public" }))
      })

      const update = Effect.fn("Courses.update")(function*(id: CourseId, changes: CourseUpdate, edit: Edit = systemEdit) {
        const stored = withPublishAtStored(changes)
        const sanitized = stored.content_html === undefined
          ? stored
          : { ...stored, content_html: yield* sanitizer.sanitizeAuthored(stored.content_html) }
        return toCourse(yield* repo.update(id, sanitized, edit).pipe(Effect.catchTag("StaleRecord", mismatch)))
      })

      const revisions = Effect.fn("Courses.revisions")(function*(id: CourseId, request: RevisionPageRequest) {
        return revisionPageOf(yield* repo.revisions(id, { cursor: request.cursor, limit: request.limit + 1 }), request)
      })

      const revision = Effect.fn("Courses.revision")(function*(id: CourseId, revisionId: RevisionId) {
        return yield* repo.revision(id, revisionId)
      })

      const restore = Effect.fn("Courses.restore")(function*(id: CourseId, revisionId: RevisionId, edit: Edit) {
        const { record: { thumbnail_key, ...record } } = yield* repo.revision(id, revisionId)
        // The body goes through today's sanitizer: what was allowed then may not be now.
        const changes = { ...record, content_html: yield* sanitizer.sanitizeAuthored(record.content_html) }
        let note = `Restored from revision ${revisionId}.`
        // A thumbnail deleted from the library since is not put back: the course keeps its current one.
        const thumbnailGone = thumbnail_key !== null && Option.isNone(yield* media.findByKey(thumbnail_key))
        if (thumbnailGone) note += ` Its thumbnail ${thumbnail_key} no longer exists: the current one was kept.`
        const restored = yield* repo.update(id, thumbnailGone ? changes : { ...changes, thumbnail_key }, { ...edit, autosave: false, note })
          .pipe(Effect.catchTag("StaleRecord", mismatch))
        return toCourse(restored)
      })

      const delete_ = Effect.fn("Courses.delete")(function*(id: CourseId, edit: Edit = systemEdit) {
        const deleted = yield* repo.delete(id, edit).pipe(Effect.catchTag("StaleRecord", mismatch))
        if (deleted.thumbnail_key === null) return
        // The course is gone whatever happens to its thumbnail: a failure here is logged,
        // not answered. A thumbnail some lesson also plays stays (MediaInUse).
        yield* uploads.deleteMedia(deleted.thumbnail_key).pipe(
          Effect.catchTags({
            MediaNotFound: () => Effect.void,
            MediaInUse: () => Effect.void,
            PersistenceError: (error) => Effect.logWarning("a deleted course's thumbnail was not removed", deleted.thumbnail_key, error)
          }),
          // A bug behind it too: the course is deleted, which is what the caller asked and is told.
          Effect.catchDefect((defect) => Effect.logError("a deleted course's thumbnail was not removed", deleted.thumbnail_key, defect))
        )
      })

      return Courses.of({ create, list, search, get, update, delete: delete_, revisions, revision, restore, version: repo.version })
    })
  )

  /** The catalogue on in-memory storage, files under `cdnUrl`: for tests and trials. */
  static readonly layerMemory = (cdnUrl = "http://localhost/files"): Layer.Layer<Courses | CourseRepo> =>
    Courses.layerNoDeps.pipe(
      Layer.provide(Uploads.layerNoDeps()),
      Layer.provide(Layer.mergeAll(UploadRepo.layerMemory, MediaRepo.layerMemory, LessonRepo.layerMemory, MediaUrls.layer())),
      Layer.provideMerge(CourseRepo.layerMemory),
      Layer.provide(ObjectStore.layerMemory),
      Layer.provide([FileUrl.layer(cdnUrl), HtmlSanitizer.layer])
    )
}
