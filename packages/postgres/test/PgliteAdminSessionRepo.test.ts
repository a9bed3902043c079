import { adminSessionRepoSuite } from "@coursekit/core/testing"
import { Layer } from "effect"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as PgAdminSessionRepo from "../src/PgAdminSessionRepo.ts"
import * as PgliteDatabase from "../src/PgliteDatabase.ts"

const database = PgliteDatabase.layer({ dataDir: join(mkdtempSync(join(process.env.COURSEKIT_TEST_TMP ?? tmpdir(), "pglite-")), "db") })
adminSessionRepoSuite("PGlite", PgAdminSessionRepo.layer.pipe(Layer.provide(database)))
