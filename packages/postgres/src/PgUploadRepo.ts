/**
 * `UploadRepo` and `MediaRepo` on PostgreSQL (and PGlite) through `effect/sql`.
 *
 * The media upsert is one `INSERT … ON CONFLICT (key) DO UPDATE`: concurrent finalizes
 * of one key serialize on the unique index, leave one row and all succeed.
 *
 * @since 0.1.0
 */
import {
  type ConfirmedFile,
  type CourseId,
  type MediaFileId,
  type MediaFileRecord,
  MediaRepo,
  type NewUploadIntent,
  type UploadIntent,
  type UploadPurpose,
  UploadRepo
} from "@coursekit/core"
import { DateTime, Effect, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import { bounded, PgDeadline } from "./PgDeadline.ts"
import { persistenceError } from "./PgErrors.ts"

interface IntentRow {
  readonly key: string
  readonly purpose: UploadPurpose
  readonly course_id: number | null
  readonly file_name: string
  readonly content_type: string
  readonly size_bytes: string | number | null
  readonly expires_at: Date | string
  readonly created_at: Date | string
  readonly finalized_at: Date | string | null
}

interface MediaRow {
  readonly id: string | number
  readonly key: string
  readonly name: string
  readonly size_bytes: string | number
  readonly content_type: string
  readonly created_at: Date | string
  readonly updated_at: Date | string
}

// bigint columns arrive as strings; sizes stay below 2^53 (limits are far smaller).
const toIntent = (row: IntentRow): UploadIntent => ({
  key: row.key,
  purpose: row.purpose,
  course_id: row.course_id as CourseId | null,
  file_name: row.file_name,
  content_type: row.content_type,
  size_bytes: row.size_bytes === null ? null : Number(row.size_bytes),
  expires_at: DateTime.makeUnsafe(row.expires_at),
  created_at: DateTime.makeUnsafe(row.created_at),
  finalized_at: row.finalized_at === null ? null : DateTime.makeUnsafe(row.finalized_at)
})

const toMedia = (row: MediaRow): MediaFileRecord => ({
  id: Number(row.id) as MediaFileId,
  key: row.key,
  name: row.name,
  size_bytes: Number(row.size_bytes),
  content_type: row.content_type,
  created_at: DateTime.makeUnsafe(row.created_at),
  updated_at: DateTime.makeUnsafe(row.updated_at)
})


const iso = (instant: DateTime.Utc) => DateTime.formatIso(instant)

/** The PostgreSQL upload intent repository; needs an `effect/sql` `SqlClient`. */
export const makeUploadRepo = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const timeout = yield* PgDeadline
  return UploadRepo.of({
    create: Effect.fn("UploadRepo.create")(function*(intent: NewUploadIntent) {
      const rows = yield* sql<IntentRow>`
        INSERT INTO upload_intents (key, purpose, course_id, file_name, content_type, size_bytes, expires_at)
        VALUES (${intent.key}, ${intent.purpose}, ${intent.course_id}, ${intent.file_name}, ${intent.content_type},
                ${intent.size_bytes}, ${iso(intent.expires_at)})
        RETURNING *
      `.pipe(Effect.mapError(persistenceError("record upload intent")))
      return toIntent(rows[0]!)
    }, bounded(timeout, "record upload intent")),
    find: Effect.fn("UploadRepo.find")(function*(key: string) {
      const rows = yield* sql<IntentRow>`SELECT * FROM upload_intents WHERE key = ${key}`.pipe(
        Effect.mapError(persistenceError("read upload intent"))
      )
      return Option.map(Option.fromNullishOr(rows[0]), toIntent)
    }, bounded(timeout, "read upload intent")),
    findMany: Effect.fn("UploadRepo.findMany")(function*(keys: ReadonlyArray<string>) {
      if (keys.length === 0) return []
      const rows = yield* sql<IntentRow>`SELECT * FROM upload_intents WHERE ${sql.in("key", keys)}`.pipe(
        Effect.mapError(persistenceError("read upload intents"))
      )
      return rows.map(toIntent)
    }, bounded(timeout, "read upload intents")),
    markFinalized: Effect.fn("UploadRepo.markFinalized")(function*(key: string) {
      yield* sql`UPDATE upload_intents SET finalized_at = now() WHERE key = ${key} AND finalized_at IS NULL`.pipe(
        Effect.mapError(persistenceError("mark upload finalized"))
      )
    }, bounded(timeout, "mark upload finalized")),
    listAbandoned: Effect.fn("UploadRepo.listAbandoned")(function*(before: DateTime.Utc, limit: number) {
      const rows = yield* sql<IntentRow>`
        SELECT * FROM upload_intents
        WHERE finalized_at IS NULL AND expires_at < ${iso(before)}
        ORDER BY expires_at, key
        LIMIT ${limit}
      `.pipe(Effect.mapError(persistenceError("list abandoned uploads")))
      return rows.map(toIntent)
    }, bounded(timeout, "list abandoned uploads")),
    delete: Effect.fn("UploadRepo.delete")(function*(key: string) {
      yield* sql`DELETE FROM upload_intents WHERE key = ${key}`.pipe(Effect.mapError(persistenceError("delete upload intent")))
    }, bounded(timeout, "delete upload intent"))
  })
})

/** The PostgreSQL media file repository; needs an `effect/sql` `SqlClient`. */
export const makeMediaRepo = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const timeout = yield* PgDeadline
  return MediaRepo.of({
    upsert: Effect.fn("MediaRepo.upsert")(function*(file: ConfirmedFile) {
      const rows = yield* sql<MediaRow>`
        INSERT INTO media_files (key, name, size_bytes, content_type)
        VALUES (${file.key}, ${file.name}, ${file.size_bytes}, ${file.content_type})
        ON CONFLICT (key) DO UPDATE SET
          name = EXCLUDED.name,
          size_bytes = EXCLUDED.size_bytes,
          content_type = EXCLUDED.content_type,
          updated_at = now()
        RETURNING *
      `.pipe(Effect.mapError(persistenceError("record media file")))
      return toMedia(rows[0]!)
    }, bounded(timeout, "record media file")),
    findByKey: Effect.fn("MediaRepo.findByKey")(function*(key: string) {
      const rows = yield* sql<MediaRow>`SELECT * FROM media_files WHERE key = ${key}`.pipe(
        Effect.mapError(persistenceError("read media file"))
      )
      return Option.map(Option.fromNullishOr(rows[0]), toMedia)
    }, bounded(timeout, "read media file")),
    existing: Effect.fn("MediaRepo.existing")(function*(keys: ReadonlyArray<string>) {
      if (keys.length === 0) return new Set<string>()
      const rows = yield* sql<{ key: string }>`SELECT key FROM media_files WHERE ${sql.in("key", keys)}`.pipe(
        Effect.mapError(persistenceError("read media files"))
      )
      return new Set(rows.map((row) => row.key))
    }, bounded(timeout, "read media files")),
    list: Effect.fn("MediaRepo.list")(function*(request: { readonly cursor: MediaFileId | undefined; readonly limit: number }) {
      const rows = yield* sql<MediaRow>`
        SELECT * FROM media_files WHERE id >= ${request.cursor ?? 0} ORDER BY id LIMIT ${request.limit}
      `.pipe(Effect.mapError(persistenceError("list media files")))
      return rows.map(toMedia)
    }, bounded(timeout, "list media files"))
  })
})

export const layerUploadRepo: Layer.Layer<UploadRepo, never, SqlClient.SqlClient> = Layer.effect(UploadRepo, makeUploadRepo)
export const layerMediaRepo: Layer.Layer<MediaRepo, never, SqlClient.SqlClient> = Layer.effect(MediaRepo, makeMediaRepo)
/** Both repositories. */
export const layer: Layer.Layer<UploadRepo | MediaRepo, never, SqlClient.SqlClient> = Layer.mergeAll(layerUploadRepo, layerMediaRepo)
