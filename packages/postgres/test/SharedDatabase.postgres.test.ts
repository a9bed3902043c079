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
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import * as PgCourseRepo from "../src/PgCourseRepo.ts"
import * as PgLessonRepo from "../src/PgLessonRepo.ts"
import * as PgProviderCooldowns from "../src/PgProviderCooldowns.ts"
import * as PgPurchaseRepo from "../src/PgPurchaseRepo.ts"
import * as PgUploadRepo from "../src/PgUploadRepo.ts"
import { sharedDatabaseSuite } from "./SharedDatabaseSuite.ts"
import { layerFreshDatabase, layerTestDatabase, postgresRequired, testDatabaseUrl } from "./TestPostgres.ts"

if (testDatabaseUrl !== undefined) {
  const serverUrl = testDatabaseUrl
  sharedDatabaseSuite("PostgreSQL", () => layerFreshDatabase(serverUrl))

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
  const repos = Layer.mergeAll(PgCourseRepo.layer, PgLessonRepo.layer, PgPurchaseRepo.layer, PgUploadRepo.layer).pipe(
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
