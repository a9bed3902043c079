/**
 * The conformance suite of the `UploadRepo` port. Each test works on keys of its own
 * (random uuids), so adapters can share one database.
 *
 * @since 0.1.0
 */
import { assert, describe, layer } from "@effect/vitest"
import { DateTime, Duration, Effect, type Layer, Option } from "effect"
import { UploadRepo } from "../../media/UploadRepo.ts"

const randomKey = (prefix = "media/") => `${prefix}${globalThis.crypto.randomUUID()}.png`

/** The multipart fields of a single-PUT intent. */
const single = { upload_id: null, store_upload_id: null, part_size: null }

/** Registers the `UploadRepo` conformance tests for `repoLayer` under `name`. */
export const uploadRepoSuite = <E>(name: string, repoLayer: Layer.Layer<UploadRepo, E>): void => {
  describe(`UploadRepo conformance: ${name}`, () => {
    layer(repoLayer, { timeout: 60_000, excludeTestServices: true })((it) => {
      it.effect("create records an intent that find returns; an unknown key is None", () =>
        Effect.gen(function*() {
          const repo = yield* UploadRepo
          const key = randomKey()
          const expiresAt = DateTime.addDuration(yield* DateTime.now, Duration.minutes(5))
          const created = yield* repo.create({
            key,
            purpose: "media",
            course_id: null,
            file_name: "clip.mp4",
            content_type: "video/mp4",
            size_bytes: 42,
            expires_at: expiresAt,
            ...single
          })
          assert.strictEqual(created.key, key)
          assert.isNull(created.finalized_at)
          const found = Option.getOrThrow(yield* repo.find(key))
          assert.strictEqual(found.purpose, "media")
          assert.isNull(found.course_id)
          assert.strictEqual(found.file_name, "clip.mp4")
          assert.strictEqual(found.content_type, "video/mp4")
          assert.strictEqual(found.size_bytes, 42)
          assert.strictEqual(DateTime.toEpochMillis(found.expires_at), DateTime.toEpochMillis(expiresAt))
          assert.deepStrictEqual(yield* repo.find(randomKey()), Option.none())
        }))

      it.effect("markFinalized sets the instant once; findMany returns the existing ones", () =>
        Effect.gen(function*() {
          const repo = yield* UploadRepo
          const key = randomKey()
          const expiresAt = DateTime.addDuration(yield* DateTime.now, Duration.minutes(5))
          yield* repo.create({ key, purpose: "media", course_id: null, file_name: "a.png", content_type: "image/png", size_bytes: null, expires_at: expiresAt, ...single })
          yield* repo.markFinalized(key)
          const first = Option.getOrThrow(yield* repo.find(key)).finalized_at
          assert.isNotNull(first)
          yield* Effect.sleep(Duration.millis(20))
          yield* repo.markFinalized(key)
          assert.deepStrictEqual(Option.getOrThrow(yield* repo.find(key)).finalized_at, first)
          const many = yield* repo.findMany([key, randomKey()])
          assert.deepStrictEqual(many.map((intent) => intent.key), [key])
          // No declared size reads back as none, never as 0 bytes.
          assert.isNull(many[0]!.size_bytes)
          assert.isNull(Option.getOrThrow(yield* repo.find(key)).size_bytes)
          assert.deepStrictEqual(yield* repo.findMany([]), [])
        }))

      it.effect("a multipart intent keeps its upload ids and part size; findByUploadId finds it, and only it", () =>
        Effect.gen(function*() {
          const repo = yield* UploadRepo
          const key = randomKey("private/media/")
          const uploadId = globalThis.crypto.randomUUID()
          const expiresAt = DateTime.addDuration(yield* DateTime.now, Duration.hours(24))
          yield* repo.create({
            key,
            purpose: "media",
            course_id: null,
            file_name: "lecture.mp4",
            content_type: "video/mp4",
            size_bytes: 6 * 1024 * 1024 * 1024,
            expires_at: expiresAt,
            upload_id: uploadId,
            store_upload_id: "store-id-1",
            part_size: 8 * 1024 * 1024
          })
          const found = Option.getOrThrow(yield* repo.findByUploadId(uploadId))
          assert.deepStrictEqual(
            [found.key, found.upload_id, found.store_upload_id, found.part_size, found.size_bytes],
            [key, uploadId, "store-id-1", 8 * 1024 * 1024, 6 * 1024 * 1024 * 1024]
          )
          assert.deepStrictEqual(yield* repo.findByUploadId(globalThis.crypto.randomUUID()), Option.none())
          yield* repo.delete(key)
          assert.deepStrictEqual(yield* repo.findByUploadId(uploadId), Option.none())
        }))

      it.effect("listAbandoned returns unfinalized intents expired before the instant, oldest first", () =>
        Effect.gen(function*() {
          const repo = yield* UploadRepo
          // Far in the past, so other tests' intents (expiring around now) stay out of the way.
          const base = DateTime.makeUnsafe("2001-01-01T00:00:00Z")
          const at = (minutes: number) => DateTime.addDuration(base, Duration.minutes(minutes))
          const keys = [randomKey(), randomKey(), randomKey(), randomKey()]
          for (const [index, key] of keys.entries()) {
            yield* repo.create({ key, purpose: "media", course_id: null, file_name: "a.png", content_type: "image/png", size_bytes: null, expires_at: at(10 - index), ...single })
          }
          yield* repo.markFinalized(keys[1]!)
          const abandoned = (yield* repo.listAbandoned(at(9), 100)).filter((intent) => keys.includes(intent.key))
          // keys[3] expired at 7, keys[2] at 8; keys[1] is finalized; keys[0] expired at 10.
          assert.deepStrictEqual(abandoned.map((intent) => intent.key), [keys[3], keys[2]])
          for (const key of keys) yield* repo.delete(key)
          assert.deepStrictEqual(yield* repo.find(keys[0]!), Option.none())
          yield* repo.delete(keys[0]!)
        }))
    })
  })
}
