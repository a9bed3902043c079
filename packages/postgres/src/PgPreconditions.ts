/**
 * A write's precondition (`If-Match`) as SQL: the condition on `version` a statement adds
 * to its `WHERE`, so that the row's lock makes the check and the write one step.
 *
 * @since 0.3.0
 */
import type { Precondition } from "@coursekit/core"
import type { SqlClient } from "effect/sql"

/** `AND version IN (…)` for a list of versions (none: nothing matches); nothing for none or `any`. */
export const preconditionOn = (sql: SqlClient.SqlClient, precondition: Precondition | undefined) => {
  if (precondition === undefined || precondition === "any") return sql``
  return precondition.length === 0 ? sql`AND false` : sql`AND version IN ${sql.in(precondition)}`
}
