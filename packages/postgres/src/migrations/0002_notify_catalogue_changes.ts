import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/**
 * Every committed change to `courses`, by Coursekit or anything else, notifies the
 * channel `coursekit_catalogue`, so every instance can drop its cached list pages.
 * PostgreSQL delivers a NOTIFY only when its transaction commits, and folds duplicates.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE FUNCTION coursekit_notify_catalogue() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_notify('coursekit_catalogue', TG_TABLE_NAME);
      RETURN NULL;
    END
    $$
  `
  yield* sql`
    CREATE TRIGGER courses_notify_catalogue
    AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON courses
    FOR EACH STATEMENT EXECUTE FUNCTION coursekit_notify_catalogue()
  `
})
