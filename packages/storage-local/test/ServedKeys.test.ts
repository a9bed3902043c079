import { MediaRepo } from "@coursekit/core"
import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Layer } from "effect"
import { TestClock } from "effect/testing"
import { ServedKeys } from "../src/index.ts"

const layer = ServedKeys.layerFinalized.pipe(Layer.provideMerge(MediaRepo.layerMemory))

describe("ServedKeys.layerFinalized", () => {
  it.effect("serves what the library records; a deleted file stops being served within a minute", () =>
    Effect.gen(function*() {
      const served = yield* ServedKeys
      const media = yield* MediaRepo
      assert.isFalse(yield* served.isServed("media/a.png"))
      yield* media.upsert({ key: "media/a.png", name: "a.png", size_bytes: 1, content_type: "image/png" })
      assert.isTrue(yield* served.isServed("media/a.png"))
      assert.strictEqual(yield* media.delete("media/a.png"), "deleted")
      // Remembered for a minute (the object is normally gone at once; this bounds the case where it is not).
      yield* TestClock.adjust(Duration.seconds(59))
      assert.isTrue(yield* served.isServed("media/a.png"))
      yield* TestClock.adjust(Duration.seconds(2))
      assert.isFalse(yield* served.isServed("media/a.png"))
    }).pipe(Effect.provide(layer)))
})
