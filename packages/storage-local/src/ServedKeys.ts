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

export class ServedKeys extends Context.Service<ServedKeys, {
  /** Whether the file under `key` may be served. */
  isServed(key: string): Effect.Effect<boolean, PersistenceError>
}>()("@coursekit/storage-local/ServedKeys") {
  /** Files whose upload was finalized: those the media library records. */
  static readonly layerFinalized: Layer.Layer<ServedKeys, never, MediaRepo> = Layer.effect(
    ServedKeys,
    Effect.gen(function*() {
      const media = yield* MediaRepo
      return ServedKeys.of({
        isServed: (key) => Effect.map(media.findByKey(key), Option.isSome)
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
