import { describe, expect, it } from "@effect/vitest"
import { catalogueVersionSuite } from "./CatalogueVersionSuite.ts"
import { layerTestDatabase, postgresRequired, testDatabaseUrl } from "./TestPostgres.ts"

if (testDatabaseUrl !== undefined) {
  catalogueVersionSuite("PostgreSQL", layerTestDatabase(testDatabaseUrl))
} else if (postgresRequired) {
  describe("catalogue version: PostgreSQL", () => {
    it("runs in CI", () => {
      expect.fail("TEST_DATABASE_URL is not set: CI must run the PostgreSQL suite")
    })
  })
}
