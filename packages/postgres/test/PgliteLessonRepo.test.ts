import { lessonRepoSuite, publicCourseRowsSuite, purchaseRepoSuite } from "@coursekit/core/testing"
import { Layer } from "effect"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as PgCourseRepo from "../src/PgCourseRepo.ts"
import * as PgLessonRepo from "../src/PgLessonRepo.ts"
import * as PgliteDatabase from "../src/PgliteDatabase.ts"
import * as PgPurchaseRepo from "../src/PgPurchaseRepo.ts"
import * as PgPublicCourseRows from "../src/PgPublicCourseRows.ts"
import * as PgMediaRepo from "../src/PgMediaRepo.ts"
import { viewerQuerySuite } from "./ViewerQuerySuite.ts"

const database = PgliteDatabase.layer({ dataDir: join(mkdtempSync(join(process.env.COURSEKIT_TEST_TMP ?? tmpdir(), "pglite-")), "db") })
const repos = Layer.mergeAll(PgLessonRepo.layer, PgPurchaseRepo.layer, PgPublicCourseRows.layer, PgCourseRepo.layer, PgMediaRepo.layer).pipe(Layer.provideMerge(database))
lessonRepoSuite("PGlite", repos, { referencesMedia: true })
purchaseRepoSuite("PGlite", repos)
viewerQuerySuite("PGlite", repos)
publicCourseRowsSuite("PGlite", repos)
