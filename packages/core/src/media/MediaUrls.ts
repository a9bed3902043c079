/**
 * Where a client reads a stored file now. A public file has one permanent URL
 * (`FileUrl`); a private one (a paid lesson's video) is read only through a signed URL
 * the store issues for `ttl` (`ObjectStore.presignGet`). Each answer is made on the
 * request that shows it, so a refund, a lesson made paid or a deleted lesson stops new
 * URLs at once; URLs already handed out work until they expire. Within a
 * {@link reuseWindow} the same URL is handed out, so responses holding it keep their ETag
 * and players their cache.
 *
 * @since 0.1.0
 */
import { Context, DateTime, Duration, Effect, Layer } from "effect"
import { FileUrl } from "./FileUrl.ts"
import { isPrivateKey, ObjectStore, type StorageError } from "./ObjectStore.ts"

/** Long enough to watch a long lecture, pausing in between. */
export const defaultMediaUrlTtl: Duration.Duration = Duration.hours(4)

/** The longest signed URL: SigV4 presigned URLs (S3, R2) live at most 7 days. */
export const maxMediaUrlTtl: Duration.Duration = Duration.days(7)

/**
 * How long one signed URL is handed out before the next: a quarter of the TTL, at most
 * 15 minutes, so a URL works for at least three quarters of the TTL; none (a new URL
 * every second) for TTLs under 4 seconds. Milliseconds.
 */
export const reuseWindow = (ttl: Duration.Duration): number => {
  const window = Math.min(Duration.toMillis(ttl) / 4, Duration.toMillis(Duration.minutes(15)))
  return window < 1000 ? 0 : Math.floor(window / 1000) * 1000
}

/** Most signed URLs remembered for the current window. */
const maxRemembered = 10_000

/** A URL to read a file at, and until when it works (`null`: for good). */
export interface ReadableUrl {
  readonly url: string
  readonly expiresAt: DateTime.Utc | null
}

/** Options of {@link MediaUrls.layer}. */
export interface MediaUrlsOptions {
  /** How long a signed URL of a private file works. Default {@link defaultMediaUrlTtl}. */
  readonly ttl?: Duration.Duration | undefined
}

export class MediaUrls extends Context.Service<MediaUrls, {
  /** The URL of `key` for one response: permanent when public, signed for `ttl` when private. */
  urlOf(key: string): Effect.Effect<ReadableUrl, StorageError>
}>()("@coursekit/core/MediaUrls") {
  static readonly layer = (options: MediaUrlsOptions = {}): Layer.Layer<MediaUrls, never, FileUrl | ObjectStore> =>
    Layer.effect(
      MediaUrls,
      Effect.gen(function*() {
        const files = yield* FileUrl
        const store = yield* ObjectStore
        const ttl = options.ttl ?? defaultMediaUrlTtl
        if (Duration.isLessThan(ttl, Duration.seconds(1)) || Duration.isGreaterThan(ttl, maxMediaUrlTtl)) {
          return yield* Effect.die(new RangeError(`MediaUrls: ttl must be 1 second to 7 days; it is ${Duration.format(ttl)}`))
        }
        const window = reuseWindow(ttl)
        // The URLs of the current window: the store would sign the same again (an S3
        // presign costs about 0.3 ms, and a buyer's course may show twenty videos).
        let signedIn = { start: -1, urls: new Map<string, ReadableUrl>() }
        return MediaUrls.of({
          urlOf: (key) =>
            isPrivateKey(key)
              ? Effect.gen(function*() {
                const now = DateTime.toEpochMillis(yield* DateTime.now)
                if (window === 0) {
                  const signed = yield* store.presignGet({ key, expiresIn: ttl })
                  return { url: signed.url, expiresAt: signed.expiresAt } satisfies ReadableUrl
                }
                // Signed as of the window's start: one URL per window, so responses stay equal.
                const start = Math.floor(now / window) * window
                if (signedIn.start !== start || signedIn.urls.size >= maxRemembered) signedIn = { start, urls: new Map() }
                const known = signedIn.urls.get(key)
                if (known !== undefined) return known
                const signed = yield* store.presignGet({ key, expiresIn: ttl, issuedAt: DateTime.makeUnsafe(start) })
                const readable: ReadableUrl = { url: signed.url, expiresAt: signed.expiresAt }
                if (signedIn.start === start) signedIn.urls.set(key, readable)
                return readable
              })
              : Effect.succeed({ url: files.publicUrl(key), expiresAt: null })
        })
      })
    )
}
