/**
 * The dependencies `GET /health/ready` checks. The standalone server registers the
 * database (and, later, storage); an embedding app registers whatever it wants probed.
 *
 * @since 0.1.0
 */
import { Context, Layer, type Effect } from "effect"

/** One dependency probe: succeeds when the dependency answers. */
export interface ReadinessCheck {
  readonly name: string
  readonly check: Effect.Effect<void, unknown>
}

/** The probes of `GET /health/ready`, run concurrently, each with a deadline. */
export class Readiness extends Context.Service<Readiness, {
  readonly checks: ReadonlyArray<ReadinessCheck>
}>()("@coursekit/http/Readiness") {
  /** Probes `checks`. */
  static readonly layer = (checks: ReadonlyArray<ReadinessCheck>): Layer.Layer<Readiness> =>
    Layer.succeed(Readiness, Readiness.of({ checks }))
}
