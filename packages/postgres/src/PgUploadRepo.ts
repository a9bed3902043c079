/**
 * `UploadRepo` and `MediaRepo` on PostgreSQL (and PGlite) through `effect/sql`.
 *
 * The media upsert is one `INSERT … ON CONFLICT (key) DO UPDATE`: concurrent finalizes
 * of one key serialize on the unique index, leave one row and all succeed.
 *
 * @since 0.1.0
 */
import {
  ConfirmedFile,
  type MediaDeletion,
  type MediaFileId,
  MediaFileRecord,
  MediaRepo,
  NewUploadIntent,
  RecordVariants,
  UploadIntent,
  UploadRepo
} from "@coursekit/core"
import { DateTime, Effect, Layer, Option, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { bounded, PgDeadline } from "./PgDeadline.ts"
import { PgSchema, tablesOf } from "./PgSchema.ts"
import { persistenceError, violatesForeignKey } from "./PgErrors.ts"

/** Rows decoded through the records' schemas: a row that does not decode is a store failure. */
const decodeIntents = Schema.decodeUnknownEffect(Schema.Array(UploadIntent))
const decodeMedia = Schema.decodeUnknownEffect(Schema.Array(MediaFileRecord))
const encodeIntent = Schema.encodeEffect(NewUploadIntent)
// Only the shape's keys are written: TypeScript lets objects with extra properties through.
const confirmedFields = RecordVariants.pick(ConfirmedFile)
const iso = (instant: DateTime.Utc) => DateTime.formatIso(instant)

/** The PostgreSQL upload intent repository; needs an `effect/sql` `SqlClient`. */
export const makeUploadRepo = () => Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const timeout = yield* PgDeadline
  const t = tablesOf(sql, yield* PgSchema)
  return UploadRepo.of({
    create: Effect.fn("UploadRepo.create")(function*(intent: NewUploadIntent) {
      const rows = yield* encodeIntent(intent).pipe(
        Effect.flatMap((row) => sql`INSERT INTO ${t.upload_intents} ${sql.insert(row)} RETURNING *`),
        Effect.flatMap(decodeIntents),
        Effect.mapError(persistenceError("record upload intent"))
      )
      return rows[0]!
    }, bounded(timeout, "record upload intent")),
    find: Effect.fn("UploadRepo.find")(function*(key: string) {
      const rows = yield* sql`SELECT * FROM ${t.upload_intents} WHERE key = ${key}`.pipe(
        Effect.flatMap(decodeIntents),
        Effect.mapError(persistenceError("read upload intent"))
      )
      return Option.fromNullishOr(rows[0])
    }, bounded(timeout, "read upload intent")),
    findMany: Effect.fn("UploadRepo.findMany")(function*(keys: ReadonlyArray<string>) {
      if (keys.length === 0) return []
      return yield* sql`SELECT * FROM ${t.upload_intents} WHERE ${sql.in("key", keys)}`.pipe(
        Effect.flatMap(decodeIntents),
        Effect.mapError(persistenceError("read upload intents"))
      )
    }, bounded(timeout, "read upload intents")),
    findByUploadId: Effect.fn("UploadRepo.findByUploadId")(function*(uploadId: string) {
      const rows = yield* sql`SELECT * FROM ${t.upload_intents} WHERE upload_id = ${uploadId}`.pipe(
        Effect.flatMap(decodeIntents),
        Effect.mapError(persistenceError("read multipart upload"))
      )
      return Option.fromNullishOr(rows[0])
    }, bounded(timeout, "read multipart upload")),
    markFinalized: Effect.fn("UploadRepo.markFinalized")(function*(key: string) {
      yield* sql`UPDATE ${t.upload_intents} SET finalized_at = now() WHERE key = ${key} AND finalized_at IS NULL`.pipe(
        Effect.mapError(persistenceError("mark upload finalized"))
      )
    }, bounded(timeout, "mark upload finalized")),
    listAbandoned: Effect.fn("UploadRepo.listAbandoned")(function*(before: DateTime.Utc, limit: number) {
      return yield* sql`
        SELECT * FROM ${t.upload_intents}
        WHERE finalized_at IS NULL AND expires_at < ${iso(before)}
        ORDER BY expires_at, key
        LIMIT ${limit}
      `.pipe(Effect.flatMap(decodeIntents), Effect.mapError(persistenceError("list abandoned uploads")))
    }, bounded(timeout, "list abandoned uploads")),
    delete: Effect.fn("UploadRepo.delete")(function*(key: string) {
      yield* sql`DELETE FROM ${t.upload_intents} WHERE key = ${key}`.pipe(Effect.mapError(persistenceError("delete upload intent")))
    }, bounded(timeout, "delete upload intent"))
  })
})

/** The PostgreSQL media file repository; needs an `effect/sql` `SqlClient`. */
export const makeMediaRepo = () => Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const timeout = yield* PgDeadline
  const t = tablesOf(sql, yield* PgSchema)
  return MediaRepo.of({
    upsert: Effect.fn("MediaRepo.upsert")(function*(file: ConfirmedFile) {
      const row = confirmedFields(file)
      const { key: _, ...fields } = row
      const rows = yield* sql`
        INSERT INTO ${t.media_files} ${sql.insert(row)}
        ON CONFLICT (key) DO UPDATE SET ${sql.update(fields)}, updated_at = now()
        RETURNING *
      `.pipe(Effect.flatMap(decodeMedia), Effect.mapError(persistenceError("record media file")))
      return rows[0]!
    }, bounded(timeout, "record media file")),
    findByKey: Effect.fn("MediaRepo.findByKey")(function*(key: string) {
      const rows = yield* sql`SELECT * FROM ${t.media_files} WHERE key = ${key}`.pipe(
        Effect.flatMap(decodeMedia),
        Effect.mapError(persistenceError("read media file"))
      )
      return Option.fromNullishOr(rows[0])
    }, bounded(timeout, "read media file")),
    existing: Effect.fn("MediaRepo.existing")(function*(keys: ReadonlyArray<string>) {
      if (keys.length === 0) return new Set<string>()
      const rows = yield* sql<{ key: string }>`SELECT key FROM ${t.media_files} WHERE ${sql.in("key", keys)}`.pipe(
        Effect.mapError(persistenceError("read media files"))
      )
      return new Set(rows.map((row) => row.key))
    }, bounded(timeout, "read media files")),
    list: Effect.fn("MediaRepo.list")(function*(request: { readonly cursor: MediaFileId | undefined; readonly limit: number }) {
      return yield* sql`
        SELECT * FROM ${t.media_files} WHERE id >= ${request.cursor ?? 0} ORDER BY id LIMIT ${request.limit}
      `.pipe(Effect.flatMap(decodeMedia), Effect.mapError(persistenceError("list media files")))
    }, bounded(timeout, "list media files")),
    delete: Effect.fn("MediaRepo.delete")(function*(key: string) {
      // The lessons' reference refuses it while a lesson plays the file, committed or not.
      return yield* sql`DELETE FROM ${t.media_files} WHERE key = ${key} RETURNING key`.pipe(
        Effect.map((rows): MediaDeletion => rows.length === 0 ? "absent" : "deleted"),
        Effect.catchIf((error) => violatesForeignKey(error, "lessons_video_key_fkey"), () => Effect.succeed<MediaDeletion>("in-use")),
        Effect.mapError(persistenceError("delete media file"))
      )
    }, bounded(timeout, "delete media file"))
  })
})

export const layerUploadRepo: Layer.Layer<UploadRepo, never, SqlClient.SqlClient> = Layer.effect(UploadRepo, makeUploadRepo())
export const layerMediaRepo: Layer.Layer<MediaRepo, never, SqlClient.SqlClient> = Layer.effect(MediaRepo, makeMediaRepo())
/** Both repositories. */
export const layer: Layer.Layer<UploadRepo | MediaRepo, never, SqlClient.SqlClient> = Layer.mergeAll(layerUploadRepo, layerMediaRepo)
