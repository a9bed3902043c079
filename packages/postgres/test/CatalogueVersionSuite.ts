/**
 * The catalogue version's bump (migrations 0002 and 0012) on a real database: once per
 * statement that changes courses, never for one that changes none, and its one-row
 * table stays one page whatever the size of a write.
 */
import { CourseRepo, type CourseId, publicAudience } from "@coursekit/core"
import { assert, describe, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import * as PgCourseRepo from "../src/PgCourseRepo.ts"

export const catalogueVersionSuite = (name: string, database: Layer.Layer<SqlClient.SqlClient, unknown>) =>
  describe(`catalogue version: ${name}`, () => {
    layer(PgCourseRepo.layer.pipe(Layer.provideMerge(database)), { timeout: 60_000 })((it) => {
      const counter = Effect.flatMap(SqlClient.SqlClient, (sql) =>
        Effect.map(sql<{ version: string }>`SELECT version::text AS version FROM coursekit.coursekit_catalogue_version`, (rows) => BigInt(rows[0]!.version)))
      const pages = Effect.flatMap(SqlClient.SqlClient, (sql) =>
        Effect.map(
          sql<{ pages: number }>`SELECT (pg_relation_size('coursekit.coursekit_catalogue_version') / current_setting('block_size')::int)::int AS pages`,
          (rows) => rows[0]!.pages
        ))

      it.effect("one bump per statement that changes courses, however many rows; none for a statement that changes none", () =>
        Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          const start = yield* counter
          yield* sql`
            INSERT INTO coursekit.courses (title, slug, content_html)
            SELECT 'Bulk ' || i, 'bulk-version-' || i, '' FROM generate_series(1, 2000) AS i
          `
          assert.strictEqual(yield* counter, start + 1n)
          yield* sql`UPDATE coursekit.courses SET title = title || '.' WHERE slug LIKE 'bulk-version-%'`
          assert.strictEqual(yield* counter, start + 2n)
          yield* sql`UPDATE coursekit.courses SET title = 'none' WHERE id = -1`
          yield* sql`DELETE FROM coursekit.courses WHERE id = -1`
          yield* sql`INSERT INTO coursekit.courses (title, slug, content_html) VALUES ('Again', 'bulk-version-1', '') ON CONFLICT (slug) DO NOTHING`
          assert.strictEqual(yield* counter, start + 2n)
          yield* sql`DELETE FROM coursekit.courses WHERE slug LIKE 'bulk-version-%'`
          assert.strictEqual(yield* counter, start + 3n)
          assert.strictEqual(yield* pages, 1, "2,000 changed rows left the version row in one page")
        }))

      it.effect("every statement of a transaction bumps, and a rolled-back one does not", () =>
        Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          const start = yield* counter
          yield* Effect.gen(function*() {
            yield* sql`INSERT INTO coursekit.courses (title, slug, content_html) VALUES ('One', 'tx-version-1', '')`
            yield* sql`UPDATE coursekit.courses SET title = 'Two' WHERE slug = 'tx-version-1'`
          }).pipe(sql.withTransaction)
          assert.strictEqual(yield* counter, start + 2n)
          yield* Effect.flip(
            Effect.gen(function*() {
              yield* sql`DELETE FROM coursekit.courses WHERE slug = 'tx-version-1'`
              return yield* Effect.fail("roll back")
            }).pipe(sql.withTransaction)
          )
          assert.strictEqual(yield* counter, start + 2n)
        }))

      it.effect("list's version is the one its rows were read at, while writes go on", () =>
        Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          const repo = yield* CourseRepo
          const inserted = yield* sql<{ id: CourseId }>`
            INSERT INTO coursekit.courses (title, slug, content_html) VALUES ('0', 'listed-at-version', '') RETURNING id
          `
          const id = inserted[0]!.id
          // The version is opaque: the token each title was written at, read by the only writer.
          const tokens = [yield* repo.version]
          const writes = Effect.forEach(Array.from({ length: 150 }, (_, n) => n + 1), (n) =>
            Effect.gen(function*() {
              yield* sql`UPDATE coursekit.courses SET title = ${String(n)} WHERE id = ${id}`
              tokens[n] = yield* repo.version
            }), { discard: true })
          const reads = Effect.forEach(Array.from({ length: 150 }), () => repo.list({ cursor: id, limit: 1, audience: publicAudience }), {
            concurrency: 4
          })
          const [, pages] = yield* Effect.all([writes, reads], { concurrency: 2 })
          const titles = new Set(pages.map((page) => page.rows[0]!.title))
          assert.strictEqual(new Set(tokens).size, 151, "every update is a new version")
          for (const page of pages) assert.strictEqual(page.version, tokens[Number(page.rows[0]!.title)], `page of title ${page.rows[0]!.title}`)
          if (name === "PostgreSQL") assert.isAbove(titles.size, 2, "the reads overlapped the writes")
        }))
    })
  })
