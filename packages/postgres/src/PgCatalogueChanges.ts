/**
 * `CatalogueChanges` on PostgreSQL: `LISTEN coursekit_catalogue`, fed by the trigger of
 * migration 0002 on every committed change to `courses`. The listener holds one pooled
 * connection; when it is lost the stream fails, and the catalogue stops caching until it
 * listens again.
 *
 * @since 0.1.0
 */
import { CatalogueChanges, type CatalogueSignal, PersistenceError } from "@coursekit/core"
import { PgClient } from "@effect/sql-pg"
import { Effect, Layer, Stream } from "effect"

/** The channel the trigger notifies. */
export const channel = "coursekit_catalogue"

/** The change feed over the `PgClient` in context (not for PGlite: it has one connection). */
export const layer: Layer.Layer<CatalogueChanges, never, PgClient.PgClient> = Layer.effect(
  CatalogueChanges,
  Effect.gen(function*() {
    const pg = yield* PgClient.PgClient
    return CatalogueChanges.of({
      signals: Stream.unwrap(Effect.gen(function*() {
        // Succeeds once PostgreSQL has confirmed LISTEN: from here on no commit is missed.
        const notifications = yield* pg.listen(channel)
        return Stream.concat(
          Stream.succeed<CatalogueSignal>("live"),
          Stream.fromQueue(notifications).pipe(Stream.map((): CatalogueSignal => "changed"))
        )
      })).pipe(
        Stream.mapError((cause) => new PersistenceError({ operation: "listen for catalogue changes", cause }))
      )
    })
  })
)
