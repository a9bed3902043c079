import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as PgliteDatabase from "../src/PgliteDatabase.ts"
import { catalogueVersionSuite } from "./CatalogueVersionSuite.ts"

catalogueVersionSuite(
  "PGlite",
  PgliteDatabase.layer({ dataDir: join(mkdtempSync(join(process.env.COURSEKIT_TEST_TMP ?? tmpdir(), "pglite-")), "db") })
)
