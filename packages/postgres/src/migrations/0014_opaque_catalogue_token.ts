import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { PgSchema } from "../PgSchema.ts"

/**
 * The catalogue token (migration 0008) is opaque as a whole: the counter and the next
 * release instant together, hashed with `release_salt`. The token is in the public's
 * ETags; with the counter in clear there, anyone could count and time an admin's work on
 * drafts (issue #30). Hashed with the same salt, the token still changes with every change
 * and is the same on every instance. The function keeps the `search_path` 0013 gave it.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const schema = yield* PgSchema
  yield* sql`
    CREATE OR REPLACE FUNCTION coursekit_catalogue_token() RETURNS text LANGUAGE plpgsql STABLE
    SET search_path TO ${sql(schema)}, pg_temp AS $$
    DECLARE
      current_version text;
      salt text;
      next_release timestamptz;
    BEGIN
      SELECT version::text, release_salt INTO current_version, salt FROM coursekit_catalogue_version;
      SELECT min(publish_at) INTO next_release FROM courses WHERE status = 'published' AND publish_at > now();
      RETURN md5(salt || ':' || current_version || ':' || coalesce((extract(epoch FROM next_release) * 1000000)::bigint::text, ''));
    END
    $$
  `
})
