import {
  courseRepoSuite,
  courseSearchSuite,
  lessonRepoSuite,
  mediaRepoSuite,
  providerCooldownsSuite,
  publicCourseRowsSuite,
  purchaseRepoSuite,
  uploadRepoSuite
} from "@coursekit/core/testing"
import { CourseRepo, publicAudience, publishedNow } from "@coursekit/core"
import { PgClient } from "@effect/sql-pg"
import { assert, describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import * as PgCourseRepo from "../src/PgCourseRepo.ts"
import * as PgLessonRepo from "../src/PgLessonRepo.ts"
import * as PgProviderCooldowns from "../src/PgProviderCooldowns.ts"
import * as PgPurchaseRepo from "../src/PgPurchaseRepo.ts"
import * as PgPublicCourseRows from "../src/PgPublicCourseRows.ts"
import * as PgUploadRepo from "../src/PgUploadRepo.ts"
import { sharedDatabaseSuite } from "./SharedDatabaseSuite.ts"
import * as PgDatabase from "../src/PgDatabase.ts"
import { freshDatabaseUrl, layerFreshDatabase, layerTestDatabase, postgresRequired, testDatabaseUrl } from "./TestPostgres.ts"

if (testDatabaseUrl !== undefined) {
  const serverUrl = testDatabaseUrl
  sharedDatabaseSuite("PostgreSQL", () => layerFreshDatabase(serverUrl))

  describe("Coursekit in a shared database: a role with no rights on public", () => {
    it.effect("starts, migrates and serves in its own schema on a database whose public it may not even use", () =>
      Effect.gen(function*() {
        const on = (url: string) => (statement: (sql: SqlClient.SqlClient) => Effect.Effect<unknown, unknown>) =>
          Effect.flatMap(SqlClient.SqlClient, statement).pipe(
            Effect.provide(PgClient.layer({ url: Redacted.make(url), maxConnections: 1 })),
            Effect.orDie
          )
        const onServer = on(serverUrl)
        // Roles belong to the cluster: made before the database, so it goes after it.
        const role = `coursekit_restricted_${process.pid}_${Math.random().toString(36).slice(2, 8)}`
        yield* Effect.acquireRelease(
          onServer((sql) => sql`CREATE ROLE ${sql(role)} LOGIN`),
          () => onServer((sql) => sql`DROP ROLE IF EXISTS ${sql(role)}`)
        )
        const url = yield* freshDatabaseUrl(serverUrl)
        const asOwner = on(url)
        yield* asOwner((sql) => sql`REVOKE ALL ON SCHEMA public FROM PUBLIC`)
        yield* asOwner((sql) => sql.unsafe(`GRANT CREATE ON DATABASE "${new URL(url).pathname.slice(1)}" TO "${role}"`))
        const asRole = new URL(url)
        asRole.username = role
        const titles = yield* Effect.gen(function*() {
          const repo = yield* CourseRepo
          yield* repo.insert({ ...publishedNow, title: "Restricted", slugBase: "restricted", content_html: "" })
          return (yield* repo.list({ cursor: undefined, limit: 10, audience: publicAudience })).rows.map((row) => row.title)
        }).pipe(Effect.provide(PgCourseRepo.layer.pipe(Layer.provide(PgDatabase.layer({ url: Redacted.make(asRole.toString()), maxConnections: 2 })))))
        assert.deepStrictEqual(titles, ["Restricted"])
        // It could not have used public: it has no right there at all.
        const usage = yield* asOwner((sql) => sql`SELECT has_schema_privilege(${role}, 'public', 'USAGE') AS usage`)
        assert.deepStrictEqual(usage, [{ usage: false }])
      }).pipe(Effect.scoped), 60_000)
  })

  // The ports' conformance suites in a schema of its own, on a database whose `public`
  // holds a host's tables of the same names (and whose connections' search_path names
  // public): a statement that named a table without its schema would read or write the
  // host's table and fail the suite.
  const besideHostTables = Layer.effectDiscard(Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* sql`CREATE TABLE public.courses (id integer PRIMARY KEY, title text, slug text)`
    yield* sql`CREATE TABLE public.lessons (id integer PRIMARY KEY, course_id integer, title text, position integer)`
    yield* sql`CREATE TABLE public.purchases (user_id text, course_id integer)`
    yield* sql`CREATE TABLE public.sections (id integer PRIMARY KEY, course_id integer)`
    yield* sql`CREATE TABLE public.upload_intents (key text PRIMARY KEY)`
    yield* sql`CREATE TABLE public.media_files (id integer PRIMARY KEY, key text)`
    yield* sql`INSERT INTO public.courses VALUES (1, 'Host course', 'host-course')`
  }))
  const repos = Layer.mergeAll(PgCourseRepo.layer, PgLessonRepo.layer, PgPurchaseRepo.layer, PgPublicCourseRows.layer, PgUploadRepo.layer).pipe(
    Layer.provideMerge(besideHostTables),
    Layer.provideMerge(layerTestDatabase(serverUrl, { schema: "tenant_conformance" }))
  )
  const beside = "PostgreSQL, in its own schema beside a host's tables of the same names"
  courseRepoSuite(beside, repos)
  courseSearchSuite(beside, repos)
  lessonRepoSuite(beside, repos, { referencesMedia: true })
  purchaseRepoSuite(beside, repos)
  publicCourseRowsSuite(beside, repos)
  uploadRepoSuite(beside, repos)
  mediaRepoSuite(beside, repos)
  providerCooldownsSuite(beside, PgProviderCooldowns.layer().pipe(Layer.provide(repos)))
} else if (postgresRequired) {
  describe("Coursekit in a shared database: PostgreSQL", () => {
    it("runs in CI", () => {
      expect.fail("TEST_DATABASE_URL is not set: CI must run the PostgreSQL suite")
    })
  })
}
