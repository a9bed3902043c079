import { progressRepoSuite } from "@coursekit/core/testing"
import { Layer } from "effect"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as PgCourseRepo from "../src/PgCourseRepo.ts"
import * as PgLessonRepo from "../src/PgLessonRepo.ts"
import * as PgliteDatabase from "../src/PgliteDatabase.ts"
import * as PgProgressRepo from "../src/PgProgressRepo.ts"
import * as PgPurchaseRepo from "../src/PgPurchaseRepo.ts"

const database = PgliteDatabase.layer({ dataDir: join(mkdtempSync(join(process.env.COURSEKIT_TEST_TMP ?? tmpdir(), "pglite-")), "db") })
progressRepoSuite(
  "PGlite",
  Layer.mergeAll(PgProgressRepo.layer, PgCourseRepo.layer, PgLessonRepo.layer, PgPurchaseRepo.layer).pipe(Layer.provideMerge(database))
)
