import { mediaRepoSuite, uploadRepoSuite } from "@coursekit/core/testing"
import { describe, expect, it } from "@effect/vitest"
import { Layer } from "effect"
import * as PgUploadRepo from "../src/PgUploadRepo.ts"
import { layerTestDatabase, postgresRequired, testDatabaseUrl } from "./TestPostgres.ts"

if (testDatabaseUrl !== undefined) {
  const repos = PgUploadRepo.layer.pipe(Layer.provide(layerTestDatabase(testDatabaseUrl)))
  uploadRepoSuite("PostgreSQL", repos)
  mediaRepoSuite("PostgreSQL", repos)
} else if (postgresRequired) {
  describe("Upload repositories: PostgreSQL", () => {
    it("runs in CI", () => {
      expect.fail("TEST_DATABASE_URL is not set: CI must run the PostgreSQL suite")
    })
  })
}
