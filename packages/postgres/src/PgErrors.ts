/**
 * Driver errors stop here: every SQL failure of the repositories becomes the core's
 * `PersistenceError` (HTTP 503), named by the operation that failed.
 *
 * @since 0.1.0
 */
import { PersistenceError } from "@coursekit/core"
import type { Schema } from "effect"
import type { SqlError } from "effect/sql"

/**
 * `Effect.mapError(persistenceError("insert"))`. A row that does not decode through its
 * record's schema (`SchemaError`) is a store failure too: the service cannot use it.
 */
export const persistenceError = (operation: string) => (cause: SqlError.SqlError | Schema.SchemaError) =>
  new PersistenceError({ operation, cause })

/** Whether `error` is a violation of the foreign key named `constraint` (SQLSTATE 23503). */
export const violatesForeignKey = (error: SqlError.SqlError, constraint: string): boolean => {
  const cause: unknown = error.reason.cause
  return error.reason._tag === "ConstraintError" && typeof cause === "object" && cause !== null &&
    "code" in cause && cause.code === "23503" && "constraint" in cause && cause.constraint === constraint
}
