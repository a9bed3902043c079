/**
 * The search documents as PostgreSQL and PGlite keep them, beyond the conformance suite:
 * migration 0010 indexes the courses that exist before it, and courses written by plain
 * SQL are not found until `indexMissing` (run at every start) writes their documents.
 */
import { CourseRepo, publishedNow, searchTerms, Slug } from "@coursekit/core"
import { assert, describe, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { indexMissing } from "../src/PgCourseSearch.ts"
import { layerMigrations, migrate } from "../src/PgMigrations.ts"

const newTag = () => `t${Math.random().toString(36).slice(2, 12)}`

const idsFor = (query: string) =>
  Effect.flatMap(CourseRepo, (repo) => repo.search({ terms: searchTerms(query), after: undefined, limit: 50 })).pipe(
    Effect.map((rows) => rows.map((row) => row.id))
  )

/** Inserts a course by plain SQL, as another client of the database would. */
const insertBySql = (title: string, contentHtml: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ id: number }>`
      INSERT INTO coursekit.courses (title, slug, content_html) VALUES (${title}, ${Slug.fromTitle(title)}, ${contentHtml})
      RETURNING id`
    return rows[0]!.id
  })

export const searchDocumentsSuite = <E>(name: string, repos: Layer.Layer<CourseRepo | SqlClient.SqlClient, E>) => {
  describe(`search documents: ${name}`, () => {
    layer(repos, { timeout: 60_000 })((it) => {
      it.effect("migration 0010 indexes the courses stored before it, with the words the repository would write", () =>
        Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          const tag = newTag()
          const byRepo = yield* (yield* CourseRepo).insert({ ...publishedNow, title: `Repo ${tag}`, slugBase: `repo-${tag}`, content_html: "" })
          const bySql = yield* insertBySql(`Crème ${tag}`, "<p>Knead <b>Cr</b>&egrave;me <a href=\"https://example.com\">here</a></p>")
          // The database as it was before 0010 (and the steps after it, undone; 0014 replaces
          // its function whatever it finds).
          yield* sql`DROP TABLE coursekit.admin_sessions`
          yield* sql`DELETE FROM coursekit.coursekit_migrations WHERE migration_id = 18`
          yield* sql`DROP TABLE coursekit.lesson_progress, coursekit.course_progress`
          yield* sql`ALTER TABLE coursekit.lessons DROP COLUMN available_after_days`
          yield* sql`DELETE FROM coursekit.coursekit_migrations WHERE migration_id = 17`
          yield* sql`DROP TABLE coursekit.course_revisions, coursekit.lesson_revisions`
          yield* sql`DELETE FROM coursekit.coursekit_migrations WHERE migration_id = 16`
          for (const table of ["courses", "lessons", "sections"]) {
            yield* sql.unsafe(`DROP TRIGGER ${table}_count_version ON coursekit.${table}`)
            yield* sql.unsafe(`ALTER TABLE coursekit.${table} DROP COLUMN version`)
          }
          yield* sql`DROP FUNCTION coursekit.coursekit_count_version()`
          yield* sql`DELETE FROM coursekit.coursekit_migrations WHERE migration_id = 15`
          yield* sql`DELETE FROM coursekit.coursekit_migrations WHERE migration_id = 14`
          yield* sql`DELETE FROM coursekit.coursekit_migrations WHERE migration_id = 13`
          yield* sql`DROP FUNCTION coursekit.coursekit_bump_catalogue_version_if_changed() CASCADE`
          yield* sql`
            CREATE TRIGGER courses_bump_catalogue_version AFTER INSERT OR UPDATE OR DELETE ON coursekit.courses
            FOR EACH ROW EXECUTE FUNCTION coursekit.coursekit_bump_catalogue_version()
          `
          yield* sql`DELETE FROM coursekit.coursekit_migrations WHERE migration_id = 12`
          yield* sql`DROP TABLE coursekit.provider_cooldowns`
          yield* sql`DELETE FROM coursekit.coursekit_migrations WHERE migration_id = 11`
          yield* sql`DROP TABLE coursekit.course_search_documents`
          yield* sql`DROP FUNCTION coursekit.coursekit_follow_course() CASCADE`
          yield* sql`DROP FUNCTION coursekit.coursekit_search_document_visibility()`
          yield* sql`DROP FUNCTION coursekit.coursekit_visible_from(text, timestamptz)`
          yield* sql`DELETE FROM coursekit.coursekit_migrations WHERE migration_id = 10`
          const applied = yield* sql.withTransaction(migrate)
          assert.deepStrictEqual(applied, [
            [10, "course_search"],
            [11, "provider_cooldowns"],
            [12, "catalogue_version_per_statement"],
            [13, "function_search_path"],
            [14, "opaque_catalogue_token"],
            [15, "record_versions"],
            [16, "revisions"],
            [17, "learner_progress"],
            [18, "admin_sessions"]
          ])
          assert.deepStrictEqual(yield* idsFor(tag), [byRepo.id, bySql])
          assert.deepStrictEqual(yield* idsFor(`${tag} creme knead`), [bySql])
          assert.deepStrictEqual(yield* idsFor(`${tag} href`), [])
          assert.deepStrictEqual(yield* indexMissing, 0)
          // No statistics on the words: every query goes through the index (see the migration).
          const target = yield* sql<{ target: number }>`
            SELECT attstattarget::int AS target FROM pg_attribute
            WHERE attrelid = 'coursekit.course_search_documents'::regclass AND attname = 'document'`
          assert.strictEqual(target[0]!.target, 0)
        }))

      it.effect("a course written by plain SQL is found once indexMissing ran; a plain SQL change of its text drops its words until then", () =>
        Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          const tag = newTag()
          const id = yield* insertBySql(`Plain ${tag}`, "<p>first words</p>")
          assert.deepStrictEqual(yield* idsFor(tag), [])
          // What every start runs after the migrations (fresh: the suite's layer built it once already).
          yield* Effect.scoped(Layer.build(Layer.fresh(layerMigrations)))
          assert.deepStrictEqual(yield* idsFor(`${tag} first`), [id])
          yield* sql`UPDATE coursekit.courses SET title = ${`Renamed ${tag}`} WHERE id = ${id}`
          assert.deepStrictEqual(yield* idsFor(tag), [])
          assert.deepStrictEqual(yield* indexMissing, 1)
          assert.deepStrictEqual(yield* idsFor(`${tag} renamed first`), [id])
          assert.deepStrictEqual(yield* idsFor(`${tag} plain`), [])
          // Changes that leave the text as it was keep the document; its visibility
          // follows the course's at once.
          yield* sql`UPDATE coursekit.courses SET title = ${`Renamed ${tag}`}, thumbnail_key = NULL WHERE id = ${id}`
          yield* sql`UPDATE coursekit.courses SET status = 'published', publish_at = NULL WHERE id = ${id}`
          assert.deepStrictEqual(yield* idsFor(`${tag} renamed`), [id])
          yield* sql`UPDATE coursekit.courses SET status = 'draft' WHERE id = ${id}`
          assert.deepStrictEqual(yield* idsFor(tag), [])
          yield* sql`UPDATE coursekit.courses SET status = 'published', publish_at = now() + interval '1 day' WHERE id = ${id}`
          assert.deepStrictEqual(yield* idsFor(tag), [])
          yield* sql`UPDATE coursekit.courses SET publish_at = now() - interval '1 second' WHERE id = ${id}`
          assert.deepStrictEqual(yield* idsFor(`${tag} renamed`), [id])
          yield* sql`UPDATE coursekit.courses SET content_html = '<p>second</p>' WHERE id = ${id}`
          assert.deepStrictEqual(yield* idsFor(tag), [])
          yield* indexMissing
          assert.deepStrictEqual(yield* idsFor(`${tag} second`), [id])
          // Deleting the course deletes its document.
          yield* sql`DELETE FROM coursekit.courses WHERE id = ${id}`
          const left = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM coursekit.course_search_documents WHERE course_id = ${id}`
          assert.strictEqual(left[0]!.n, 0)
        }))
    })
  })
}
