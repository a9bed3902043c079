/**
 * The media file repository port: one record per confirmed upload, keyed by storage key
 * (§2.8). Every finalized file is recorded here, course thumbnails included, so it is
 * the truth the sweep reconciles storage against. Adapters pass the conformance suite
 * in `@coursekit/core/testing`.
 *
 * @since 0.1.0
 */
import { Context, DateTime, Effect, Layer, Option, Ref } from "effect"
import type { PersistenceError } from "../shared/PersistenceError.ts"
import { type ConfirmedFile, isKeptBy, type MediaFileId, type MediaFileRecord, type MediaPageRequest } from "./Upload.ts"

/** What `MediaRepo.delete` did. */
export type MediaDeletion = "deleted" | "absent" | "in-use"

/**
 * Stores media file records.
 *
 * - `upsert` is keyed by `key` and atomic: any number of concurrent upserts of one key
 *   leave one record and all succeed; the id and `created_at` of the first stay.
 * - `existing` returns which of `keys` have a record.
 * - `list` returns records with `id >= cursor` in ascending id order, at most `limit`,
 *   only those of `kind` (the content type's top level) and `visibility` (the key's
 *   prefix) when given.
 * - `delete` removes the record of `key`: `"deleted"`, or `"absent"` when there was none.
 *   A store that references media from lessons (PostgreSQL) answers `"in-use"` and keeps
 *   the record while a lesson's `video_key` names it, also when the lesson was written
 *   concurrently.
 */
/** The in-memory layer's state. */
type State = { readonly nextId: number; readonly files: Map<string, MediaFileRecord> }

export class MediaRepo extends Context.Service<MediaRepo, {
  upsert(file: ConfirmedFile): Effect.Effect<MediaFileRecord, PersistenceError>
  findByKey(key: string): Effect.Effect<Option.Option<MediaFileRecord>, PersistenceError>
  existing(keys: ReadonlyArray<string>): Effect.Effect<ReadonlySet<string>, PersistenceError>
  list(request: MediaPageRequest): Effect.Effect<ReadonlyArray<MediaFileRecord>, PersistenceError>
  delete(key: string): Effect.Effect<MediaDeletion, PersistenceError>
}>()("@coursekit/core/MediaRepo") {
  /** An in-memory repository: for tests and for trying the core without a database. */
  static readonly layerMemory: Layer.Layer<MediaRepo> = Layer.effect(
    MediaRepo,
    Effect.gen(function*() {
      const state = yield* Ref.make<State>({ nextId: 1, files: new Map<string, MediaFileRecord>() })
      return MediaRepo.of({
        upsert: Effect.fn("MediaRepo.upsert")(function*(file: ConfirmedFile) {
          const now = yield* DateTime.now
          // Ref.modify makes the read-decide-write step atomic, as the port requires.
          return yield* Ref.modify(state, ({ nextId, files }) => {
            const existing = files.get(file.key)
            const record: MediaFileRecord = existing === undefined
              ? { ...file, id: nextId as MediaFileId, created_at: now, updated_at: now }
              : { ...existing, ...file, updated_at: now }
            return [record, { nextId: existing === undefined ? nextId + 1 : nextId, files: new Map(files).set(file.key, record) }]
          })
        }),
        findByKey: (key) => Effect.map(Ref.get(state), ({ files }) => Option.fromNullishOr(files.get(key))),
        existing: (keys) => Effect.map(Ref.get(state), ({ files }) => new Set(keys.filter((key) => files.has(key)))),
        list: (request) =>
          Effect.map(Ref.get(state), ({ files }) =>
            [...files.values()]
              .filter((file) => (request.cursor === undefined || file.id >= request.cursor) && isKeptBy(request, file))
              .sort((a, b) => a.id - b.id)
              .slice(0, request.limit)),
        delete: (key) =>
          Ref.modify(state, (current): [MediaDeletion, State] => {
            if (!current.files.has(key)) return ["absent", current]
            const files = new Map(current.files)
            files.delete(key)
            return ["deleted", { ...current, files }]
          })
      })
    })
  )
}
