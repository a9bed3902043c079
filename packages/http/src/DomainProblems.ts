/**
 * The one place where domain errors of the core become HTTP problems. Store failures are
 * logged with their cause here and answered 503 without it.
 *
 * @since 0.1.0
 */
import type { CourseNotFound, PersistenceError } from "@coursekit/core"
import { Effect } from "effect"
import { NotFound, ServiceUnavailable } from "./Problems.ts"

/** Domain errors the HTTP layer knows how to answer. */
export type DomainError = CourseNotFound | PersistenceError

/** The problem each domain error becomes. */
export type ProblemOf<E> = E extends CourseNotFound ? NotFound
  : E extends PersistenceError ? ServiceUnavailable
  : never

/** Maps the domain errors of `effect` to their problems. */
export const problems = <A, E extends DomainError, R>(
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A, ProblemOf<E>, R> =>
  Effect.catch(effect, (error: DomainError) => {
    switch (error._tag) {
      case "CourseNotFound":
        return Effect.fail(new NotFound({ detail: error.message }) as ProblemOf<E>)
      case "PersistenceError":
        return Effect.logError("database operation failed", error.operation, error.cause).pipe(
          Effect.andThen(Effect.fail(new ServiceUnavailable({ detail: `${error.message} Try again shortly.` }) as ProblemOf<E>))
        )
    }
  })
