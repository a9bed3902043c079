/**
 * `CatalogueChanges` on PostgreSQL: this process's commits, plus `LISTEN
 * coursekit_catalogue`, fed by the trigger of migration 0002 on every committed change
 * to `courses` by any instance or any other client. The listener holds one pooled
 * connection; when it is lost the stream fails, and caches stay off until it listens
 * again.
 *
 * @since 0.1.0
 */
import { CatalogueChanges, makeFeed, PersistenceError } from "@coursekit/core"
import { PgClient } from "@effect/sql-pg"
import { Effect, Layer, PubSub, Stream } from "effect"
import type { SqlError } from "effect/sql"

/** The channel the trigger notifies. */
export const channel = "coursekit_catalogue"

const lost = (cause: SqlError.SqlError) => new PersistenceError({ operation: "listen for catalogue changes", cause })

/** The change feed over the `PgClient` in context (not for PGlite: it has one connection). */
export const layer: Layer.Layer<CatalogueChanges, never, PgClient.PgClient> = Layer.effect(
  CatalogueChanges,
  Effect.gen(function*() {
    const pg = yield* PgClient.PgClient
    const commits = yield* PubSub.unbounded<void>()
    // `listen` succeeds once PostgreSQL has confirmed LISTEN: from then on no commit is missed.
    const remote = pg.listen(channel).pipe(
      Effect.map((notifications) =>
        Stream.fromQueue(notifications).pipe(Stream.map(() => "changed" as const), Stream.mapError(lost))
      ),
      Effect.mapError(lost)
    )
    return CatalogueChanges.of(makeFeed(commits, remote))
  })
)
