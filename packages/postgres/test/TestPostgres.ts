/**
 * A throwaway PostgreSQL database for one test file: created on the server named by
 * `TEST_DATABASE_URL`, migrated, and dropped when the layer is released.
 */
import { PgClient } from "@effect/sql-pg"
import { type Duration, Effect, Layer, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import * as PgDatabase from "../src/PgDatabase.ts"

/** The server tests use; unset outside CI means the PostgreSQL suites are not registered. */
export const testDatabaseUrl = process.env.TEST_DATABASE_URL

/** Whether missing PostgreSQL must fail the run instead of leaving its suites out (set by vitest.config.ts). */
export const postgresRequired = process.env.COURSEKIT_REQUIRE_POSTGRES === "1"

const withDatabase = (url: string, database: string) => {
  const parsed = new URL(url)
  parsed.pathname = `/${database}`
  return parsed.toString()
}

/** A fresh, empty database on the test server (nothing of Coursekit in it): its URL; dropped when the scope closes. */
export const freshDatabaseUrl = (serverUrl: string) =>
  Effect.gen(function*() {
    const name = `coursekit_test_${process.pid}_${Math.random().toString(36).slice(2, 10)}`
    const admin = PgClient.layer({ url: Redacted.make(serverUrl), maxConnections: 1 })
    const onAdmin = <A, E>(effect: Effect.Effect<A, E, SqlClient.SqlClient>) =>
      Effect.provide(effect, admin)
    yield* Effect.acquireRelease(
      onAdmin(Effect.flatMap(SqlClient.SqlClient, (sql) => sql`CREATE DATABASE ${sql(name)}`)),
      () =>
        onAdmin(Effect.flatMap(SqlClient.SqlClient, (sql) => sql`DROP DATABASE IF EXISTS ${sql(name)} WITH (FORCE)`)).pipe(
          Effect.orDie
        )
    )
    return withDatabase(serverUrl, name)
  })

/** A plain client of a fresh, empty database on the test server (not migrated); dropped on release. */
export const layerFreshDatabase = (serverUrl: string) =>
  Layer.unwrap(Effect.map(freshDatabaseUrl(serverUrl), (url) => PgClient.layer({ url: Redacted.make(url), maxConnections: 4 })))

/** A layer with a fresh, migrated database on the test server; dropped on release. */
export const layerTestDatabase = (
  serverUrl: string,
  options: { readonly timeout?: Duration.Input; readonly schema?: string } = {}
) =>
  Layer.unwrap(Effect.map(
    freshDatabaseUrl(serverUrl),
    (url) => PgDatabase.layer({ url: Redacted.make(url), maxConnections: 10, ...options })
  ))
