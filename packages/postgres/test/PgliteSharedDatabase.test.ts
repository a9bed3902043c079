import { Layer } from "effect"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as PgliteDatabase from "../src/PgliteDatabase.ts"
import { sharedDatabaseSuite } from "./SharedDatabaseSuite.ts"

// A fresh PGlite directory per test. Opening one migrates Coursekit into a schema of its
// own (`opened`), which the suite's tests leave alone: they work in `public`, `coursekit`
// and the tenants' schemas.
sharedDatabaseSuite("PGlite", () =>
  PgliteDatabase.layer({
    dataDir: join(mkdtempSync(join(process.env.COURSEKIT_TEST_TMP ?? tmpdir(), "pglite-shared-")), "db"),
    schema: "opened"
  }).pipe(Layer.orDie))
