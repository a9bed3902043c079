/**
 * Two standalone servers on one PostgreSQL database, each in a schema of its own
 * (`DATABASE_SCHEMA`): two tenants, or staging beside production. Neither sees the
 * other's courses, and a write on one never touches the other's list cache, which stays
 * exact for its own writes.
 */
import { PgClient } from "@effect/sql-pg"
import { assert, describe, expect, it, layer } from "@effect/vitest"
import { Context, Effect, Layer, Option, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import * as StandaloneServer from "../src/StandaloneServer.ts"
import { callAt, testSettings, urlOf } from "./TestServer.ts"

const serverUrl = process.env.TEST_DATABASE_URL
const required = process.env.COURSEKIT_REQUIRE_POSTGRES === "1"

class Tenants extends Context.Service<Tenants, { readonly a: string; readonly b: string }>()("test/Tenants") {}

if (serverUrl !== undefined) {
  const databaseName = `coursekit_tenants_${process.pid}_${Math.random().toString(36).slice(2, 8)}`
  const target = new URL(serverUrl)
  target.pathname = `/${databaseName}`
  const onDatabase = (url: string, statement: (sql: SqlClient.SqlClient) => Effect.Effect<unknown, unknown>) =>
    Effect.flatMap(SqlClient.SqlClient, statement).pipe(
      Effect.provide(PgClient.layer({ url: Redacted.make(url), maxConnections: 1 })),
      Effect.orDie
    )
  const onShared = (statement: (sql: SqlClient.SqlClient) => Effect.Effect<unknown, unknown>) =>
    onDatabase(target.toString(), statement)

  const layerTenants = Layer.unwrap(Effect.gen(function*() {
    yield* Effect.acquireRelease(
      onDatabase(serverUrl, (sql) => sql`CREATE DATABASE ${sql(databaseName)}`),
      () => onDatabase(serverUrl, (sql) => sql`DROP DATABASE IF EXISTS ${sql(databaseName)} WITH (FORCE)`)
    )
    const settings = testSettings({ databaseUrl: Option.some(Redacted.make(target.toString())), databasePoolSize: 4 })
    const serve = (schema: string) =>
      Layer.build(StandaloneServer.layerFrom({ ...settings, dataDir: `${settings.dataDir}-${schema}`, databaseSchema: schema })).pipe(
        Effect.flatMap((context) => Effect.provide(urlOf, context))
      )
    return Layer.succeed(Tenants, Tenants.of({ a: yield* serve("tenant_a"), b: yield* serve("tenant_b") }))
  }))

  const titlesAt = (url: string) => callAt(url, "/courses?limit=50").pipe(Effect.map((reply) => reply.body.map((item: any) => item.title)))

  describe("two servers in two schemas of one PostgreSQL database", () => {
    layer(layerTenants, { timeout: 60_000, excludeTestServices: true })((it) => {
      it.effect("each lists only its own courses; a write on one leaves the other's cache alone, and each cache stays exact", () =>
        Effect.gen(function*() {
          const { a, b } = yield* Tenants
          const inA = yield* callAt(a, "/courses", { method: "POST", admin: true, json: { title: "Tenant A's course", content_html: "" } })
          const inB = yield* callAt(b, "/courses", { method: "POST", admin: true, json: { title: "Tenant B's course", content_html: "" } })
          assert.strictEqual(inA.status, 201)
          assert.strictEqual(inB.status, 201)
          assert.deepStrictEqual(yield* titlesAt(a), ["Tenant A's course"])
          assert.deepStrictEqual(yield* titlesAt(b), ["Tenant B's course"])

          // B's page is cached now. A change behind B's back (its version trigger off)
          // stays invisible to B as long as nothing moves B's version…
          yield* onShared((sql) => sql`ALTER TABLE tenant_b.courses DISABLE TRIGGER courses_update_bumps_catalogue_version`)
          yield* onShared((sql) => sql`UPDATE tenant_b.courses SET title = 'Silently changed' WHERE id = ${inB.body.id}`)
          yield* onShared((sql) => sql`ALTER TABLE tenant_b.courses ENABLE TRIGGER courses_update_bumps_catalogue_version`)
          assert.deepStrictEqual(yield* titlesAt(b), ["Tenant B's course"])
          // …and A's writes do not move it: B still answers from its cache.
          for (let round = 0; round < 5; round++) {
            yield* callAt(a, `/courses/${inA.body.id}`, { method: "PATCH", admin: true, json: { title: `A, renamed ${round}` } })
            assert.deepStrictEqual(yield* titlesAt(a), [`A, renamed ${round}`])
            assert.deepStrictEqual(yield* titlesAt(b), ["Tenant B's course"])
          }
          // A write of B's own moves B's version: its very next list is exact.
          yield* callAt(b, "/courses", { method: "POST", admin: true, json: { title: "Second in B", content_html: "" } })
          assert.deepStrictEqual(yield* titlesAt(b), ["Silently changed", "Second in B"])
          assert.deepStrictEqual(yield* titlesAt(a), ["A, renamed 4"])
        }))
    })
  })
} else if (required) {
  describe("two servers in two schemas of one PostgreSQL database", () => {
    it("runs in CI", () => {
      expect.fail("TEST_DATABASE_URL is not set: CI must run the PostgreSQL suite")
    })
  })
}
