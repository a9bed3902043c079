/**
 * The course catalogue use cases: create, page through, read, change and delete courses.
 *
 * @since 0.1.0
 */
import { Clock, Context, Duration, Effect, Layer, Schedule, Stream } from "effect"
import { CatalogueChanges } from "./CatalogueChanges.ts"
import type {
  Course,
  CourseCreate,
  CourseId,
  CourseListItem,
  CourseNotFound,
  CoursePage,
  CoursePageRequest,
  CourseRecord,
  CourseUpdate
} from "./Course.ts"
import { CourseRepo } from "./CourseRepo.ts"
import { FileUrl } from "./FileUrl.ts"
import type { PersistenceError } from "./PersistenceError.ts"
import { CoursePageCache } from "./internal/CoursePageCache.ts"
import * as Slug from "./Slug.ts"

/** How many list pages one catalogue keeps. */
export const listCacheMaxEntries = 1000
/** Longest a cached list page is served, even if no change is signalled. */
export const listCacheMaxAge = Duration.seconds(30)

/**
 * The catalogue. Pages are ascending by id and the cursor is inclusive: a page holds
 * the courses with `id >= cursor`, and `next` is the id the following page starts at.
 *
 * List pages are cached while the {@link CatalogueChanges} feed is live and dropped on
 * every change it signals; this catalogue's own writes drop them at once, so a caller
 * always reads its own writes. With several instances, another instance's write is seen
 * once its change signal arrives (on PostgreSQL, when the commit's NOTIFY is delivered).
 */
export class Catalogue extends Context.Service<Catalogue, {
  create(input: CourseCreate): Effect.Effect<Course, PersistenceError>
  list(request: CoursePageRequest): Effect.Effect<CoursePage, PersistenceError>
  get(id: CourseId): Effect.Effect<Course, CourseNotFound | PersistenceError>
  update(id: CourseId, changes: CourseUpdate): Effect.Effect<Course, CourseNotFound | PersistenceError>
  delete(id: CourseId): Effect.Effect<void, CourseNotFound | PersistenceError>
}>()("@coursekit/core/Catalogue") {
  /** The catalogue over whichever `CourseRepo` and `FileUrl` the caller provides. */
  static readonly layerNoDeps: Layer.Layer<Catalogue, never, CourseRepo | FileUrl | CatalogueChanges> = Layer.effect(
    Catalogue,
    Effect.gen(function*() {
      const repo = yield* CourseRepo
      const files = yield* FileUrl
      const changes = yield* CatalogueChanges
      const cache = new CoursePageCache(listCacheMaxEntries, Duration.toMillis(listCacheMaxAge))
      // Follows the change feed for the catalogue's lifetime; when the feed is lost the
      // cache is off until it is live again.
      yield* Stream.runForEach(changes.signals, (signal) =>
        Effect.sync(() => signal === "live" ? cache.goLive() : cache.invalidate())).pipe(
          Effect.ensuring(Effect.sync(() => cache.goDark())),
          Effect.catchCause((cause) => Effect.logWarning("catalogue change feed lost; list cache off until it returns", cause)),
          Effect.repeat(Schedule.spaced(Duration.seconds(1))),
          Effect.forkScoped
        )
      const invalidating = <A, E, R>(write: Effect.Effect<A, E, R>) => Effect.ensuring(write, Effect.sync(() => cache.invalidate()))
      const thumbnailUrl = (key: string | null) => key === null ? null : files.publicUrl(key)
      const toCourse = (record: CourseRecord): Course => ({
        ...record,
        thumbnail_url: thumbnailUrl(record.thumbnail_key)
      })

      const create = Effect.fn("Catalogue.create")(function*(input: CourseCreate) {
        const record = yield* invalidating(repo.insert({
          title: input.title,
          slugBase: Slug.fromTitle(input.title),
          content_html: input.content_html
        }))
        return toCourse(record)
      })

      const list = Effect.fn("Catalogue.list")(function*(request: CoursePageRequest) {
        const key = `${request.cursor ?? 0}:${request.limit}`
        const cached = cache.get(key, yield* Clock.currentTimeMillis)
        if (cached !== undefined) return cached
        const generation = cache.generation
        // One row past the page tells whether a next page exists, and where it starts.
        const rows = yield* repo.list({ cursor: request.cursor, limit: request.limit + 1 })
        const pageRows = rows.length > request.limit ? rows.slice(0, request.limit) : rows
        const items: Array<CourseListItem> = pageRows.map((row) => ({
          id: row.id,
          title: row.title,
          slug: row.slug,
          thumbnail_url: thumbnailUrl(row.thumbnail_key)
        }))
        const page: CoursePage = { items, next: rows.length > request.limit ? rows[request.limit]!.id : undefined }
        cache.set(key, page, generation, yield* Clock.currentTimeMillis)
        return page
      })

      const get = Effect.fn("Catalogue.get")(function*(id: CourseId) {
        return toCourse(yield* repo.findById(id))
      })

      const update = Effect.fn("Catalogue.update")(function*(id: CourseId, changes: CourseUpdate) {
        return toCourse(yield* invalidating(repo.update(id, changes)))
      })

      const delete_ = Effect.fn("Catalogue.delete")(function*(id: CourseId) {
        yield* invalidating(repo.delete(id))
      })

      return Catalogue.of({ create, list, get, update, delete: delete_ })
    })
  )

  /** The catalogue on in-memory storage, files under `cdnUrl`: for tests and trials. */
  static readonly layerMemory = (cdnUrl = "http://localhost/files"): Layer.Layer<Catalogue | CourseRepo> =>
    Catalogue.layerNoDeps.pipe(
      Layer.provideMerge(CourseRepo.layerMemory),
      Layer.provide([FileUrl.layer(cdnUrl), CatalogueChanges.layerSingleInstance])
    )
}
