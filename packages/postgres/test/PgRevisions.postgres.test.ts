import { RevisionPolicies } from "@coursekit/core"
import { revisionsSuite, revisionSuitePolicy } from "@coursekit/core/testing"
import { describe, expect, it } from "@effect/vitest"
import { Layer } from "effect"
import * as PgCourseRepo from "../src/PgCourseRepo.ts"
import * as PgLessonRepo from "../src/PgLessonRepo.ts"
import { layerTestDatabase, postgresRequired, testDatabaseUrl } from "./TestPostgres.ts"

if (testDatabaseUrl !== undefined) {
  revisionsSuite(
    "PostgreSQL",
    Layer.mergeAll(PgCourseRepo.layer, PgLessonRepo.layer).pipe(
      Layer.provide(Layer.succeed(RevisionPolicies, revisionSuitePolicy)),
      Layer.provideMerge(layerTestDatabase(testDatabaseUrl))
    )
  )
} else if (postgresRequired) {
  describe("Revisions: PostgreSQL", () => {
    it("runs in CI", () => {
      expect.fail("TEST_DATABASE_URL is not set: CI must run the PostgreSQL suite")
    })
  })
}
