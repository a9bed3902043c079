import { progressRepoSuite } from "@coursekit/core/testing"
import { describe, expect, it } from "@effect/vitest"
import { Layer } from "effect"
import * as PgCourseRepo from "../src/PgCourseRepo.ts"
import * as PgLessonRepo from "../src/PgLessonRepo.ts"
import * as PgProgressRepo from "../src/PgProgressRepo.ts"
import * as PgPurchaseRepo from "../src/PgPurchaseRepo.ts"
import { layerTestDatabase, postgresRequired, testDatabaseUrl } from "./TestPostgres.ts"

if (testDatabaseUrl !== undefined) {
  progressRepoSuite(
    "PostgreSQL",
    Layer.mergeAll(PgProgressRepo.layer, PgCourseRepo.layer, PgLessonRepo.layer, PgPurchaseRepo.layer).pipe(
      Layer.provideMerge(layerTestDatabase(testDatabaseUrl))
    )
  )
} else if (postgresRequired) {
  describe("ProgressRepo: PostgreSQL", () => {
    it("runs in CI", () => {
      expect.fail("TEST_DATABASE_URL is not set: CI must run the PostgreSQL suite")
    })
  })
}
