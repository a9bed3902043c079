/**
 * The embedded database's own behaviour: the memory settings it runs with, and a new
 * database created in a child process (so the server does not keep initdb's memory).
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { existsSync, mkdtempSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as PgliteInitdbProcess from "../src/internal/PgliteInitdbProcess.ts"
import * as PgliteDatabase from "../src/PgliteDatabase.ts"

const freshDirectory = () => join(mkdtempSync(join(process.env.COURSEKIT_TEST_TMP ?? tmpdir(), "pglite-")), "db")

describe("PgliteDatabase", () => {
  it.effect("runs PostgreSQL with the memory settings of one embedded session, on a new and on an existing database", () =>
    Effect.gen(function*() {
      const dataDir = freshDirectory()
      const settingsOf = Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        return yield* sql<{ shared_buffers: string; max_connections: string; maintenance_work_mem: string }>`
          SELECT current_setting('shared_buffers') AS shared_buffers,
                 current_setting('max_connections') AS max_connections,
                 current_setting('maintenance_work_mem') AS maintenance_work_mem`
      }).pipe(Effect.provide(Layer.fresh(PgliteDatabase.layer({ dataDir }))))
      const expected = [{ shared_buffers: "8MB", max_connections: "4", maintenance_work_mem: "16MB" }]
      assert.deepStrictEqual(yield* settingsOf, expected)
      assert.deepStrictEqual(yield* settingsOf, expected)
    }), 60_000)
})

describe("PgliteInitdbProcess.createInChildProcess", () => {
  it.effect("creates a missing database in a child process; PGlite then opens it", () =>
    Effect.gen(function*() {
      const dataDir = freshDirectory()
      yield* PgliteInitdbProcess.createInChildProcess(dataDir, ["shared_buffers=16MB"])
      assert.isTrue(existsSync(join(dataDir, "PG_VERSION")))
      const answer = yield* Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        return yield* sql<{ one: number }>`SELECT 1 AS one`
      }).pipe(Effect.provide(PgliteDatabase.layer({ dataDir })))
      assert.deepStrictEqual(answer, [{ one: 1 }])
    }), 60_000)

  it.effect("leaves an existing database alone", () =>
    Effect.gen(function*() {
      const dataDir = freshDirectory()
      yield* PgliteInitdbProcess.createInChildProcess(dataDir, [])
      const before = statSync(join(dataDir, "PG_VERSION")).mtimeMs
      yield* PgliteInitdbProcess.createInChildProcess(dataDir, [])
      assert.strictEqual(statSync(join(dataDir, "PG_VERSION")).mtimeMs, before)
    }), 60_000)

  it.effect("never fails: where no database can be made, it leaves the error to PGlite", () =>
    Effect.gen(function*() {
      const parent = mkdtempSync(join(process.env.COURSEKIT_TEST_TMP ?? tmpdir(), "pglite-"))
      writeFileSync(join(parent, "file"), "")
      // A data directory under a regular file cannot be made.
      yield* PgliteInitdbProcess.createInChildProcess(join(parent, "file", "db"), [])
      yield* PgliteInitdbProcess.createInChildProcess("memory://", [])
      const error = yield* Effect.flip(Effect.provide(Effect.void, PgliteDatabase.layer({ dataDir: join(parent, "file", "db") })))
      assert.strictEqual(error._tag, "PgliteStartError")
    }), 60_000)
})
