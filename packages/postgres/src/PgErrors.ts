/**
 * Driver errors stop here: every SQL failure of the repositories becomes the core's
 * `PersistenceError` (HTTP 503), named by the operation that failed.
 *
 * @since 0.1.0
 */
import { PersistenceError } from "@coursekit/core"
import type { SqlError } from "effect/sql"

/** `Effect.mapError(persistenceError("insert"))`. */
export const persistenceError = (operation: string) => (cause: SqlError.SqlError) => new PersistenceError({ operation, cause })
