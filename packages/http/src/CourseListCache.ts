/**
 * A cache of encoded `GET /courses` responses, kept correct by the catalogue's change
 * feed: entries are served only while the feed is live and all are dropped on every
 * change it signals (this process's writes at once; other instances' when their NOTIFY
 * arrives). Hits skip request decoding, the database and response encoding. Every list
 * response carries an `ETag`, and `If-None-Match` gets a 304.
 *
 * @since 0.1.0
 */
import { CatalogueChanges } from "@coursekit/core"
import { Clock, Context, Duration, Effect, Layer, Schedule, Stream } from "effect"
import { HttpServerResponse } from "effect/http"
import { createHash } from "node:crypto"

/** Options of {@link CourseListCache.layer}. */
export interface CourseListCacheOptions {
  /** Most responses kept (oldest dropped first). Default 10,000 (about 15 MB of JSON). */
  readonly maxEntries?: number
  /** Longest an entry is served even without a change signal. Default 30 s. */
  readonly maxAge?: Duration.Input
}

interface Entry {
  readonly body: Uint8Array
  readonly headers: Readonly<Record<string, string>>
  readonly etag: string
  readonly expiresAt: number
}

const listPath = "/courses"
const revalidate = "no-cache"

const etagOf = (body: Uint8Array) => `"${createHash("sha1").update(body).digest("base64url").slice(0, 22)}"`

// RFC 9110 §13.1.2: weak comparison, a list of tags, or "*".
const matches = (ifNoneMatch: string | undefined, etag: string) =>
  ifNoneMatch !== undefined &&
  ifNoneMatch.split(",").some((tag) => {
    const trimmed = tag.trim()
    return trimmed === "*" || trimmed.replace(/^W\//, "") === etag
  })

const notModified = (etag: string) =>
  HttpServerResponse.empty({ status: 304, headers: { etag, "cache-control": revalidate } })

/** Serves and fills the list cache around the routes (see `EdgeMiddleware`). */
export class CourseListCache extends Context.Service<CourseListCache, {
  /**
   * For `GET /courses?…`: answers from the cache, or runs `app` and keeps its 200
   * response. Other requests go straight to `app`.
   */
  around<E, R>(
    method: string,
    url: string,
    ifNoneMatch: string | undefined,
    app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
  ): Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
}>()("@coursekit/http/CourseListCache") {
  /** The cache, following the `CatalogueChanges` feed for the layer's lifetime. */
  static readonly layer = (options: CourseListCacheOptions = {}): Layer.Layer<CourseListCache, never, CatalogueChanges> =>
    Layer.effect(
      CourseListCache,
      Effect.gen(function*() {
        const maxEntries = options.maxEntries ?? 10_000
        const maxAgeMillis = Duration.toMillis(options.maxAge ?? Duration.seconds(30))
        const entries = new Map<string, Entry>()
        let live = false
        // Bumped on every invalidation: a response produced while a change landed is not kept.
        let generation = 0
        const invalidate = () => {
          generation++
          entries.clear()
        }

        const feed = yield* CatalogueChanges
        yield* Stream.runForEach(feed.signals, (signal) =>
          Effect.sync(() => {
            invalidate()
            if (signal === "live") live = true
          })).pipe(
            Effect.ensuring(Effect.sync(() => {
              live = false
              invalidate()
            })),
            Effect.catchCause((cause) => Effect.logWarning("catalogue change feed lost; list cache off until it returns", cause)),
            Effect.repeat(Schedule.spaced(Duration.seconds(1))),
            Effect.forkScoped
          )

        const around = <E, R>(
          method: string,
          url: string,
          ifNoneMatch: string | undefined,
          app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
        ): Effect.Effect<HttpServerResponse.HttpServerResponse, E, R> => {
          if (method !== "GET") return app
          const query = url.indexOf("?")
          if ((query === -1 ? url : url.slice(0, query)) !== listPath) return app
          return Effect.flatMap(Clock.currentTimeMillis, (now) => {
            const hit = live ? entries.get(url) : undefined
            if (hit !== undefined && hit.expiresAt > now) {
              return Effect.succeed(
                matches(ifNoneMatch, hit.etag)
                  ? notModified(hit.etag)
                  : HttpServerResponse.uint8Array(hit.body, { status: 200, headers: hit.headers })
              )
            }
            const before = generation
            return Effect.map(app, (response) => {
              if (response.status !== 200 || response.body._tag !== "Uint8Array") return response
              const etag = etagOf(response.body.body)
              const headers = { ...response.headers, etag, "cache-control": revalidate }
              if (live && generation === before && maxEntries > 0) {
                if (entries.size >= maxEntries && !entries.has(url)) entries.delete(entries.keys().next().value!)
                entries.set(url, { body: response.body.body, headers, etag, expiresAt: now + maxAgeMillis })
              }
              return matches(ifNoneMatch, etag) ? notModified(etag) : HttpServerResponse.setHeaders(response, { etag, "cache-control": revalidate })
            })
          })
        }

        return CourseListCache.of({ around })
      })
    )

  /** No caching (responses still get an ETag from nothing: they pass through untouched). */
  static readonly layerDisabled: Layer.Layer<CourseListCache> = Layer.succeed(
    CourseListCache,
    CourseListCache.of({ around: (_method, _url, _ifNoneMatch, app) => app })
  )
}
