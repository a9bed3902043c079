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
import { Context, Effect, Layer, Option } from "effect"

/** How many finalized keys `layerFinalized` remembers before it starts over. */
export const rememberedKeys = 10_000

export class ServedKeys extends Context.Service<ServedKeys, {
  /** Whether the file under `key` may be served. */
  isServed(key: string): Effect.Effect<boolean, PersistenceError>
}>()("@coursekit/storage-local/ServedKeys") {
  /**
   * Files whose upload was finalized: those the media library records. A finalized file
   * stays finalized, so a yes is remembered (up to {@link rememberedKeys} keys) and
   * asked of the database once; a no is asked again, since finalize may come next.
   */
  static readonly layerFinalized: Layer.Layer<ServedKeys, never, MediaRepo> = Layer.effect(
    ServedKeys,
    Effect.gen(function*() {
      const media = yield* MediaRepo
      const finalized = new Set<string>()
      return ServedKeys.of({
        isServed: (key) =>
          finalized.has(key) ? Effect.succeed(true) : Effect.map(media.findByKey(key), (record) => {
            if (Option.isNone(record)) return false
            if (finalized.size >= rememberedKeys) finalized.clear()
            finalized.add(key)
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
