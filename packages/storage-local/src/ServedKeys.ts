/**
 * Which stored files the local store's file route serves. An object lands under its key
 * as soon as a signed PUT completes, but it is the service's only once an admin
 * finalizes it (and finalize refuses it when its size or type is wrong). Served before
 * that, an upload URL would be a way to publish any file from this origin. So the
 * file route asks this service first; the default answers from the media library, which
 * records every finalized upload (thumbnails and media alike).
 *
 * @since 0.1.0
 */
import { MediaRepo, type PersistenceError } from "@coursekit/core"
import { Clock, Context, Duration, Effect, Layer, Option } from "effect"

/** How many finalized keys `layerFinalized` remembers before it starts over. */
export const rememberedKeys = 10_000

/**
 * How long `layerFinalized` remembers a yes. A file deleted from the library (whose object
 * could not be removed at once) stops being served within this time.
 */
export const rememberFor: Duration.Duration = Duration.minutes(1)

export class ServedKeys extends Context.Service<ServedKeys, {
  /** Whether the file under `key` may be served. */
  isServed(key: string): Effect.Effect<boolean, PersistenceError>
}>()("@coursekit/storage-local/ServedKeys") {
  /**
   * Files whose upload was finalized: those the media library records. A yes is
   * remembered for {@link rememberFor} (up to {@link rememberedKeys} keys), so a file read
   * often is asked of the database once a minute; a no is asked again, since finalize may
   * come next.
   */
  static readonly layerFinalized: Layer.Layer<ServedKeys, never, MediaRepo> = Layer.effect(
    ServedKeys,
    Effect.gen(function*() {
      const media = yield* MediaRepo
      // Key → until when the yes holds.
      const finalized = new Map<string, number>()
      return ServedKeys.of({
        isServed: (key) =>
          Effect.gen(function*() {
            const now = yield* Clock.currentTimeMillis
            if ((finalized.get(key) ?? 0) > now) return true
            if (Option.isNone(yield* media.findByKey(key))) {
              finalized.delete(key)
              return false
            }
            if (finalized.size >= rememberedKeys) finalized.clear()
            finalized.set(key, now + Duration.toMillis(rememberFor))
            return true
          })
      })
    })
  )

  /**
   * Every stored file, finalized or not: for a store that is not behind Coursekit's
   * upload flow (a test of the store alone, a static mirror). Never for uploads that
   * clients can PUT on their own.
   */
  static readonly layerEveryFile: Layer.Layer<ServedKeys> = Layer.succeed(
    ServedKeys,
    ServedKeys.of({ isServed: () => Effect.succeed(true) })
  )
}
