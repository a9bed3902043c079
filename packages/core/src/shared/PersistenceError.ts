/**
 * The error a repository adapter reports when its store is unreachable, frozen or
 * overloaded for now (connection lost, time-out, too many connections, a transaction
 * aborted by a conflict): the failures a retry may cure, answered 503 with `Retry-After`.
 * Adapters map driver errors at their edge, so no SQL or SDK error type reaches the
 * core's callers. A failure no retry cures — a row that does not decode, a constraint or
 * statement the code did not expect — is not one of these: the adapter dies with it (a
 * defect, answered 500 and logged with the request's id).
 *
 * @since 0.1.0
 */
import { Schema } from "effect"

/** The store behind a repository could not complete an operation now; retrying may work. */
export class PersistenceError extends Schema.TaggedError<PersistenceError>()(
  "PersistenceError",
  {
    operation: Schema.String,
    cause: Schema.Defect()
  },
  { description: "The database did not complete the operation." }
) {
  override get message(): string {
    return `The database did not complete ${this.operation}.`
  }
}
