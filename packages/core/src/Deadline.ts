/**
 * A deadline that answers on time. `Effect.timeout` interrupts the late effect and then
 * waits for its clean-up, and a database statement's clean-up against a server that has
 * stopped answering (drain, cancel request) can itself take seconds. `Deadline.within`
 * fails at the deadline and lets the interrupted effect finish cleaning up on its own.
 *
 * @since 0.1.0
 */
import { Duration, Effect, Fiber, Option } from "effect"

/**
 * Runs `self` for at most `duration`: its result when it ends in time, else the failure
 * `onTimeout` makes, at once. The late effect is interrupted in the background (its
 * finalizers still run, after the answer); interrupting the caller interrupts it too.
 */
export const within = <E2>(duration: Duration.Input, onTimeout: () => E2) =>
<A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E | E2, R> =>
  Effect.uninterruptibleMask((restore) =>
    Effect.flatMap(
      // Detached: a fiber of the caller's would be awaited when the caller ends.
      Effect.forkDetach(self, { startImmediately: true }),
      (fiber) =>
        restore(Effect.timeoutOption(Fiber.await(fiber), duration)).pipe(
          Effect.onInterrupt(() => Effect.sync(() => fiber.interruptUnsafe())),
          Effect.flatMap((result): Effect.Effect<A, E | E2> =>
            Option.isSome(result)
              ? result.value
              : Effect.andThen(Effect.sync(() => fiber.interruptUnsafe()), Effect.fail(onTimeout()))
          )
        )
    )
  )
