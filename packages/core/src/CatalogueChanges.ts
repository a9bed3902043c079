/**
 * The feed of committed changes to the catalogue, made by any instance of the service.
 * The catalogue caches list pages only while this feed is live, and drops them on every
 * change it signals, so a cached page never outlives a change it has been told about.
 *
 * @since 0.1.0
 */
import { Context, Layer, Stream } from "effect"
import type { PersistenceError } from "./PersistenceError.ts"

/**
 * `"live"`: the feed is established; every change committed from now on will be
 * signalled. `"changed"`: a change was committed.
 */
export type CatalogueSignal = "live" | "changed"

/**
 * Signals of committed catalogue changes. The stream fails (or ends) when the feed is
 * lost; consumers treat anything cached as stale until the next `"live"`.
 */
export class CatalogueChanges extends Context.Service<CatalogueChanges, {
  readonly signals: Stream.Stream<CatalogueSignal, PersistenceError>
}>()("@coursekit/core/CatalogueChanges") {
  /**
   * For a store only this process writes (PGlite, memory): every change goes through
   * this process's catalogue, which drops its cache itself, so the feed is live at once
   * and has nothing else to say.
   */
  static readonly layerSingleInstance: Layer.Layer<CatalogueChanges> = Layer.succeed(
    CatalogueChanges,
    CatalogueChanges.of({ signals: Stream.concat(Stream.succeed<CatalogueSignal>("live"), Stream.never) })
  )

  /** No feed: the catalogue never caches. Safe for any deployment. */
  static readonly layerNone: Layer.Layer<CatalogueChanges> = Layer.succeed(
    CatalogueChanges,
    CatalogueChanges.of({ signals: Stream.never })
  )
}
