import { lessonRepoSuite, publicCourseRowsSuite, purchaseRepoSuite } from "@coursekit/core/testing"
import { describe, expect, it } from "@effect/vitest"
import { Layer } from "effect"
import * as PgCourseRepo from "../src/PgCourseRepo.ts"
import * as PgLessonRepo from "../src/PgLessonRepo.ts"
import * as PgPurchaseRepo from "../src/PgPurchaseRepo.ts"
import * as PgPublicCourseRows from "../src/PgPublicCourseRows.ts"
import * as PgMediaRepo from "../src/PgMediaRepo.ts"
import { layerTestDatabase, postgresRequired, testDatabaseUrl } from "./TestPostgres.ts"
import { viewerQuerySuite } from "./ViewerQuerySuite.ts"

if (testDatabaseUrl !== undefined) {
  const repos = Layer.mergeAll(PgLessonRepo.layer, PgPurchaseRepo.layer, PgPublicCourseRows.layer, PgCourseRepo.layer, PgMediaRepo.layer).pipe(
    Layer.provideMerge(layerTestDatabase(testDatabaseUrl))
  )
  lessonRepoSuite("PostgreSQL", repos, { referencesMedia: true })
  purchaseRepoSuite("PostgreSQL", repos)
  viewerQuerySuite("PostgreSQL", repos)
  publicCourseRowsSuite("PostgreSQL", repos)
} else if (postgresRequired) {
  describe("Lesson and purchase repositories: PostgreSQL", () => {
    it("runs in CI", () => {
      expect.fail("TEST_DATABASE_URL is not set: CI must run the PostgreSQL suite")
    })
  })
}
