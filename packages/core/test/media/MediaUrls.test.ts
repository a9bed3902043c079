import { assert, describe, it } from "@effect/vitest"
import { DateTime, Duration, Effect, Exit, Layer } from "effect"
import { TestClock } from "effect/testing"
import { FileUrl, MediaUrls, ObjectStore, reuseWindow } from "../../src/index.ts"

const layerWith = (ttl: Duration.Duration) =>
  MediaUrls.layer({ ttl }).pipe(Layer.provide([FileUrl.layer("https://cdn.example.com"), ObjectStore.layerMemory]))

describe("MediaUrls", () => {
  it("reuses a URL for a quarter of the TTL, at most 15 minutes; not below 4 seconds", () => {
    assert.strictEqual(reuseWindow(Duration.hours(4)), 15 * 60_000)
    assert.strictEqual(reuseWindow(Duration.minutes(1)), 15_000)
    assert.strictEqual(reuseWindow(Duration.seconds(3)), 0)
  })

  it.effect("a public key: its permanent URL, no expiry", () =>
    Effect.gen(function*() {
      const readable = yield* (yield* MediaUrls).urlOf("media/a b.mp4")
      assert.deepStrictEqual(readable, { url: "https://cdn.example.com/media/a%20b.mp4", expiresAt: null })
    }).pipe(Effect.provide(layerWith(Duration.hours(4)))))

  it.effect("a private key: one signed URL per window, expiring within the TTL and at most a window early", () =>
    Effect.gen(function*() {
      const urls = yield* MediaUrls
      yield* TestClock.adjust(Duration.minutes(20))
      const first = yield* urls.urlOf("private/media/v.mp4")
      // Issued as of 00:15, the window's start: valid until 04:15.
      assert.strictEqual(DateTime.formatIso(first.expiresAt!), "1970-01-01T04:15:00.000Z")
      yield* TestClock.adjust(Duration.minutes(9))
      assert.deepStrictEqual(yield* urls.urlOf("private/media/v.mp4"), first)
      yield* TestClock.adjust(Duration.minutes(1))
      const next = yield* urls.urlOf("private/media/v.mp4")
      assert.notStrictEqual(next.url, first.url)
      assert.strictEqual(DateTime.formatIso(next.expiresAt!), "1970-01-01T04:30:00.000Z")
    }).pipe(Effect.provide(layerWith(Duration.hours(4)))))

  it.effect("a TTL outside 1 second to 7 days is refused when the layer is built", () =>
    Effect.gen(function*() {
      for (const ttl of [Duration.days(8), Duration.millis(500)]) {
        const exit = yield* Effect.exit(Effect.provide(Effect.gen(function*() {
          return yield* MediaUrls
        }), layerWith(ttl)))
        assert.isTrue(Exit.isFailure(exit))
        assert.include(String(Exit.isFailure(exit) ? exit.cause : ""), "ttl must be 1 second to 7 days")
      }
    }))
})
