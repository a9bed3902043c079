import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/**
 * The catalogue version (migration 0002) is bumped once per statement that changes
 * courses, not once per row. Every list read reads the version row; a row-level bump
 * left one dead copy of it per changed row, so a bulk write (an import of 10,000
 * courses) grew its one-row table to about a hundred pages that every read then
 * scanned. A statement that changes no row (an update of a missing id) still bumps
 * nothing: the transition table tells. `TRUNCATE` keeps its own trigger.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`DROP TRIGGER courses_bump_catalogue_version ON courses`
  yield* sql`
    CREATE FUNCTION coursekit_bump_catalogue_version_if_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF EXISTS (SELECT 1 FROM changed_courses) THEN
        UPDATE coursekit_catalogue_version SET version = version + 1;
      END IF;
      RETURN NULL;
    END
    $$
  `
  // One event per trigger: PostgreSQL allows a transition table only on such triggers.
  for (const [event, table] of [["INSERT", "NEW"], ["UPDATE", "NEW"], ["DELETE", "OLD"]] as const) {
    yield* sql.unsafe(`
      CREATE TRIGGER courses_${event.toLowerCase()}_bumps_catalogue_version
      AFTER ${event} ON courses
      REFERENCING ${table} TABLE AS changed_courses
      FOR EACH STATEMENT EXECUTE FUNCTION coursekit_bump_catalogue_version_if_changed()
    `)
  }
})
