import { PgClient } from "@effect/sql-pg"
import { assert, describe, expect, it, layer } from "@effect/vitest"
import { Effect, Layer, Option, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { call, layerTestServer } from "./TestServer.ts"

const serverUrl = process.env.TEST_DATABASE_URL
const required = process.env.CI === "true" || process.env.CI === "1"

// A database of its own on the test server, dropped when the suite ends.
const databaseName = `coursekit_http_${process.pid}_${Math.random().toString(36).slice(2, 8)}`
const adminLayer = (url: string) => PgClient.layer({ url: Redacted.make(url), maxConnections: 1 })
const onServer = (url: string, statement: (sql: SqlClient.SqlClient) => Effect.Effect<unknown, unknown>) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* statement(sql)
  }).pipe(Effect.provide(adminLayer(url)), Effect.orDie)

const layerDatabaseAndServer = (url: string) => {
  const target = new URL(url)
  target.pathname = `/${databaseName}`
  return Layer.unwrap(Effect.gen(function*() {
    yield* Effect.acquireRelease(
      onServer(url, (sql) => sql`CREATE DATABASE ${sql(databaseName)}`),
      () => onServer(url, (sql) => sql`DROP DATABASE IF EXISTS ${sql(databaseName)} WITH (FORCE)`)
    )
    return layerTestServer({ databaseUrl: Option.some(Redacted.make(target.toString())), databasePoolSize: 4 })
  }))
}

if (serverUrl !== undefined) {
  describe("standalone server over HTTP (PostgreSQL)", () => {
    layer(layerDatabaseAndServer(serverUrl), { timeout: 60_000 })((it) => {
      it.effect("creates, pages and reads courses on PostgreSQL", () =>
        Effect.gen(function*() {
          const created = yield* Effect.forEach(
            Array.from({ length: 20 }, () => "Same Title"),
            (title) => call("/courses", { method: "POST", admin: true, json: { title, content_html: "<p>x</p>" } }),
            { concurrency: "unbounded" }
          )
          assert.isTrue(created.every((reply) => reply.status === 201))
          assert.strictEqual(new Set(created.map((reply) => reply.body.slug)).size, 20)
          const page = yield* call("/courses?limit=5")
          assert.strictEqual(page.body.length, 5)
          assert.match(page.headers.get("link") ?? "", /^<\/courses\?cursor=\d+&limit=5>; rel="next"$/)
        }))

      it.effect("a lost database answers 503 problems, and service resumes when it is back", () =>
        Effect.gen(function*() {
          // Cut every connection of the server under test, as a database restart would.
          const cut = onServer(serverUrl, (sql) =>
            sql`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = ${databaseName}`)
          yield* cut
          // Make new connections fail too until we allow them again.
          yield* onServer(serverUrl, (sql) => sql`ALTER DATABASE ${sql(databaseName)} WITH ALLOW_CONNECTIONS false`)
          yield* cut
          const down = yield* call("/courses")
          assert.strictEqual(down.status, 503)
          assert.strictEqual(down.headers.get("content-type"), "application/problem+json")
          assert.strictEqual(down.body.title, "Service Unavailable")
          assert.notInclude(down.text, "terminat")
          const ready = yield* call("/health/ready")
          assert.strictEqual(ready.status, 503)
          assert.strictEqual(ready.body.checks[0].status, "down")
          yield* onServer(serverUrl, (sql) => sql`ALTER DATABASE ${sql(databaseName)} WITH ALLOW_CONNECTIONS true`)
          const back = yield* call("/courses")
          assert.strictEqual(back.status, 200)
          assert.strictEqual((yield* call("/health/ready")).status, 200)
        }))
    })
  })
} else if (required) {
  describe("standalone server over HTTP (PostgreSQL)", () => {
    it("runs in CI", () => {
      expect.fail("TEST_DATABASE_URL is not set: CI must run the PostgreSQL suite")
    })
  })
}
