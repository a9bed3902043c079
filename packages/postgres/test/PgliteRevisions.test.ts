import { RevisionPolicies } from "@coursekit/core"
import { revisionsSuite, revisionSuitePolicy } from "@coursekit/core/testing"
import { Layer } from "effect"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as PgCourseRepo from "../src/PgCourseRepo.ts"
import * as PgLessonRepo from "../src/PgLessonRepo.ts"
import * as PgliteDatabase from "../src/PgliteDatabase.ts"

const database = PgliteDatabase.layer({ dataDir: join(mkdtempSync(join(process.env.COURSEKIT_TEST_TMP ?? tmpdir(), "pglite-")), "db") })
revisionsSuite(
  "PGlite",
  Layer.mergeAll(PgCourseRepo.layer, PgLessonRepo.layer).pipe(
    Layer.provide(Layer.succeed(RevisionPolicies, revisionSuitePolicy)),
    Layer.provideMerge(database)
  )
)
