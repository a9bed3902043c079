/**
 * The deadline of every repository call: the wait for a pooled connection, the
 * statements and the commit together. When it passes, the call fails with the core's
 * `PersistenceError` (HTTP 503) at once, without waiting for the late statement's
 * clean-up: the driver cancels it in the background and closes its connection when the
 * server does not confirm, so the server rolls back whatever the call had begun.
 *
 * The databases of this package (`PgDatabase.layer`, `PgliteDatabase.layer`) put their
 * `timeout` here; repositories on another `SqlClient` get {@link defaultTimeout}.
 *
 * @since 0.1.0
 */
import { Deadline, PersistenceError } from "@coursekit/core"
import { Context, Duration, type Effect, Layer } from "effect"

/** Five seconds: far above a healthy call (milliseconds), far below the 30–60 s at which proxies and clients give up. */
export const defaultTimeout: Duration.Duration = Duration.seconds(5)

/** How long one repository call may take; {@link defaultTimeout} unless a layer sets it. */
export const PgDeadline = Context.Reference<Duration.Duration>("@coursekit/postgres/PgDeadline", {
  defaultValue: () => defaultTimeout
})

/** Sets the deadline the repositories built after it read. */
export const layer = (timeout: Duration.Duration): Layer.Layer<never> => Layer.succeed(PgDeadline, timeout)

/** Bounds one repository call, `operation` naming it in the `PersistenceError`. */
export const bounded = (timeout: Duration.Duration, operation: string) =>
<A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E | PersistenceError, R> =>
  Deadline.within(timeout, () =>
    new PersistenceError({
      operation,
      cause: new Error(`no answer from the database within ${Duration.format(timeout)}`)
    }))(self)
