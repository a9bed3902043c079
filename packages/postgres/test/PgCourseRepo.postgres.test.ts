import { courseRepoSuite } from "@coursekit/core/testing"
import { describe, expect, it } from "@effect/vitest"
import { Layer } from "effect"
import * as PgCourseRepo from "../src/PgCourseRepo.ts"
import { layerTestDatabase, postgresRequired, testDatabaseUrl } from "./TestPostgres.ts"

if (testDatabaseUrl !== undefined) {
  courseRepoSuite("PostgreSQL", PgCourseRepo.layer.pipe(Layer.provide(layerTestDatabase(testDatabaseUrl))))
} else if (postgresRequired) {
  describe("CourseRepo conformance: PostgreSQL", () => {
    it("runs in CI", () => {
      expect.fail("TEST_DATABASE_URL is not set: CI must run the PostgreSQL suite")
    })
  })
}
