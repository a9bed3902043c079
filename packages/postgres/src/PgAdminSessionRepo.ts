/**
 * `AdminSessionRepo` on PostgreSQL (and PGlite): admin sessions in one table
 * (`admin_sessions`, migration 0018) that every instance reads, so a sign-out on one
 * instance is refused by all of them from the next request, and a restart keeps every
 * session. The database's clock decides idleness. A use is one statement: the read, and
 * the last-seen write only when it is due.
 *
 * @since 0.3.0
 */
import { AdminSessionRepo, type AdminSessionWindow } from "@coursekit/core"
import { Duration, Effect, Layer, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { bounded, PgDeadline } from "./PgDeadline.ts"
import { storeFailures } from "./PgErrors.ts"
import { PgSchema, tablesOf } from "./PgSchema.ts"

/** The principal of a live session: decoded, never cast. */
const decodePrincipal = Schema.decodeUnknownEffect(Schema.Array(Schema.Struct({ principal: Schema.String })))

/** The PostgreSQL admin session repository; needs an `effect/sql` `SqlClient`. */
export const make = () => Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const timeout = yield* PgDeadline
  const t = tablesOf(sql, yield* PgSchema)
  /** `duration` as an SQL interval parameter. */
  const interval = (duration: Duration.Duration) => sql`(${Duration.toMillis(duration)}::float8 * interval '1 millisecond')`

  // Sign-ins are rare: each removes the sessions that ran out since the one before, so
  // the table holds about the live sessions and needs no sweep of its own.
  const create = Effect.fn("AdminSessionRepo.create")(function*(key: string, principal: string, idle: Duration.Duration) {
    yield* sql`
      WITH expired AS (DELETE FROM ${t.admin_sessions} WHERE last_seen_at <= now() - ${interval(idle)})
      INSERT INTO ${t.admin_sessions} (key, principal) VALUES (${key}, ${principal})
    `.pipe(storeFailures("create admin session"))
  }, bounded(timeout, "create admin session"))

  // The update runs whether or not the outer query reads it (a data-modifying WITH always
  // does), and only for a live session whose last-seen instant is due.
  const use = Effect.fn("AdminSessionRepo.use")(function*(key: string, window: AdminSessionWindow) {
    const rows = yield* sql`
      WITH live AS (
        SELECT key, principal, last_seen_at FROM ${t.admin_sessions}
        WHERE key = ${key} AND last_seen_at > now() - ${interval(window.idle)}
      ), seen AS (
        UPDATE ${t.admin_sessions} AS session SET last_seen_at = now() FROM live
        WHERE session.key = live.key AND live.last_seen_at <= now() - ${interval(window.refreshAfter)}
      )
      SELECT principal FROM live
    `.pipe(Effect.flatMap(decodePrincipal), storeFailures("read admin session"))
    return rows[0]?.principal
  }, bounded(timeout, "read admin session"))

  const remove = Effect.fn("AdminSessionRepo.remove")(function*(key: string) {
    yield* sql`DELETE FROM ${t.admin_sessions} WHERE key = ${key}`.pipe(storeFailures("remove admin session"))
  }, bounded(timeout, "remove admin session"))

  return AdminSessionRepo.of({ create, use, remove })
})

/** `AdminSessionRepo` over the `SqlClient` in context (`PgDatabase.layer`, `PgliteDatabase.layer`). */
export const layer: Layer.Layer<AdminSessionRepo, never, SqlClient.SqlClient> = Layer.effect(AdminSessionRepo, make())
