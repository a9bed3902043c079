/**
 * A cache of encoded `GET /courses` responses, keyed on the catalogue's version.
 *
 * Every list request reads the version (one primary-key read); a change to any course,
 * by any instance or any other database client, commits a new version in the same
 * transaction. So a response is served from the cache only if nothing has changed since
 * it was produced — on every instance, with no window. A hit skips request decoding, the
 * list query and response encoding. The ETag is derived from the version and the page,
 * so `If-None-Match` is answered 304 without producing the page at all. When the version
 * cannot be read, the answer is the 503 problem the API would give, without asking it.
 *
 * Only the public's pages are kept and served: a request is served from the cache only
 * when its reader resolves to the public (`CatalogueReaders`, as the API decides), so an
 * admin's page (drafts included) is never kept and an admin never gets a public page. A
 * request the API would refuse (bad credentials) or that asks for an admin's filter goes
 * to the API. The version also changes when a scheduled course's `publish_at` passes, so
 * the course is listed from that instant on, on every instance.
 *
 * @since 0.1.0
 */
import { Courses, maxPageSize } from "@coursekit/core"
import { Context, Effect, Layer } from "effect"
import { HttpServerRespondable, HttpServerResponse } from "effect/http"
import { problemOf } from "./DomainProblems.ts"
import { pathOf } from "./RequestPath.ts"

/** Options of {@link CourseListCache.layer}. */
export interface CourseListCacheOptions {
  /** Most responses kept for the current version. Default 10,000; 0 keeps none (ETags still work). */
  readonly maxEntries?: number
  /** Most bytes of response bodies kept. Default 16 MiB. */
  readonly maxBytes?: number
}

interface Entry {
  readonly body: Uint8Array
  readonly headers: Readonly<Record<string, string>>
}

const listPath = "/courses"
const revalidate = "no-cache"
const positiveInt = /^[1-9][0-9]{0,9}$/

/**
 * The page a list URL asks for, as `cursor.limit`, or undefined when the query is not one
 * the API would accept (the request then goes to the API, which answers 400). Other
 * parameters do not change the response, so they do not change the key.
 */
const pageOf = (url: string): string | undefined => {
  const query = url.indexOf("?")
  const params = new URLSearchParams(query === -1 ? "" : url.slice(query + 1))
  const cursor = params.getAll("cursor")
  const limit = params.getAll("limit")
  if (cursor.length > 1 || limit.length > 1) return undefined
  if (cursor.length === 1 && (!positiveInt.test(cursor[0]!) || Number(cursor[0]) > 2_147_483_647)) return undefined
  if (limit.length === 1 && (!positiveInt.test(limit[0]!) || Number(limit[0]) > maxPageSize)) return undefined
  // A filter is for admins only: such a request is never a public page.
  if (params.has("status")) return undefined
  return `${cursor[0] ?? "0"}.${limit[0] ?? "10"}`
}

/** Whether `If-None-Match` names `etag` (RFC 9110 §13.1.2: weak comparison, a list of tags, or "*"). */
export const matchesIfNoneMatch = (ifNoneMatch: string | undefined, etag: string) =>
  ifNoneMatch !== undefined &&
  ifNoneMatch.split(",").some((tag) => {
    const trimmed = tag.trim()
    return trimmed === "*" || trimmed.replace(/^W\//, "") === etag
  })

/** Serves and fills the list cache around the routes (see `EdgeMiddleware`). */
export class CourseListCache extends Context.Service<CourseListCache, {
  /**
   * For `GET /courses?…` read by the public (`audience` succeeds with `"public"`):
   * answers 304 or from the cache when the catalogue has not changed, else runs `app`
   * and keeps its 200 response. Other requests go to `app`.
   */
  around<E, R, E2>(
    request: { readonly method: string; readonly url: string; readonly ifNoneMatch: string | undefined },
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
        // Entries of the version last seen; a newer version empties the cache.
        let cachedVersion = ""
        const entries = new Map<string, Entry>()
        let bytes = 0

        const keep = (page: string, entry: Entry) => {
          if (maxEntries === 0 || entry.body.length > maxBytes) return
          while (entries.size >= maxEntries || bytes + entry.body.length > maxBytes) {
            const [oldestPage, oldest] = entries.entries().next().value!
            entries.delete(oldestPage)
            bytes -= oldest.body.length
          }
          entries.set(page, entry)
          bytes += entry.body.length
        }

        // Not an Effect.fn: this runs on every list request, and a span per call costs
        // more than the hit it serves.
        const around = <E, R, E2>(
          { ifNoneMatch, method, url }: { readonly method: string; readonly url: string; readonly ifNoneMatch: string | undefined },
          audience: Effect.Effect<"admin" | "public", E2>,
          app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
        ): Effect.Effect<HttpServerResponse.HttpServerResponse, E, R> => {
          if (method !== "GET" || pathOf(url) !== listPath) return app
          const page = pageOf(url)
          if (page === undefined) return app
          // An admin, or credentials the API refuses: the API answers.
          return Effect.matchEffect(audience, {
            onFailure: () => app,
            onSuccess: (reader) => reader === "public" ? publicPage(page, ifNoneMatch, app) : app
          })
        }

        const publicPage = <E, R>(
          page: string,
          ifNoneMatch: string | undefined,
          app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
        ): Effect.Effect<HttpServerResponse.HttpServerResponse, E, R> =>
          catalogue.version.pipe(
            Effect.matchEffect({
              // Without a version nothing can be checked, and the list would wait on the
              // same database for a second deadline: the outage is answered now.
              onFailure: (error) => Effect.flatMap(problemOf(error), HttpServerRespondable.toResponse),
              onSuccess: (version) => {
                if (version !== cachedVersion) {
                  cachedVersion = version
                  entries.clear()
                  bytes = 0
                }
                const etag = `"${version}.${page}"`
                const validators = { etag, "cache-control": revalidate }
                if (matchesIfNoneMatch(ifNoneMatch, etag)) {
                  return Effect.succeed(HttpServerResponse.empty({ status: 304, headers: validators }))
                }
                const hit = entries.get(page)
                if (hit !== undefined) {
                  return Effect.succeed(HttpServerResponse.uint8Array(hit.body, { status: 200, headers: hit.headers }))
                }
                return Effect.map(app, (response) => {
                  if (response.status !== 200 || response.body._tag !== "Uint8Array") return response
                  // Marked private by the API (an admin's page): never kept, never given public validators.
                  if (response.headers["cache-control"]?.includes("private") === true) return response
                  const withValidators = HttpServerResponse.setHeaders(response, validators)
                  // Produced after reading `version`, so at least that new: safe to keep under it.
                  if (version === cachedVersion) keep(page, { body: response.body.body, headers: withValidators.headers })
                  return withValidators
                })
              }
            })
          )

        return CourseListCache.of({ around })
      })
    )

  /** No cache and no validators: every request goes to the API. */
  static readonly layerDisabled: Layer.Layer<CourseListCache> = Layer.succeed(
    CourseListCache,
    CourseListCache.of({ around: (_request, _audience, app) => app })
  )
}
