import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { PgSchema } from "../PgSchema.ts"

/**
 * Coursekit's functions that read its tables find them in its schema, whoever calls
 * them: a trigger runs under the `search_path` of the session that wrote the row (a
 * host's, a `psql` session's), where an unqualified `coursekit_catalogue_version` would
 * name another table or none. Each function gets its own `search_path` (the schema, then
 * `pg_temp`, so no temporary table can stand in). `coursekit_visible_from` reads no table
 * and stays as it is, inlinable. The list is this step's own, not `PgSchema.functionNames`:
 * a released step does the same work forever, and a later step's function does not
 * exist yet when this one runs.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const schema = yield* PgSchema
  for (
    const name of [
      "coursekit_bump_catalogue_version",
      "coursekit_bump_catalogue_version_if_changed",
      "coursekit_catalogue_token",
      "coursekit_search_document_visibility",
      "coursekit_follow_course"
    ]
  ) {
    yield* sql`ALTER FUNCTION ${sql(`${schema}.${name}`)}() SET search_path TO ${sql(schema)}, pg_temp`
  }
})
