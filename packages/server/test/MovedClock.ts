/**
 * The service's view of another moment: the real clock moved by an offset, for the
 * tests that sign a URL in the past or run the sweep hours later, while storage (the
 * local store's routes, the S3 server) keeps the real time.
 */
import { Clock, Duration, Effect } from "effect"

/** The real clock moved by `offset`. */
const clockMovedBy = (offset: Duration.Duration) =>
  Clock.clockWith((real) => {
    const millis = Duration.toMillis(offset)
    const now = () => real.currentTimeMillisUnsafe() + millis
    const nanos = () => real.currentTimeNanosUnsafe() + BigInt(millis) * 1_000_000n
    return Effect.succeed<Clock.Clock>({
      currentTimeMillisUnsafe: now,
      currentTimeMillis: Effect.sync(now),
      currentTimeNanosUnsafe: nanos,
      currentTimeNanos: Effect.sync(nanos),
      monotonicTimeNanosUnsafe: () => real.monotonicTimeNanosUnsafe(),
      monotonicTimeNanos: real.monotonicTimeNanos,
      sleep: (duration) => real.sleep(duration)
    })
  })

/** Runs `effect` as if `offset` from now. */
export const at = <A, E, R>(offset: Duration.Duration, effect: Effect.Effect<A, E, R>) =>
  Effect.flatMap(clockMovedBy(offset), (clock) => Effect.provideService(effect, Clock.Clock, clock))
