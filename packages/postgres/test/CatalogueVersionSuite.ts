/**
 * The catalogue version's bump (migrations 0002 and 0012) on a real database: once per
 * statement that changes courses, never for one that changes none, and its one-row
 * table stays one page whatever the size of a write.
 */
import { assert, describe, layer } from "@effect/vitest"
import { Effect, type Layer } from "effect"
import { SqlClient } from "effect/sql"

export const catalogueVersionSuite = (name: string, database: Layer.Layer<SqlClient.SqlClient, unknown>) =>
  describe(`catalogue version: ${name}`, () => {
    layer(database, { timeout: 60_000 })((it) => {
      const counter = Effect.flatMap(SqlClient.SqlClient, (sql) =>
        Effect.map(sql<{ version: string }>`SELECT version::text AS version FROM coursekit_catalogue_version`, (rows) => BigInt(rows[0]!.version)))
      const pages = Effect.flatMap(SqlClient.SqlClient, (sql) =>
        Effect.map(
          sql<{ pages: number }>`SELECT (pg_relation_size('coursekit_catalogue_version') / current_setting('block_size')::int)::int AS pages`,
          (rows) => rows[0]!.pages
        ))

      it.effect("one bump per statement that changes courses, however many rows; none for a statement that changes none", () =>
        Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          const start = yield* counter
          yield* sql`
            INSERT INTO courses (title, slug, content_html)
            SELECT 'Bulk ' || i, 'bulk-version-' || i, '' FROM generate_series(1, 2000) AS i
          `
          assert.strictEqual(yield* counter, start + 1n)
          yield* sql`UPDATE courses SET title = title || '.' WHERE slug LIKE 'bulk-version-%'`
          assert.strictEqual(yield* counter, start + 2n)
          yield* sql`UPDATE courses SET title = 'none' WHERE id = -1`
          yield* sql`DELETE FROM courses WHERE id = -1`
          assert.strictEqual(yield* counter, start + 2n)
          yield* sql`DELETE FROM courses WHERE slug LIKE 'bulk-version-%'`
          assert.strictEqual(yield* counter, start + 3n)
          assert.strictEqual(yield* pages, 1, "2,000 changed rows left the version row in one page")
        }))

      it.effect("every statement of a transaction bumps, and a rolled-back one does not", () =>
        Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          const start = yield* counter
          yield* Effect.gen(function*() {
            yield* sql`INSERT INTO courses (title, slug, content_html) VALUES ('One', 'tx-version-1', '')`
            yield* sql`UPDATE courses SET title = 'Two' WHERE slug = 'tx-version-1'`
          }).pipe(sql.withTransaction)
          assert.strictEqual(yield* counter, start + 2n)
          yield* Effect.flip(
            Effect.gen(function*() {
              yield* sql`DELETE FROM courses WHERE slug = 'tx-version-1'`
              return yield* Effect.fail("roll back")
            }).pipe(sql.withTransaction)
          )
          assert.strictEqual(yield* counter, start + 2n)
        }))
    })
  })
