/**
 * The error every repository adapter reports when its store fails (connection lost,
 * time-out, unexpected driver error). Adapters map driver errors to it at their edge, so
 * no SQL or SDK error type reaches the core's callers.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"

/** The store behind a repository did not complete an operation; retrying may work. */
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
