import { mediaRepoSuite, uploadRepoSuite } from "@coursekit/core/testing"
import { Layer } from "effect"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as PgliteDatabase from "../src/PgliteDatabase.ts"
import * as PgUploadRepo from "../src/PgUploadRepo.ts"

const database = PgliteDatabase.layer({ dataDir: join(mkdtempSync(join(process.env.COURSEKIT_TEST_TMP ?? tmpdir(), "pglite-")), "db") })
const repos = PgUploadRepo.layer.pipe(Layer.provide(database))
uploadRepoSuite("PGlite", repos)
mediaRepoSuite("PGlite", repos)
