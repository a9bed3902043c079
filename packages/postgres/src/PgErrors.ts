/**
 * Driver errors stop here, sorted by whether a retry can help. A database that cannot be
 * reached, refuses connections for now, is shutting down, ran out of resources or
 * aborted a transaction for a conflict becomes the core's `PersistenceError` (HTTP 503
 * with `Retry-After`), named by the operation that failed. Anything else — a row that
 * does not decode through its record's schema, a constraint the code did not expect, a
 * statement the server refuses, a privilege missing — is a bug or a broken deployment
 * that no retry fixes: a defect (HTTP 500, logged with the request's id, nothing of it
 * in the answer).
 *
 * @since 0.1.0
 */
import { PersistenceError } from "@coursekit/core"
import { Data, Effect, type Schema } from "effect"
import type { SqlError } from "effect/sql"

/** A store failure a retry cannot help: the defect a non-transient failure dies with. */
export class UnexpectedStoreFailure extends Data.TaggedError("UnexpectedStoreFailure")<{
  readonly operation: string
  readonly cause: unknown
}> {
  override get message(): string {
    return `The database answered ${this.operation} in a way the code does not expect.`
  }
}

/**
 * SQLSTATE classes after which the same statement may succeed later: 08 connection
 * exception, 40 transaction rollback (serialization failure, deadlock), 53 insufficient
 * resources (too many connections, disk full), 57 operator intervention (shutdown,
 * "cannot connect now", statement cancelled), 58 system error (I/O); and three states:
 * 55P03 lock not available, 55000 as the server refuses a connection to a database not
 * accepting any now, 3D000 as it refuses one to a database that is gone.
 */
const transientClasses = new Set(["08", "40", "53", "57", "58"])
const transientStates = new Set(["55P03", "55000", "3D000"])

/** The failure's SQLSTATE, or undefined for one without (a socket error, a driver's own). */
const sqlStateOf = (error: SqlError.SqlError): string | undefined => {
  const cause: unknown = error.reason.cause
  if (typeof cause !== "object" || cause === null || !("code" in cause) || typeof cause.code !== "string") return undefined
  return /^[0-9A-Z]{5}$/.test(cause.code) ? cause.code : undefined
}

/**
 * Whether retrying the operation that failed with `error` may succeed: what `effect/sql`
 * deems retryable (connection, deadlock, serialization, lock and statement time-outs),
 * a refused login (the database cannot be used as configured: readiness reports it down
 * until an operator fixes it), and the unclassified failures of a connection or of the
 * transient SQLSTATEs above.
 */
export const isTransient = (error: SqlError.SqlError): boolean => {
  if (error.isRetryable || error.reason._tag === "AuthenticationError") return true
  if (error.reason._tag !== "UnknownError") return false
  const state = sqlStateOf(error)
  // No SQLSTATE: the connection failed under the driver (refused, reset, ended).
  return state === undefined || transientClasses.has(state.slice(0, 2)) || transientStates.has(state)
}

/** `error` as what it is: a `PersistenceError` when a retry may help, else a defect. */
export const failStore = (operation: string, error: SqlError.SqlError | Schema.SchemaError): Effect.Effect<never, PersistenceError> =>
  error._tag === "SqlError" && isTransient(error)
    ? Effect.fail(new PersistenceError({ operation, cause: error }))
    : Effect.die(new UnexpectedStoreFailure({ operation, cause: error }))

/** Whether `error` is a driver or decoding failure (for {@link storeFailures}). */
const isStoreFailure = (error: unknown): error is SqlError.SqlError | Schema.SchemaError =>
  typeof error === "object" && error !== null && "_tag" in error && (error._tag === "SqlError" || error._tag === "SchemaError")

/**
 * `effect.pipe(storeFailures("insert course"))`: its driver and decoding failures sorted
 * as {@link failStore} does; the domain's own failures (a record not found, a stale
 * version) pass through as they are.
 */
export const storeFailures = (operation: string) =>
<A, E, R>(
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A, Exclude<E, SqlError.SqlError | Schema.SchemaError> | PersistenceError, R> =>
  Effect.catchIf(effect, (error: E): error is E & (SqlError.SqlError | Schema.SchemaError) => isStoreFailure(error), (error) =>
    failStore(operation, error)) as Effect.Effect<
    A,
    Exclude<E, SqlError.SqlError | Schema.SchemaError> | PersistenceError,
    R
  >

/** Whether `error` is a violation of the foreign key named `constraint` (SQLSTATE 23503). */
export const violatesForeignKey = (error: SqlError.SqlError, constraint: string): boolean => {
  const cause: unknown = error.reason.cause
  return error.reason._tag === "ConstraintError" && typeof cause === "object" && cause !== null &&
    "code" in cause && cause.code === "23503" && "constraint" in cause && cause.constraint === constraint
}
