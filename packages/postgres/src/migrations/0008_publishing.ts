import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/**
 * Drafts and scheduled releases: courses and lessons get `status` and `publish_at`.
 * Existing rows are published at once, as they were visible before. The partial index
 * answers "the next scheduled release" (part of the catalogue version) with one probe.
 * The version shows that instant only hashed with `release_salt`, a random value every
 * instance reads from here: ETags are public, the launch date of a hidden course is not.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  for (const table of ["courses", "lessons"]) {
    yield* sql`
      ALTER TABLE ${sql(table)}
        ADD COLUMN status text NOT NULL DEFAULT 'published' CHECK (status IN ('draft', 'published')),
        ADD COLUMN publish_at timestamptz
    `
  }
  yield* sql`
    ALTER TABLE coursekit_catalogue_version ADD COLUMN release_salt text NOT NULL DEFAULT gen_random_uuid()::text
  `
  yield* sql`
    CREATE INDEX courses_scheduled_release ON courses (publish_at)
    WHERE status = 'published' AND publish_at IS NOT NULL
  `
  // Read on every list request: PL/pgSQL keeps the two statements' plans per session,
  // where the same SQL sent as one query would be parsed and planned every time.
  yield* sql`
    CREATE FUNCTION coursekit_catalogue_token() RETURNS text LANGUAGE plpgsql STABLE AS $$
    DECLARE
      current_version text;
      salt text;
      next_release timestamptz;
    BEGIN
      SELECT version::text, release_salt INTO current_version, salt FROM coursekit_catalogue_version;
      SELECT min(publish_at) INTO next_release FROM courses WHERE status = 'published' AND publish_at > now();
      IF next_release IS NULL THEN
        RETURN current_version;
      END IF;
      RETURN current_version || '.' || left(md5(salt || (extract(epoch FROM next_release) * 1000000)::bigint::text), 16);
    END
    $$
  `
})
