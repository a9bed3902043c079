/**
 * Column lists taken from the records' shapes (`RecordVariants.columnsOf`), never
 * written by hand: a field added to a record and shown in a view is read by the
 * statements of that view with no change here.
 *
 * @since 0.3.0
 */
import type { SqlClient, Statement } from "effect/sql"

/** `a, b, c` — or `t.a, t.b, t.c` with `table` — as identifiers. */
export const columnList = (sql: SqlClient.SqlClient, columns: ReadonlyArray<string>, table?: string): Statement.Fragment =>
  sql.join(", ", false)(columns.map((column) => table === undefined ? sql`${sql(column)}` : sql`${sql(table)}.${sql(column)}`))

/**
 * The select list of one branch of a `UNION ALL` whose columns are `columns`: each
 * column's expression from `expressions`, `NULL` for the columns this branch has no value
 * for. Every branch names the same columns in the same order, so the rows line up.
 */
export const unionBranch = (
  sql: SqlClient.SqlClient,
  columns: ReadonlyArray<string>,
  expressions: Readonly<Record<string, Statement.Fragment | undefined>>
): Statement.Fragment =>
  sql.join(", ", false)(columns.map((column) => sql`${expressions[column] ?? sql`NULL`} AS ${sql(column)}`))
