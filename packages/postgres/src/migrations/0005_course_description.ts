import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/** A course's plain-text description; existing courses have none. */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE courses ADD COLUMN description text`
})
