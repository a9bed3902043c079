import { courseSearchSuite } from "@coursekit/core/testing"
import { describe, expect, it } from "@effect/vitest"
import { Layer } from "effect"
import * as PgCourseRepo from "../src/PgCourseRepo.ts"
import { searchDocumentsSuite } from "./SearchDocumentsSuite.ts"
import { layerTestDatabase, postgresRequired, testDatabaseUrl } from "./TestPostgres.ts"

if (testDatabaseUrl !== undefined) {
  const repos = PgCourseRepo.layer.pipe(Layer.provideMerge(layerTestDatabase(testDatabaseUrl)))
  courseSearchSuite("PostgreSQL", repos)
  searchDocumentsSuite("PostgreSQL", repos)
} else if (postgresRequired) {
  describe("CourseRepo search: PostgreSQL", () => {
    it("runs in CI", () => {
      expect.fail("TEST_DATABASE_URL is not set: CI must run the PostgreSQL suite")
    })
  })
}
