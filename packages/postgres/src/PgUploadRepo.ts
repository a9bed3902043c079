/**
 * `UploadRepo` on PostgreSQL (and PGlite) through `effect/sql`: the intents a signed
 * upload URL records until the upload is finalized.
 *
 * @since 0.1.0
 */
import { type MediaRepo, NewUploadIntent, UploadIntent, UploadRepo } from "@coursekit/core"
import { DateTime, Effect, Layer, Option, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { bounded, PgDeadline } from "./PgDeadline.ts"
import { PgSchema, tablesOf } from "./PgSchema.ts"
import { layer as layerMediaRepo, makeMediaRepo } from "./PgMediaRepo.ts"
import { storeFailures } from "./PgErrors.ts"

/** Rows decoded through the records' schemas: a row that does not decode is a store failure. */
const decodeIntents = Schema.decodeUnknownEffect(Schema.Array(UploadIntent))
const encodeIntent = Schema.encodeEffect(NewUploadIntent)
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
        storeFailures("record upload intent")
      )
      return rows[0]!
    }, bounded(timeout, "record upload intent")),
    find: Effect.fn("UploadRepo.find")(function*(key: string) {
      const rows = yield* sql`SELECT * FROM ${t.upload_intents} WHERE key = ${key}`.pipe(
        Effect.flatMap(decodeIntents),
        storeFailures("read upload intent")
      )
      return Option.fromNullishOr(rows[0])
    }, bounded(timeout, "read upload intent")),
    findMany: Effect.fn("UploadRepo.findMany")(function*(keys: ReadonlyArray<string>) {
      if (keys.length === 0) return []
      return yield* sql`SELECT * FROM ${t.upload_intents} WHERE ${sql.in("key", keys)}`.pipe(
        Effect.flatMap(decodeIntents),
        storeFailures("read upload intents")
      )
    }, bounded(timeout, "read upload intents")),
    findByUploadId: Effect.fn("UploadRepo.findByUploadId")(function*(uploadId: string) {
      const rows = yield* sql`SELECT * FROM ${t.upload_intents} WHERE upload_id = ${uploadId}`.pipe(
        Effect.flatMap(decodeIntents),
        storeFailures("read multipart upload")
      )
      return Option.fromNullishOr(rows[0])
    }, bounded(timeout, "read multipart upload")),
    markFinalized: Effect.fn("UploadRepo.markFinalized")(function*(key: string) {
      yield* sql`UPDATE ${t.upload_intents} SET finalized_at = now() WHERE key = ${key} AND finalized_at IS NULL`.pipe(
        storeFailures("mark upload finalized")
      )
    }, bounded(timeout, "mark upload finalized")),
    listAbandoned: Effect.fn("UploadRepo.listAbandoned")(function*(before: DateTime.Utc, limit: number) {
      return yield* sql`
        SELECT * FROM ${t.upload_intents}
        WHERE finalized_at IS NULL AND expires_at < ${iso(before)}
        ORDER BY expires_at, key
        LIMIT ${limit}
      `.pipe(Effect.flatMap(decodeIntents), storeFailures("list abandoned uploads"))
    }, bounded(timeout, "list abandoned uploads")),
    delete: Effect.fn("UploadRepo.delete")(function*(key: string) {
      yield* sql`DELETE FROM ${t.upload_intents} WHERE key = ${key}`.pipe(storeFailures("delete upload intent"))
    }, bounded(timeout, "delete upload intent"))
  })
})

export const layerUploadRepo: Layer.Layer<UploadRepo, never, SqlClient.SqlClient> = Layer.effect(UploadRepo, makeUploadRepo())
/** Both repositories, `UploadRepo` and `PgMediaRepo`'s `MediaRepo`: the two a host's uploads need. */
export const layer: Layer.Layer<UploadRepo | MediaRepo, never, SqlClient.SqlClient> = Layer.mergeAll(layerUploadRepo, layerMediaRepo)

/** @deprecated since 0.3.0: `PgMediaRepo.makeMediaRepo`, where `MediaRepo` now lives. */
export { makeMediaRepo }
/** @deprecated since 0.3.0: `PgMediaRepo.layer`. */
export { layerMediaRepo }
