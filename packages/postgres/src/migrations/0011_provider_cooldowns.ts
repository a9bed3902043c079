import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/**
 * Cool-downs of language models shared by every instance (`PgProviderCooldowns`): until
 * when a model is left alone after a 429, 5xx or time-out, by its cool-down key
 * (`provider/model@endpoint`). The database's clock sets and reads `until`. A row whose
 * `until` has passed means nothing; rows are removed by a success and pruned by later
 * writes, so the table holds about one row per model ever configured.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE provider_cooldowns (
      key text PRIMARY KEY,
      until timestamptz NOT NULL
    )
  `
})
