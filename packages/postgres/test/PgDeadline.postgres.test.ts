import { describe, expect, it, layer } from "@effect/vitest"
import { Duration, Effect } from "effect"
import { SqlClient } from "effect/sql"
import * as PgDeadline from "../src/PgDeadline.ts"
import { layerTestDatabase, postgresRequired, testDatabaseUrl } from "./TestPostgres.ts"

// The deadline on PostgreSQL: the repositories read it, and the server stops a statement
// at it on its own (the session's statement_timeout), should the client's cancel be lost.

const serverUrl = testDatabaseUrl
if (serverUrl !== undefined) {
  describe("PgDatabase deadline (PostgreSQL)", () => {
    layer(layerTestDatabase(serverUrl, { timeout: Duration.millis(1500) }), { timeout: 60_000, excludeTestServices: true })(
      (it) => {
        it.effect("the repositories' deadline and the session's statement_timeout are the timeout", () =>
          Effect.gen(function*() {
            expect(Duration.toMillis(yield* PgDeadline.PgDeadline)).toBe(1500)
            const sql = yield* SqlClient.SqlClient
            const [row] = yield* sql<{ statement_timeout: string }>`SHOW statement_timeout`
            expect(row!.statement_timeout).toBe("1500ms")
          }))

        it.effect("a statement the client leaves running is stopped by the server at the timeout", () =>
          Effect.gen(function*() {
            const sql = yield* SqlClient.SqlClient
            const [elapsed, error] = yield* Effect.timed(Effect.flip(sql`SELECT pg_sleep(10)`))
            expect(error._tag).toBe("SqlError")
            expect(error.reason._tag).toBe("StatementTimeoutError")
            expect(Duration.toMillis(elapsed)).toBeGreaterThanOrEqual(1400)
            expect(Duration.toMillis(elapsed)).toBeLessThan(5000)
          }))
      }
    )
  })
} else if (postgresRequired) {
  describe("PgDatabase deadline (PostgreSQL)", () => {
    it("runs in CI", () => {
      expect.fail("TEST_DATABASE_URL is not set: CI must run the PostgreSQL suite")
    })
  })
}
