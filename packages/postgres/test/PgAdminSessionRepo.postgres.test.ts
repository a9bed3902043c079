import { AdminSessionRepo } from "@coursekit/core"
import { adminSessionRepoSuite } from "@coursekit/core/testing"
import { assert, describe, expect, it, layer } from "@effect/vitest"
import { Duration, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import * as PgAdminSessionRepo from "../src/PgAdminSessionRepo.ts"
import { layerTestDatabase, postgresRequired, testDatabaseUrl } from "./TestPostgres.ts"

// Admin sessions in PostgreSQL: the conformance suite, what several instances share, and
// the database's clock.

const newKey = () => Array.from({ length: 64 }, () => Math.floor(Math.random() * 16).toString(16)).join("")
const twelveHours = { idle: Duration.hours(12), refreshAfter: Duration.minutes(1) }

const serverUrl = testDatabaseUrl
if (serverUrl !== undefined) {
  adminSessionRepoSuite("PostgreSQL", PgAdminSessionRepo.layer.pipe(Layer.provide(layerTestDatabase(serverUrl))))

  describe("PgAdminSessionRepo (PostgreSQL)", () => {
    layer(layerTestDatabase(serverUrl), { timeout: 60_000, excludeTestServices: true })((it) => {
      it.effect("instances on one database share the sessions: one signs in, the other knows it; one removes it, neither does", () =>
        Effect.gen(function*() {
          const a = yield* PgAdminSessionRepo.make()
          const b = yield* PgAdminSessionRepo.make()
          const key = newKey()
          yield* a.create(key, "principal", twelveHours.idle)
          assert.strictEqual(yield* b.use(key, twelveHours), "principal")
          yield* b.remove(key)
          assert.isUndefined(yield* a.use(key, twelveHours))
        }))

      it.effect("the database's clock decides: 12 hours after the last-seen instant it stores, the session is over", () =>
        Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          const repo = yield* PgAdminSessionRepo.make()
          const [almost, over] = [newKey(), newKey()]
          yield* repo.create(almost, "principal", twelveHours.idle)
          yield* repo.create(over, "principal", twelveHours.idle)
          yield* sql`UPDATE coursekit.admin_sessions SET last_seen_at = now() - interval '11 hours 59 minutes' WHERE key = ${almost}`
          yield* sql`UPDATE coursekit.admin_sessions SET last_seen_at = now() - interval '12 hours 1 second' WHERE key = ${over}`
          assert.strictEqual(yield* repo.use(almost, twelveHours), "principal")
          assert.isUndefined(yield* repo.use(over, twelveHours))
          // The use of the one almost over was due: it is seen now, by the database's clock.
          const [seen] = yield* sql<{ readonly age_s: number }>`
            SELECT extract(epoch FROM now() - last_seen_at)::float8 AS age_s FROM coursekit.admin_sessions WHERE key = ${almost}`
          assert.isBelow(seen!.age_s, 5)
          // A sign-in removes the one that is over, and only that one.
          yield* repo.create(newKey(), "principal", twelveHours.idle)
          const left = yield* sql<{ readonly key: string }>`SELECT key FROM coursekit.admin_sessions WHERE key IN (${almost}, ${over})`
          assert.deepStrictEqual(left.map((row) => row.key), [almost])
        }))

      it.effect("a use within a minute of the last write leaves the row alone", () =>
        Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          const repo = yield* PgAdminSessionRepo.make()
          const key = newKey()
          yield* repo.create(key, "principal", twelveHours.idle)
          yield* sql`UPDATE coursekit.admin_sessions SET last_seen_at = now() - interval '30 seconds' WHERE key = ${key}`
          const before = yield* sql<{ readonly xmin: string }>`SELECT xmin::text FROM coursekit.admin_sessions WHERE key = ${key}`
          assert.strictEqual(yield* repo.use(key, twelveHours), "principal")
          const after = yield* sql<{ readonly xmin: string }>`SELECT xmin::text FROM coursekit.admin_sessions WHERE key = ${key}`
          assert.deepStrictEqual(after, before, "no new row version")
        }))

      it.effect("what is stored: the key and principal as given, and two instants", () =>
        Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          const repo = yield* AdminSessionRepo
          const key = newKey()
          yield* repo.create(key, "principal-digest", twelveHours.idle)
          const rows = yield* sql<Record<string, unknown>>`SELECT * FROM coursekit.admin_sessions WHERE key = ${key}`
          assert.deepStrictEqual(Object.keys(rows[0]!).sort(), ["created_at", "key", "last_seen_at", "principal"])
          assert.deepStrictEqual([rows[0]!.key, rows[0]!.principal], [key, "principal-digest"])
        }).pipe(Effect.provide(PgAdminSessionRepo.layer)))
    })
  })
} else if (postgresRequired) {
  describe("AdminSessionRepo: PostgreSQL", () => {
    it("runs in CI", () => {
      expect.fail("TEST_DATABASE_URL is not set: CI must run the PostgreSQL suite")
    })
  })
}
