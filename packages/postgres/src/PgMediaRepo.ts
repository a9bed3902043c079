/**
 * `MediaRepo` on PostgreSQL (and PGlite) through `effect/sql`: the finalized files.
 *
 * The upsert is one `INSERT … ON CONFLICT (key) DO UPDATE`: concurrent finalizes of one
 * key serialize on the unique index, leave one row and all succeed.
 *
 * @since 0.3.0
 */
import { ConfirmedFile, type MediaDeletion, MediaFileRecord, type MediaPageRequest, MediaRepo, privateKeyPrefix, RecordVariants } from "@coursekit/core"
import { Effect, Layer, Option, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { bounded, PgDeadline } from "./PgDeadline.ts"
import { storeFailures, violatesForeignKey } from "./PgErrors.ts"
import { PgSchema, tablesOf } from "./PgSchema.ts"

/** Rows decoded through the record's schema: a row that does not decode is a store failure. */
const decodeMedia = Schema.decodeUnknownEffect(Schema.Array(MediaFileRecord))
// Only the shape's keys are written: TypeScript lets objects with extra properties through.
const confirmedFields = RecordVariants.pick(ConfirmedFile)

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
      `.pipe(Effect.flatMap(decodeMedia), storeFailures("record media file"))
      return rows[0]!
    }, bounded(timeout, "record media file")),
    findByKey: Effect.fn("MediaRepo.findByKey")(function*(key: string) {
      const rows = yield* sql`SELECT * FROM ${t.media_files} WHERE key = ${key}`.pipe(
        Effect.flatMap(decodeMedia),
        storeFailures("read media file")
      )
      return Option.fromNullishOr(rows[0])
    }, bounded(timeout, "read media file")),
    existing: Effect.fn("MediaRepo.existing")(function*(keys: ReadonlyArray<string>) {
      if (keys.length === 0) return new Set<string>()
      const rows = yield* sql<{ key: string }>`SELECT key FROM ${t.media_files} WHERE ${sql.in("key", keys)}`.pipe(
        storeFailures("read media files")
      )
      return new Set(rows.map((row) => row.key))
    }, bounded(timeout, "read media files")),
    list: Effect.fn("MediaRepo.list")(function*(request: MediaPageRequest) {
      // The kind is the content type's top level; the visibility is the key's prefix (`visibilityOf`).
      const kind = request.kind === undefined ? sql`` : sql`AND content_type LIKE ${`${request.kind}/%`}`
      const visibility = request.visibility === undefined
        ? sql``
        : request.visibility === "private"
        ? sql`AND key LIKE ${`${privateKeyPrefix}%`}`
        : sql`AND key NOT LIKE ${`${privateKeyPrefix}%`}`
      return yield* sql`
        SELECT * FROM ${t.media_files} WHERE id >= ${request.cursor ?? 0} ${kind} ${visibility} ORDER BY id LIMIT ${request.limit}
      `.pipe(Effect.flatMap(decodeMedia), storeFailures("list media files"))
    }, bounded(timeout, "list media files")),
    delete: Effect.fn("MediaRepo.delete")(function*(key: string) {
      // The lessons' reference refuses it while a lesson plays the file, committed or not.
      return yield* sql`DELETE FROM ${t.media_files} WHERE key = ${key} RETURNING key`.pipe(
        Effect.map((rows): MediaDeletion => rows.length === 0 ? "absent" : "deleted"),
        Effect.catchIf((error) => violatesForeignKey(error, "lessons_video_key_fkey"), () => Effect.succeed<MediaDeletion>("in-use")),
        storeFailures("delete media file")
      )
    }, bounded(timeout, "delete media file"))
  })
})

export const layer: Layer.Layer<MediaRepo, never, SqlClient.SqlClient> = Layer.effect(MediaRepo, makeMediaRepo())
