import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/**
 * The catalogue's version: one row, bumped by triggers in the same transaction as every
 * changed row of `courses` (by Coursekit or any other client), so a reader that sees
 * version `v` sees every change committed before `v`. List caches key on it. Row-level,
 * so a statement that changes nothing (an update of a missing id) is no change.
 * Writers of courses queue briefly on this row; catalogue writes are rare.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE coursekit_catalogue_version (
      id boolean PRIMARY KEY DEFAULT true CHECK (id),
      version bigint NOT NULL
    )
  `
  yield* sql`INSERT INTO coursekit_catalogue_version (version) VALUES (1)`
  yield* sql`
    CREATE FUNCTION coursekit_bump_catalogue_version() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      UPDATE coursekit_catalogue_version SET version = version + 1;
      RETURN NULL;
    END
    $$
  `
  yield* sql`
    CREATE TRIGGER courses_bump_catalogue_version
    AFTER INSERT OR UPDATE OR DELETE ON courses
    FOR EACH ROW EXECUTE FUNCTION coursekit_bump_catalogue_version()
  `
  yield* sql`
    CREATE TRIGGER courses_truncate_bumps_catalogue_version
    AFTER TRUNCATE ON courses
    FOR EACH STATEMENT EXECUTE FUNCTION coursekit_bump_catalogue_version()
  `
})
