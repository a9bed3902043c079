/**
 * The conformance suite of the `MediaRepo` port. Each test works on keys of its own
 * (random uuids), so adapters can share one database.
 *
 * @since 0.1.0
 */
import { assert, describe, layer } from "@effect/vitest"
import { DateTime, Effect, type Layer, Option } from "effect"
import { MediaRepo } from "../../media/MediaRepo.ts"
import type { MediaFileId } from "../../media/Upload.ts"

const randomKey = () => `media/${globalThis.crypto.randomUUID()}.png`

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

      it.effect("list keeps only the files of a kind (the content type's top level) and of a visibility (the key's prefix), in id order, limit counting kept files only", () =>
        Effect.gen(function*() {
          const repo = yield* MediaRepo
          const id = globalThis.crypto.randomUUID()
          const files = [
            { key: `media/${id}-1.png`, name: "cover.png", content_type: "image/png" },
            { key: `private/media/${id}-2.mp4`, name: "paid.mp4", content_type: "video/mp4" },
            { key: `media/${id}-3.mp4`, name: "teaser.mp4", content_type: "video/mp4" },
            { key: `private/media/${id}-4.webm`, name: "paid-2.webm", content_type: "video/webm" },
            { key: `private/media/${id}-5.png`, name: "handout.png", content_type: "image/png" }
          ]
          const first = (yield* Effect.forEach(files, (file) => repo.upsert({ ...file, size_bytes: 1 })))[0]!.id
          const mine = (page: ReadonlyArray<{ readonly key: string; readonly name: string }>) =>
            page.filter((record) => record.key.includes(id)).map((record) => record.name)
          const names = (filter: Omit<Parameters<MediaRepo["Service"]["list"]>[0], "cursor" | "limit">) =>
            Effect.map(repo.list({ ...filter, cursor: first, limit: 1000 }), mine)
          assert.deepStrictEqual(yield* names({}), ["cover.png", "paid.mp4", "teaser.mp4", "paid-2.webm", "handout.png"])
          assert.deepStrictEqual(yield* names({ kind: "video" }), ["paid.mp4", "teaser.mp4", "paid-2.webm"])
          assert.deepStrictEqual(yield* names({ kind: "image" }), ["cover.png", "handout.png"])
          assert.deepStrictEqual(yield* names({ visibility: "private" }), ["paid.mp4", "paid-2.webm", "handout.png"])
          assert.deepStrictEqual(yield* names({ visibility: "public" }), ["cover.png", "teaser.mp4"])
          assert.deepStrictEqual(yield* names({ kind: "video", visibility: "private" }), ["paid.mp4", "paid-2.webm"])
          // The limit counts kept files: the first private video, then (from the second's id) the second.
          const [onePage] = yield* repo.list({ kind: "video", visibility: "private", cursor: first, limit: 1 })
          assert.strictEqual(onePage!.name, "paid.mp4")
        }))
    })
  })
}
