import { courseSearchSuite } from "@coursekit/core/testing"
import { Layer } from "effect"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as PgCourseRepo from "../src/PgCourseRepo.ts"
import * as PgliteDatabase from "../src/PgliteDatabase.ts"
import { searchDocumentsSuite } from "./SearchDocumentsSuite.ts"

const repos = PgCourseRepo.layer.pipe(
  Layer.provideMerge(PgliteDatabase.layer({ dataDir: join(mkdtempSync(join(process.env.COURSEKIT_TEST_TMP ?? tmpdir(), "pglite-")), "db") }))
)
courseSearchSuite("PGlite", repos)
searchDocumentsSuite("PGlite", repos)
