/**
 * The public's course list pages: served from a cache of encoded `GET /courses`
 * responses keyed on the catalogue's version, and read in one round trip when not cached.
 *
 * A page in the cache (or a request with `If-None-Match`) reads the version (one
 * primary-key read) and is answered 304 or from the cache when nothing has changed since
 * it was produced; a change to any course, by any instance or any other database
 * client, commits a new version in the same transaction, so there is no window. A page
 * not in the cache is read with the version it was read at, in one statement and one
 * snapshot (`Courses.list`), and kept under that version. So a request is one
 * statement, except the first request for a cached page after a change, or one naming
 * an old ETag: the version read, then the page. The ETag is derived from the version
 * and the page, so `If-None-Match` is answered 304 without producing the page at all.
 * When the store cannot be read, the answer is the 503 problem the API would give.
 *
 * Only the public's pages are served here: a request is served here only when its
 * reader resolves to the public (`CatalogueReaders`, as the API decides), so an admin's
 * page (drafts included) is never kept and an admin never gets a public page. A request
 * the API would refuse (bad credentials, a malformed page), or that asks for an admin's
 * filter, goes to the API. A page is written as the API writes it: its items encoded by
 * the contract's `CourseListItem` and the same `Link` header (the tests compare the
 * two byte for byte). The version also changes when a scheduled course's `publish_at`
 * passes, so the course is listed from that instant on, on every instance.
 *
 * @since 0.1.0
 */
import { type CourseId, CourseListItem, type CoursePage, Courses, defaultPageSize, maxPageSize, publicAudience } from "@coursekit/core"
import { Context, Effect, Layer, Schema } from "effect"
import { HttpServerResponse } from "effect/http"
import { problemResponseOf } from "../problems/DomainProblems.ts"
import { nextLink } from "../handlers/NextPageLink.ts"
import { contractRoutes } from "../ContractRoutes.ts"
import { pathOf } from "./RequestPath.ts"

/** Options of {@link CourseListCache.layer}. */
export interface CourseListCacheOptions {
  /** Most responses kept for the current version. Default 10,000; 0 keeps none (ETags still work). */
  readonly maxEntries?: number
  /**
   * Most bytes of response bodies kept, counted in UTF-8 (V8 may hold a body with
   * characters past Latin-1 in up to twice that). Default 16 MiB.
   */
  readonly maxBytes?: number
}

interface Entry {
  readonly body: string
  /** The body's length in UTF-8 bytes, what `maxBytes` counts. */
  readonly size: number
  readonly headers: Readonly<Record<string, string>>
}

const revalidate = "no-cache"
const positiveInt = /^[1-9][0-9]{0,9}$/

/** A public list page: its cursor and size, and its key in the cache, `cursor.limit`. */
interface Page {
  readonly key: string
  readonly cursor: CourseId | undefined
  readonly limit: number
}

/**
 * The page a list URL asks for, or undefined when the query is not one the API would
 * accept (the request then goes to the API, which answers 400). Other parameters do not
 * change the response, so they do not change the key.
 */
const pageOf = (url: string): Page | undefined => {
  // A fragment is not part of the query (the API's URL parsing drops it too).
  const end = url.indexOf("#")
  const target = end === -1 ? url : url.slice(0, end)
  const query = target.indexOf("?")
  const params = new URLSearchParams(query === -1 ? "" : target.slice(query + 1))
  const cursor = params.getAll("cursor")
  const limit = params.getAll("limit")
  if (cursor.length > 1 || limit.length > 1) return undefined
  if (cursor.length === 1 && (!positiveInt.test(cursor[0]!) || Number(cursor[0]) > 2_147_483_647)) return undefined
  if (limit.length === 1 && (!positiveInt.test(limit[0]!) || Number(limit[0]) > maxPageSize)) return undefined
  // A filter is for admins only: such a request is never a public page.
  if (params.has("status")) return undefined
  const page = { cursor: cursor[0] ?? "0", limit: limit[0] ?? String(defaultPageSize) }
  return {
    key: `${page.cursor}.${page.limit}`,
    cursor: page.cursor === "0" ? undefined : Number(page.cursor) as CourseId,
    limit: Number(page.limit)
  }
}

/** What a list request brings: its URL, its validator and where the API is mounted. */
interface PageRequest {
  readonly url: string
  readonly ifNoneMatch: string | undefined
  readonly prefix: string
}

const encodeItems = Schema.encodeSync(Schema.Array(CourseListItem))

// A string body: the socket encodes it natively, cheaper than a copy in bytes first.
const pageResponse = (body: string, headers: Entry["headers"]) =>
  HttpServerResponse.text(body, { status: 200, contentType: "application/json", headers })

/** Whether `If-None-Match` names `etag` (RFC 9110 §13.1.2: weak comparison, a list of tags, or "*"). */
export const matchesIfNoneMatch = (ifNoneMatch: string | undefined, etag: string) =>
  ifNoneMatch !== undefined &&
  ifNoneMatch.split(",").some((tag) => {
    const trimmed = tag.trim()
    return trimmed === "*" || trimmed.replace(/^W\//, "") === etag
  })

/** Serves the public's list pages around the routes (see `EdgeMiddleware`). */
export class CourseListCache extends Context.Service<CourseListCache, {
  /**
   * For `GET /courses?…` read by the public (`audience` succeeds with `"public"`):
   * answers 304 or from the cache when the catalogue has not changed, else reads the
   * page and keeps it; `prefix` is where the API is mounted (for the `Link` header).
   * Other requests go to `app`.
   */
  around<E, R, E2>(
    request: PageRequest & { readonly method: string },
    audience: Effect.Effect<"admin" | "public", E2>,
    app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
  ): Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
}>()("@coursekit/http/CourseListCache") {
  /** The cache over `Courses` in context. */
  static readonly layer = (options: CourseListCacheOptions = {}): Layer.Layer<CourseListCache, never, Courses> =>
    Layer.effect(
      CourseListCache,
      Effect.gen(function*() {
        const catalogue = yield* Courses
        const maxEntries = options.maxEntries ?? 10_000
        const maxBytes = options.maxBytes ?? 16 * 1024 * 1024
        // Entries of the version last seen; another version empties the cache.
        let cachedVersion = ""
        const entries = new Map<string, Entry>()
        let bytes = 0

        // Counts the versions taken: a read that began in an earlier count may have read a
        // version older than the one now held.
        let generation = 0
        const seen = (version: string) => {
          if (version === cachedVersion) return
          cachedVersion = version
          generation++
          entries.clear()
          bytes = 0
        }

        const keep = (page: string, body: string, headers: Entry["headers"]) => {
          if (maxEntries === 0) return
          const entry = { body, size: Buffer.byteLength(body), headers }
          if (entry.size > maxBytes) return
          // Two misses of one page both keep it: the second replaces the first.
          const replaced = entries.get(page)
          if (replaced !== undefined) {
            entries.delete(page)
            bytes -= replaced.size
          }
          while (entries.size > 0 && (entries.size >= maxEntries || bytes + entry.size > maxBytes)) {
            const [oldestPage, oldest] = entries.entries().next().value!
            entries.delete(oldestPage)
            bytes -= oldest.size
          }
          entries.set(page, entry)
          bytes += entry.size
        }

        const validatorsOf = (version: string, page: Page) => ({ etag: `"${version}.${page.key}"`, "cache-control": revalidate })
        const notModified = (validators: Record<string, string>) => HttpServerResponse.empty({ status: 304, headers: validators })
        // Without the store nothing can be checked or read: the API's 503 problem.
        const unavailable = problemResponseOf

        // The page as the API writes it, kept under the version it was read at.
        const written = (
          listed: CoursePage,
          page: Page,
          validators: Record<string, string>,
          request: { readonly url: string; readonly prefix: string },
          began: number
        ) => {
          const headers: Record<string, string> = { ...validators }
          if (listed.next !== undefined) headers.link = nextLink(listed.next, { prefix: request.prefix, url: request.url, limit: page.limit })
          const body = JSON.stringify(encodeItems(listed.items))
          // Kept under the version it was read at. A read begun before the cache took
          // another version may have read an older one: it neither takes its version back
          // nor is kept beside the newer pages.
          if (began === generation) seen(listed.version)
          if (listed.version === cachedVersion) keep(page.key, body, headers)
          return pageResponse(body, headers)
        }

        const read = (page: Page, request: PageRequest) =>
          Effect.suspend(() => {
            const began = generation
            return catalogue.list({ cursor: page.cursor, limit: page.limit, audience: publicAudience }).pipe(
              Effect.matchEffect({
                onFailure: unavailable,
                onSuccess: (listed) => {
                  const validators = validatorsOf(listed.version, page)
                  const response = written(listed, page, validators, request, began)
                  return Effect.succeed(matchesIfNoneMatch(request.ifNoneMatch, validators.etag) ? notModified(validators) : response)
                }
              })
            )
          })

        // Not an Effect.fn: this runs on every list request, and a span per call costs
        // more than the hit it serves.
        const publicPage = (page: Page, request: PageRequest): Effect.Effect<HttpServerResponse.HttpServerResponse> => {
          // Not cached and no validator to check: one statement reads the page and its version.
          if (request.ifNoneMatch === undefined && !entries.has(page.key)) return read(page, request)
          const began = generation
          return catalogue.version.pipe(
            Effect.matchEffect({
              onFailure: unavailable,
              onSuccess: (version) => {
                const validators = validatorsOf(version, page)
                if (matchesIfNoneMatch(request.ifNoneMatch, validators.etag)) return Effect.succeed(notModified(validators))
                // The same rule as a page's read: a version read begun before the cache took
                // another version does not take its own back, and serves no page of the other.
                if (began === generation) seen(version)
                const hit = version === cachedVersion ? entries.get(page.key) : undefined
                if (hit !== undefined) return Effect.succeed(pageResponse(hit.body, hit.headers))
                return read(page, request)
              }
            })
          )
        }

        const around = <E, R, E2>(
          request: PageRequest & { readonly method: string },
          audience: Effect.Effect<"admin" | "public", E2>,
          app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
        ): Effect.Effect<HttpServerResponse.HttpServerResponse, E, R> => {
          if (request.method !== "GET" || !contractRoutes.isCourseList(pathOf(request.url))) return app
          const page = pageOf(request.url)
          if (page === undefined) return app
          // An admin, or credentials the API refuses: the API answers.
          return Effect.matchEffect(audience, {
            onFailure: () => app,
            onSuccess: (reader) => reader === "public" ? publicPage(page, request) : app
          })
        }

        return CourseListCache.of({ around })
      })
    )

  /** No cache and no validators: every request goes to the API. */
  static readonly layerDisabled: Layer.Layer<CourseListCache> = Layer.succeed(
    CourseListCache,
    CourseListCache.of({ around: (_request, _audience, app) => app })
  )
}
