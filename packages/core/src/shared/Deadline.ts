/**
 * A deadline that answers on time. `Effect.timeout` interrupts the late effect and then
 * waits for its clean-up, and a database statement's clean-up against a server that has
 * stopped answering (drain, cancel request) can itself take seconds. `Deadline.within`
 * fails at the deadline and lets the interrupted effect finish cleaning up on its own.
 *
 * @since 0.1.0
 */
import { type Duration, Effect, Exit } from "effect"

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
      (work) => {
        // Ended already (nothing to wait for): no timer.
        const done = work.pollUnsafe()
        if (done !== undefined) return done
        // Two fibers and two observers, no race: a request's every statement runs this,
        // and a race's extra fibers and interruptions cost several times the rest.
        return Effect.flatMap(Effect.forkDetach(Effect.sleep(duration), { startImmediately: true }), (timer) =>
          restore(Effect.callback<A, E | E2>((resume) => {
            let stopTimer = () => {}
            // Called at once if the effect ended meanwhile: then no timer is watched.
            const stopWork = work.addObserver((exit) => {
              stopTimer()
              timer.interruptUnsafe()
              resume(exit)
            })
            if (work.pollUnsafe() !== undefined) return
            stopTimer = timer.addObserver((exit) => {
              if (!Exit.isSuccess(exit)) return
              stopWork()
              work.interruptUnsafe()
              resume(Effect.fail(onTimeout()))
            })
            return Effect.sync(() => {
              stopWork()
              stopTimer()
            })
          })).pipe(
            // The caller interrupted, here or before the wait began: both go.
            Effect.onInterrupt(() =>
              Effect.sync(() => {
                timer.interruptUnsafe()
                work.interruptUnsafe()
              })
            )
          ))
      }
    )
  )
