import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { PgSchema } from "../PgSchema.ts"

/**
 * Courses, lessons and sections carry `version`: 1 when created (existing rows start
 * there), one more on every update that changes the row — by the service or by any
 * other client of the database, a move that shifts a sibling's position included. A
 * trigger counts, so no statement can forget to. `updated_at` alone is not a change (a
 * PATCH that changes nothing keeps the version); a stored generated column is left out
 * of the comparison, since a BEFORE trigger sees it not yet computed.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const schema = yield* PgSchema
  for (const table of ["courses", "lessons", "sections"]) {
    yield* sql`ALTER TABLE ${sql(table)} ADD COLUMN version integer NOT NULL DEFAULT 1`
  }
  yield* sql`
    CREATE FUNCTION coursekit_count_version() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF to_jsonb(NEW) - 'version' - 'updated_at' - 'section_slot' IS DISTINCT FROM to_jsonb(OLD) - 'version' - 'updated_at' - 'section_slot' THEN
        NEW.version := OLD.version + 1;
      ELSE
        NEW.version := OLD.version;
      END IF;
      RETURN NEW;
    END
    $$
  `
  yield* sql`ALTER FUNCTION ${sql(`${schema}.coursekit_count_version`)}() SET search_path TO ${sql(schema)}, pg_temp`
  for (const table of ["courses", "lessons", "sections"]) {
    yield* sql.unsafe(`CREATE TRIGGER ${table}_count_version BEFORE UPDATE ON ${table} FOR EACH ROW EXECUTE FUNCTION coursekit_count_version()`)
  }
})
