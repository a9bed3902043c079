import { CatalogueChanges, type CatalogueSignal } from "@coursekit/core"
import { PgClient } from "@effect/sql-pg"
import { assert, describe, expect, it, layer } from "@effect/vitest"
import { Context, Duration, Effect, Exit, Fiber, Layer, Queue, Redacted, Stream } from "effect"
import { SqlClient } from "effect/sql"
import * as PgCatalogueChanges from "../src/PgCatalogueChanges.ts"
import * as PgDatabase from "../src/PgDatabase.ts"
import { postgresRequired, testDatabaseUrl } from "./TestPostgres.ts"

class Admin extends Context.Service<Admin, SqlClient.SqlClient>()("test/Admin") {}

const database = `coursekit_feed_${process.pid}_${Math.random().toString(36).slice(2, 8)}`

// The feed on a database of its own, plus a second connection that plays "someone else".
const layerFeed = (serverUrl: string) =>
  Layer.unwrap(Effect.gen(function*() {
    const server = Context.get(
      yield* Layer.build(PgClient.layer({ url: Redacted.make(serverUrl), maxConnections: 1 })),
      SqlClient.SqlClient
    )
    yield* Effect.acquireRelease(
      server`CREATE DATABASE ${server(database)}`,
      () => server`DROP DATABASE IF EXISTS ${server(database)} WITH (FORCE)`.pipe(Effect.orDie)
    )
    const url = new URL(serverUrl)
    url.pathname = `/${database}`
    const other = Context.get(
      yield* Layer.build(PgClient.layer({ url: Redacted.make(url.toString()), maxConnections: 1 })),
      SqlClient.SqlClient
    )
    return Layer.mergeAll(
      PgCatalogueChanges.layer.pipe(Layer.provide(PgDatabase.layer({ url: Redacted.make(url.toString()), maxConnections: 2 }))),
      Layer.succeed(Admin, other)
    )
  }))

const next = <A, E>(queue: Queue.Queue<A, E>) => Queue.take(queue).pipe(Effect.timeout(Duration.seconds(5)))

const serverUrl = testDatabaseUrl
if (serverUrl !== undefined) {
  describe("PgCatalogueChanges", () => {
    layer(layerFeed(serverUrl), { timeout: 60_000, excludeTestServices: true })((it) => {
      it.effect("signals live, then every commit by anyone, and fails when its connection is lost", () =>
        Effect.gen(function*() {
          const feed = yield* CatalogueChanges
          const admin = yield* Admin
          const received = yield* Queue.unbounded<CatalogueSignal>()
          const follower = yield* Stream.runForEach(feed.signals, (signal) => Queue.offer(received, signal)).pipe(
            Effect.forkScoped
          )
          assert.strictEqual(yield* next(received), "live")
          // A commit by another client, through the trigger.
          yield* admin`INSERT INTO courses (title, slug, content_html) VALUES ('x', ${database}, '')`
          assert.strictEqual(yield* next(received), "changed")
          // A rolled-back change says nothing.
          yield* admin`UPDATE courses SET title = 'never' WHERE slug = ${database}`.pipe(
            Effect.andThen(Effect.fail("roll back")),
            admin.withTransaction,
            Effect.ignore
          )
          // This process's own commit is heard at once, without waiting for PostgreSQL.
          yield* feed.committed
          assert.strictEqual(yield* next(received), "changed")
          assert.isTrue((yield* Queue.size(received)) === 0)
          // Losing the listener's connection ends the stream with a failure.
          yield* admin`
            SELECT pg_terminate_backend(pid) FROM pg_stat_activity
            WHERE datname = current_database() AND pid <> pg_backend_pid()`
          const exit = yield* Fiber.await(follower).pipe(Effect.timeout(Duration.seconds(5)))
          assert.isTrue(Exit.isFailure(exit))
        }))
    })
  })
} else if (postgresRequired) {
  describe("PgCatalogueChanges", () => {
    it("runs in CI", () => {
      expect.fail("TEST_DATABASE_URL is not set: CI must run the PostgreSQL suite")
    })
  })
}
