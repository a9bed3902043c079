/**
 * The conformance suites of the upload ports, `UploadRepo` and `MediaRepo`. Each test
 * works on keys of its own (random uuids), so adapters can share one database.
 *
 * @since 0.1.0
 */
import { assert, describe, layer } from "@effect/vitest"
import { DateTime, Duration, Effect, type Layer, Option } from "effect"
import { MediaRepo } from "../MediaRepo.ts"
import type { MediaFileId } from "../Upload.ts"
import { UploadRepo } from "../UploadRepo.ts"

const randomKey = (prefix = "media/") => `${prefix}${globalThis.crypto.randomUUID()}.png`

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
            expires_at: expiresAt
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
          yield* repo.create({ key, purpose: "media", course_id: null, file_name: "a.png", content_type: "image/png", size_bytes: null, expires_at: expiresAt })
          yield* repo.markFinalized(key)
          const first = Option.getOrThrow(yield* repo.find(key)).finalized_at
          assert.isNotNull(first)
          yield* Effect.sleep(Duration.millis(20))
          yield* repo.markFinalized(key)
          assert.deepStrictEqual(Option.getOrThrow(yield* repo.find(key)).finalized_at, first)
          const many = yield* repo.findMany([key, randomKey()])
          assert.deepStrictEqual(many.map((intent) => intent.key), [key])
          assert.deepStrictEqual(yield* repo.findMany([]), [])
        }))

      it.effect("listAbandoned returns unfinalized intents expired before the instant, oldest first", () =>
        Effect.gen(function*() {
          const repo = yield* UploadRepo
          // Far in the past, so other tests' intents (expiring around now) stay out of the way.
          const base = DateTime.makeUnsafe("2001-01-01T00:00:00Z")
          const at = (minutes: number) => DateTime.addDuration(base, Duration.minutes(minutes))
          const keys = [randomKey(), randomKey(), randomKey(), randomKey()]
          for (const [index, key] of keys.entries()) {
            yield* repo.create({ key, purpose: "media", course_id: null, file_name: "a.png", content_type: "image/png", size_bytes: null, expires_at: at(10 - index) })
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

/** Registers the `MediaRepo` conformance tests for `repoLayer` under `name`. */
export const mediaRepoSuite = <E>(name: string, repoLayer: Layer.Layer<MediaRepo, E>): void => {
  describe(`MediaRepo conformance: ${name}`, () => {
    layer(repoLayer, { timeout: 60_000, excludeTestServices: true })((it) => {
      it.effect("upsert records a file; a second upsert of the key updates it and keeps id and created_at", () =>
        Effect.gen(function*() {
          const repo = yield* MediaRepo
          const key = randomKey()
          const first = yield* repo.upsert({ key, name: "a.png", size_bytes: 10, content_type: "image/png" })
          assert.strictEqual(first.key, key)
          assert.strictEqual(first.size_bytes, 10)
          const second = yield* repo.upsert({ key, name: "a.png", size_bytes: 12, content_type: "image/png" })
          assert.strictEqual(second.id, first.id)
          assert.strictEqual(second.size_bytes, 12)
          assert.strictEqual(DateTime.toEpochMillis(second.created_at), DateTime.toEpochMillis(first.created_at))
          assert.deepStrictEqual(Option.getOrThrow(yield* repo.findByKey(key)), second)
          assert.deepStrictEqual(yield* repo.findByKey(randomKey()), Option.none())
        }))

      it.effect("50 concurrent upserts of one key leave one record and all succeed", () =>
        Effect.gen(function*() {
          const repo = yield* MediaRepo
          const key = randomKey()
          const records = yield* Effect.forEach(
            Array.from({ length: 50 }, (_, index) => index),
            (index) => repo.upsert({ key, name: "same.png", size_bytes: 100 + index, content_type: "image/png" }),
            { concurrency: "unbounded" }
          )
          assert.strictEqual(new Set(records.map((record) => record.id)).size, 1)
          const page = yield* repo.list({ cursor: records[0]!.id, limit: 50 })
          assert.strictEqual(page.filter((record) => record.key === key).length, 1)
        }))

      it.effect("existing names the recorded keys; list pages by ascending id from the cursor", () =>
        Effect.gen(function*() {
          const repo = yield* MediaRepo
          const keys = [randomKey(), randomKey(), randomKey()]
          const ids: Array<MediaFileId> = []
          for (const key of keys) ids.push((yield* repo.upsert({ key, name: "x.png", size_bytes: 1, content_type: "image/png" })).id)
          assert.isBelow(ids[0]!, ids[1]!)
          assert.isBelow(ids[1]!, ids[2]!)
          const absent = randomKey()
          assert.deepStrictEqual([...(yield* repo.existing([...keys, absent]))].sort(), [...keys].sort())
          assert.strictEqual((yield* repo.existing([])).size, 0)
          const page = yield* repo.list({ cursor: ids[1], limit: 50 })
          assert.deepStrictEqual(page.map((record) => record.key).filter((key) => keys.includes(key)), [keys[1], keys[2]])
          // From the cursor on, ascending, each once.
          assert.strictEqual(page[0]!.id, ids[1])
          assert.deepStrictEqual(page.map((record) => record.id), [...new Set(page.map((record) => record.id))].sort((a, b) => a - b))
          assert.strictEqual((yield* repo.list({ cursor: ids[0], limit: 1 })).length, 1)
        }))
    })
  })
}
