/**
 * Where a client reads a stored file now. A public file has one permanent URL
 * (`FileUrl`); a private one (a paid lesson's video) is read only through a signed URL
 * the store issues for `ttl` (`ObjectStore.presignGet`). Each answer is made on the
 * request that shows it, so a refund, a lesson made paid or a deleted lesson stops new
 * URLs at once; URLs already handed out work until they expire.
 *
 * @since 0.1.0
 */
import { Context, type DateTime, Duration, Effect, Layer } from "effect"
import { FileUrl } from "./FileUrl.ts"
import { isPrivateKey, ObjectStore, type StorageError } from "./ObjectStore.ts"

/** Long enough to watch a long lecture, pausing in between. */
export const defaultMediaUrlTtl: Duration.Duration = Duration.hours(4)

/** The longest signed URL: SigV4 presigned URLs (S3, R2) live at most 7 days. */
export const maxMediaUrlTtl: Duration.Duration = Duration.days(7)

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
        return MediaUrls.of({
          urlOf: (key) =>
            isPrivateKey(key)
              ? Effect.map(store.presignGet({ key, expiresIn: ttl }), (signed): ReadableUrl => signed)
              : Effect.succeed({ url: files.publicUrl(key), expiresAt: null })
        })
      })
    )
}
