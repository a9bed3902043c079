/**
 * The feed of committed changes to the catalogue, made by this process or by any other
 * instance of the service. Caches built on the catalogue (the HTTP list cache) hold
 * entries only while the feed is live and drop them on every change it signals.
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer, PubSub, type Scope, Stream } from "effect"
import type { PersistenceError } from "./PersistenceError.ts"

/**
 * `"live"`: the feed is established; every change committed from now on will be
 * signalled. `"changed"`: a change was committed.
 */
export type CatalogueSignal = "live" | "changed"

/**
 * Signals of committed catalogue changes. Each run of `signals` is one subscription:
 * it starts with `"live"` once nothing can be missed any more, and fails (or ends) when
 * the feed is lost, after which consumers treat what they cached as stale until the
 * next `"live"`. `committed` is called by this process's catalogue after each of its
 * writes, so local subscribers hear of them at once.
 */
export class CatalogueChanges extends Context.Service<CatalogueChanges, {
  readonly signals: Stream.Stream<CatalogueSignal, PersistenceError>
  readonly committed: Effect.Effect<void>
}>()("@coursekit/core/CatalogueChanges") {
  /**
   * A feed of this process's own writes, for stores only this process writes (PGlite,
   * memory). Adapters for shared stores add their remote signals with {@link makeFeed}.
   */
  static readonly layerSingleInstance: Layer.Layer<CatalogueChanges> = Layer.effect(
    CatalogueChanges,
    Effect.map(PubSub.unbounded<void>(), (pubsub) => CatalogueChanges.of(makeFeed(pubsub, Effect.succeed(Stream.never))))
  )

  /** No feed: nothing is ever live, so nothing is cached. Safe for any deployment. */
  static readonly layerNone: Layer.Layer<CatalogueChanges> = Layer.succeed(
    CatalogueChanges,
    CatalogueChanges.of({ signals: Stream.never, committed: Effect.void })
  )
}

/**
 * A feed made of this process's commits (published to `pubsub` by `committed`) and the
 * signals of other writers: `remote` establishes its listener within the stream's scope
 * and returns its signals. The local subscription is taken first and `"live"` is
 * emitted only once `remote` is established, so no change slips between.
 */
export const makeFeed = (
  pubsub: PubSub.PubSub<void>,
  remote: Effect.Effect<Stream.Stream<"changed", PersistenceError>, PersistenceError, Scope.Scope>
): CatalogueChanges["Service"] => ({
  signals: Stream.unwrap(Effect.gen(function*() {
    const subscription = yield* PubSub.subscribe(pubsub)
    const others = yield* remote
    return Stream.concat(
      Stream.succeed<CatalogueSignal>("live"),
      Stream.merge(Stream.fromSubscription(subscription).pipe(Stream.map((): CatalogueSignal => "changed")), others)
    )
  })),
  committed: PubSub.publish(pubsub, undefined).pipe(Effect.asVoid)
})
