/**
 * The upload intent repository port: the keys this service issued, what for, and until
 * when. Finalize accepts only keys found here; the sweep finds abandoned ones here.
 * Adapters pass the conformance suite in `@coursekit/core/testing`.
 *
 * @since 0.1.0
 */
import { Context, DateTime, Effect, Layer, Option, Ref } from "effect"
import type { PersistenceError } from "../shared/PersistenceError.ts"
import type { NewUploadIntent, UploadIntent } from "./Upload.ts"

/**
 * Stores upload intents, keyed by storage key (keys are unique: they hold a uuid).
 *
 * - `markFinalized` sets `finalized_at` once; later calls keep the first instant.
 * - `listAbandoned` returns intents never finalized whose expiry is before `before`,
 *   oldest expiry first, at most `limit`.
 * - `findMany` returns the intents of those of `keys` that exist (any order).
 * - `findByUploadId` finds a multipart upload's intent by its `upload_id` (unique).
 * - `delete` of an absent key succeeds.
 */
export class UploadRepo extends Context.Service<UploadRepo, {
  create(intent: NewUploadIntent): Effect.Effect<UploadIntent, PersistenceError>
  find(key: string): Effect.Effect<Option.Option<UploadIntent>, PersistenceError>
  findMany(keys: ReadonlyArray<string>): Effect.Effect<ReadonlyArray<UploadIntent>, PersistenceError>
  findByUploadId(uploadId: string): Effect.Effect<Option.Option<UploadIntent>, PersistenceError>
  markFinalized(key: string): Effect.Effect<void, PersistenceError>
  listAbandoned(before: DateTime.Utc, limit: number): Effect.Effect<ReadonlyArray<UploadIntent>, PersistenceError>
  delete(key: string): Effect.Effect<void, PersistenceError>
}>()("@coursekit/core/UploadRepo") {
  /** An in-memory repository: for tests and for trying the core without a database. */
  static readonly layerMemory: Layer.Layer<UploadRepo> = Layer.effect(
    UploadRepo,
    Effect.gen(function*() {
      const intents = yield* Ref.make(new Map<string, UploadIntent>())
      return UploadRepo.of({
        create: Effect.fn("UploadRepo.create")(function*(intent: NewUploadIntent) {
          const record: UploadIntent = { ...intent, created_at: yield* DateTime.now, finalized_at: null }
          yield* Ref.update(intents, (map) => new Map(map).set(intent.key, record))
          return record
        }),
        find: (key) => Effect.map(Ref.get(intents), (map) => Option.fromNullishOr(map.get(key))),
        findByUploadId: (uploadId) =>
          Effect.map(Ref.get(intents), (map) => Option.fromNullishOr([...map.values()].find((intent) => intent.upload_id === uploadId))),
        findMany: (keys) =>
          Effect.map(Ref.get(intents), (map) => keys.flatMap((key) => map.has(key) ? [map.get(key)!] : [])),
        markFinalized: Effect.fn("UploadRepo.markFinalized")(function*(key: string) {
          const now = yield* DateTime.now
          yield* Ref.update(intents, (map) => {
            const intent = map.get(key)
            if (intent === undefined || intent.finalized_at !== null) return map
            return new Map(map).set(key, { ...intent, finalized_at: now })
          })
        }),
        listAbandoned: (before, limit) =>
          Effect.map(Ref.get(intents), (map) =>
            [...map.values()]
              .filter((intent) => intent.finalized_at === null && DateTime.isLessThan(intent.expires_at, before))
              .sort((a, b) => DateTime.toEpochMillis(a.expires_at) - DateTime.toEpochMillis(b.expires_at))
              .slice(0, limit)),
        delete: (key) =>
          Ref.update(intents, (map) => {
            const next = new Map(map)
            next.delete(key)
            return next
          })
      })
    })
  )
}
