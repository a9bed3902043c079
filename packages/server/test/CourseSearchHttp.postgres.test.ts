import { PgClient } from "@effect/sql-pg"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Option, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { courseSearchHttpSuite } from "./CourseSearchHttpSuite.ts"
import { layerTestServer } from "./TestServer.ts"

const serverUrl = process.env.TEST_DATABASE_URL

// A database of its own on the test server, dropped when the suite ends.
const layerDatabaseAndServer = (url: string) => {
  const name = `coursekit_search_${process.pid}_${Math.random().toString(36).slice(2, 8)}`
  const onServer = (statement: (sql: SqlClient.SqlClient) => Effect.Effect<unknown, unknown>) =>
    Effect.flatMap(SqlClient.SqlClient, statement).pipe(
      Effect.provide(PgClient.layer({ url: Redacted.make(url), maxConnections: 1 })),
      Effect.orDie
    )
  const target = new URL(url)
  target.pathname = `/${name}`
  return Layer.unwrap(Effect.gen(function*() {
    yield* Effect.acquireRelease(
      onServer((sql) => sql`CREATE DATABASE ${sql(name)}`),
      () => onServer((sql) => sql`DROP DATABASE IF EXISTS ${sql(name)} WITH (FORCE)`)
    )
    return layerTestServer({ databaseUrl: Option.some(Redacted.make(target.toString())), databasePoolSize: 4 })
  }))
}

if (serverUrl !== undefined) {
  courseSearchHttpSuite("PostgreSQL", layerDatabaseAndServer(serverUrl))
} else if (process.env.COURSEKIT_REQUIRE_POSTGRES === "1") {
  describe("GET /courses/search (PostgreSQL)", () => {
    it("runs in CI", () => {
      expect.fail("TEST_DATABASE_URL is not set: CI must run the PostgreSQL suite")
    })
  })
}
