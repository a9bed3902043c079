/**
 * A new PGlite database created in a short-lived child process. PGlite creates a missing
 * database inside the calling process with a second WebAssembly PostgreSQL running
 * initdb, and copies the result through memory as a tar: about 100 MiB that the process
 * keeps resident for its whole life (glibc keeps the freed heap, and V8 does not collect
 * the finished instance while the server idles). In a child, that memory goes away with
 * it, and a first start idles as lean as any later one (docs/benchmarks.md, "Memory").
 *
 * Best effort: when no child can run (a runtime other than Node, a bundle where PGlite
 * cannot be resolved) or it fails or takes longer than a minute, nothing happens here and
 * PGlite creates the database in-process, as it always did; a real problem (a directory
 * that cannot be written) then fails there with its own message.
 */
import { Effect } from "effect"
import { spawn } from "node:child_process"
import { existsSync, mkdirSync } from "node:fs"
import { createRequire } from "node:module"
import { join } from "node:path"

// CommonJS, so the child needs no flags: `node -e <script> <pglite> <dataDir> <settings>`.
const script = `
const { PGlite } = require(process.argv[1])
const settings = JSON.parse(process.argv[3]).flatMap((setting) => ["-c", setting])
PGlite.create({ dataDir: process.argv[2], startParams: [...PGlite.defaultStartParams, ...settings] })
  .then((db) => db.close())
  .then(() => process.exit(0), () => process.exit(1))
`

// `process.execPath` runs `node -e` only under Node itself.
const runsOnNode = !("electron" in process.versions || "bun" in process.versions || "deno" in process.versions)

const runChild = (pglite: string, dataDir: string, settings: ReadonlyArray<string>) =>
  Effect.callback<void>((resume) => {
    const child = spawn(process.execPath, ["-e", script, pglite, dataDir, JSON.stringify(settings)], {
      stdio: "ignore",
      // Node's own timer, not the Effect clock: creating a database takes seconds.
      timeout: 60_000,
      killSignal: "SIGKILL"
    })
    child.once("error", () => resume(Effect.void))
    child.once("exit", () => resume(Effect.void))
    return Effect.sync(() => child.kill("SIGKILL"))
  })

/**
 * Creates the database in `dataDir` in a child process when there is none yet (no
 * `PG_VERSION`), with PostgreSQL `settings` (`name=value`). Never fails; see above.
 */
export const createInChildProcess = (dataDir: string, settings: ReadonlyArray<string>): Effect.Effect<void> =>
  Effect.suspend(() => {
    if (!runsOnNode || dataDir.startsWith("memory://") || existsSync(join(dataDir, "PG_VERSION"))) return Effect.void
    return Effect.try(() => {
      mkdirSync(dataDir, { recursive: true })
      return createRequire(import.meta.url).resolve("@electric-sql/pglite")
    }).pipe(
      Effect.flatMap((pglite) => runChild(pglite, dataDir, settings)),
      Effect.ignore
    )
  })
