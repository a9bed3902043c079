import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/**
 * Admin sessions of the Studio's sign-in (`PgAdminSessionRepo`), shared by every
 * instance: a session by `key`, a SHA-256 of its secret id (the id is only in the
 * browser's cookie), who signed in (`principal`, the HTTP layer's keyed digest of the
 * admin token, never the token), and when it was last seen, by the database's clock. A
 * session idle past its window means nothing; sign-ins remove such rows (by
 * `last_seen_at`, indexed).
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE admin_sessions (
      key text PRIMARY KEY,
      principal text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      last_seen_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`CREATE INDEX admin_sessions_last_seen ON admin_sessions (last_seen_at)`
})
