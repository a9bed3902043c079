import { ProviderCooldowns } from "@coursekit/core"
import { providerCooldownsSuite } from "@coursekit/core/testing"
import { assert, describe, expect, it, layer } from "@effect/vitest"
import { Deferred, Duration, Effect, Fiber, Layer, Logger, type LogLevel } from "effect"
import { SqlClient } from "effect/sql"
import * as PgProviderCooldowns from "../src/PgProviderCooldowns.ts"
import { layerTestDatabase, postgresRequired, testDatabaseUrl } from "./TestPostgres.ts"

// The cool-downs in PostgreSQL: the conformance suite, what several instances share, the
// database's clock, the table kept small, and a database that fails or stops answering.

/** Log lines written while `effect` runs: level and message. */
const withLogs = <A, E, R>(lines: Array<{ level: LogLevel.LogLevel; message: string }>, effect: Effect.Effect<A, E, R>) =>
  Effect.provide(effect, Logger.layer([Logger.make((options) => {
    lines.push({ level: options.logLevel, message: String((options.message as ReadonlyArray<unknown>)[0]) })
  })]))

/**
 * The table alone: the adapter without the process's view behind it, every store failure
 * a defect, so that the suite sees the table's own answers (through the fallback, a
 * statement that fails would still pass).
 */
const layerTableAlone = Layer.effect(
  ProviderCooldowns,
  Effect.map(PgProviderCooldowns.makeStore(), (store) =>
    ProviderCooldowns.of({
      remaining: (keys) => Effect.orDie(store.remaining(keys)),
      // The contract's "not a positive number sets nothing" is the fallback's (ProviderCooldowns.makeShared).
      coolDown: (key, forMillis) => Number.isFinite(forMillis) && forMillis > 0 ? Effect.orDie(store.coolDown(key, forMillis)) : Effect.void,
      clear: (key) => Effect.orDie(store.clear(key))
    }))
)

const newKey = () => `pg-test-${Math.random().toString(36).slice(2, 10)}/model`

const serverUrl = testDatabaseUrl
if (serverUrl !== undefined) {
  providerCooldownsSuite("PostgreSQL", PgProviderCooldowns.layer().pipe(Layer.provide(layerTestDatabase(serverUrl))))
  providerCooldownsSuite("PostgreSQL, the table alone", layerTableAlone.pipe(Layer.provide(layerTestDatabase(serverUrl))))

  describe("PgProviderCooldowns (PostgreSQL)", () => {
    layer(layerTestDatabase(serverUrl), { timeout: 60_000, excludeTestServices: true })((it) => {
      it.effect("instances on one database share the cool-downs: what one sets or clears, the other reads", () =>
        Effect.gen(function*() {
          const a = yield* PgProviderCooldowns.make()
          const b = yield* PgProviderCooldowns.make()
          const key = newKey()
          yield* a.coolDown(key, 60_000)
          const left = (yield* b.remaining([key])).get(key)
          assert.isDefined(left)
          assert.isAbove(left!, 55_000)
          // b's shorter cool-down does not shorten a's.
          yield* b.coolDown(key, 1_000)
          assert.isAbove((yield* a.remaining([key])).get(key)!, 55_000)
          // A success on b clears it for a too, though a set it itself.
          yield* b.clear(key)
          assert.strictEqual((yield* a.remaining([key])).size, 0)
        }))

      it.effect("clear reaches the database only for a cool-down this instance knows of; one set by another since runs on", () =>
        Effect.gen(function*() {
          const a = yield* PgProviderCooldowns.make()
          const b = yield* PgProviderCooldowns.make()
          const key = newKey()
          assert.strictEqual((yield* a.remaining([key])).size, 0)
          // b's provider asked for a cool-down after a read it; a's success does not end it.
          yield* b.coolDown(key, 60_000)
          yield* a.clear(key)
          assert.isTrue((yield* b.remaining([key])).has(key))
          // Once a has read it, a's success ends it for every instance.
          assert.isTrue((yield* a.remaining([key])).has(key))
          yield* a.clear(key)
          assert.strictEqual((yield* b.remaining([key])).size, 0)
        }))

      it.effect("the database's clock decides: a cool-down written in SQL is read as what is left of it", () =>
        Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          const cooldowns = yield* PgProviderCooldowns.make()
          const [key, over] = [newKey(), newKey()]
          yield* sql`INSERT INTO coursekit.provider_cooldowns (key, until) VALUES (${key}, now() + interval '30 seconds'), (${over}, now() - interval '1 second')`
          const left = yield* cooldowns.remaining([key, over])
          assert.deepStrictEqual([...left.keys()], [key])
          assert.isAbove(left.get(key)!, 25_000)
          assert.isAtMost(left.get(key)!, 30_000)
        }))

      it.effect("the table stays small: a clear deletes the row, a write prunes the rows whose cool-down is over", () =>
        Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          const cooldowns = yield* PgProviderCooldowns.make()
          const [cleared, over, current, written] = [newKey(), newKey(), newKey(), newKey()]
          yield* cooldowns.coolDown(cleared, 60_000)
          yield* cooldowns.clear(cleared)
          yield* sql`INSERT INTO coursekit.provider_cooldowns (key, until) VALUES (${over}, now() - interval '1 minute'), (${current}, now() + interval '1 minute')`
          yield* cooldowns.coolDown(written, 60_000)
          const rows = yield* sql<{ key: string }>`SELECT key FROM coursekit.provider_cooldowns WHERE key IN (${cleared}, ${over}, ${current}, ${written}) ORDER BY key`
          assert.deepStrictEqual(rows.map((row) => row.key), [current, written].sort())
        }))

      it.effect("a database that fails: the process's own view answers, one warning per outage, asked again after retryStoreAfter", () =>
        Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          const lines: Array<{ level: LogLevel.LogLevel; message: string }> = []
          const cooldowns = yield* PgProviderCooldowns.make({ retryStoreAfter: Duration.millis(500) })
          const [stored, local] = [newKey(), newKey()]
          yield* cooldowns.coolDown(stored, 60_000)
          yield* sql`ALTER TABLE coursekit.provider_cooldowns RENAME TO provider_cooldowns_away`
          yield* Effect.gen(function*() {
            const during = yield* withLogs(lines, Effect.gen(function*() {
              const before = yield* cooldowns.remaining([stored, local])
              yield* cooldowns.coolDown(local, 60_000)
              yield* Effect.sleep(Duration.millis(600))
              // Asked again after retryStoreAfter: still failing, and no second warning.
              const after = yield* cooldowns.remaining([stored, local])
              yield* cooldowns.clear(newKey())
              return { before, after }
            }))
            assert.deepStrictEqual([...during.before.keys()], [stored], "what this process set before the outage")
            assert.deepStrictEqual([...during.after.keys()].sort(), [stored, local].sort(), "and what it set during it")
          }).pipe(Effect.ensuring(sql`ALTER TABLE coursekit.provider_cooldowns_away RENAME TO provider_cooldowns`.pipe(Effect.orDie)))
          const warnings = lines.filter((line) => line.level === "Warn")
          assert.strictEqual(warnings.length, 1, JSON.stringify(lines))
          assert.include(warnings[0]!.message, "PostgreSQL database could not be used")

          // Back: the database is the truth again (the write made during the outage was not
          // stored), and its return is logged once.
          yield* Effect.sleep(Duration.millis(600))
          const back = yield* withLogs(lines, cooldowns.remaining([stored, local]))
          assert.deepStrictEqual([...back.keys()], [stored])
          assert.isTrue(lines.some((line) => line.level === "Info" && line.message.includes("answers again")))
          assert.strictEqual(lines.filter((line) => line.level === "Warn").length, 1)
        }))

      it.effect("a database that does not answer: the deadline, then the process's own view, without asking again for a while", () =>
        Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          const deadline = Duration.millis(200)
          const cooldowns = yield* PgProviderCooldowns.make({ deadline, retryStoreAfter: Duration.seconds(5) })
          const key = newKey()
          yield* cooldowns.coolDown(key, 60_000)
          // Another session holds the table: every statement on it waits.
          const locked = yield* Deferred.make<void>()
          const release = yield* Deferred.make<void>()
          const holder = yield* sql.withTransaction(Effect.gen(function*() {
            yield* sql`LOCK TABLE coursekit.provider_cooldowns IN ACCESS EXCLUSIVE MODE`
            yield* Deferred.succeed(locked, undefined)
            yield* Deferred.await(release)
          })).pipe(Effect.forkChild)
          yield* Deferred.await(locked)
          const lines: Array<{ level: LogLevel.LogLevel; message: string }> = []
          yield* withLogs(lines, Effect.gen(function*() {
            const [first, left] = yield* Effect.timed(cooldowns.remaining([key]))
            assert.deepStrictEqual([...left.keys()], [key])
            assert.isAtLeast(Duration.toMillis(first), Duration.toMillis(deadline) - 5)
            assert.isBelow(Duration.toMillis(first), Duration.toMillis(deadline) + 300, "answered at the deadline")
            // Left alone now: the next calls answer without waiting for the deadline (all three
            // together sooner than one would wait).
            const [next] = yield* Effect.timed(Effect.all([cooldowns.remaining([key]), cooldowns.coolDown(newKey(), 1000), cooldowns.clear(newKey())]))
            assert.isBelow(Duration.toMillis(next), Duration.toMillis(deadline))
          })).pipe(Effect.ensuring(Deferred.succeed(release, undefined)))
          yield* Fiber.join(holder)
          assert.deepStrictEqual(lines.map((line) => line.level), ["Warn"])
        }))
    })
  })
} else if (postgresRequired) {
  describe("PgProviderCooldowns (PostgreSQL)", () => {
    it("runs in CI", () => {
      expect.fail("TEST_DATABASE_URL is not set: CI must run the PostgreSQL suite")
    })
  })
}
