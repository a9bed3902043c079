/**
 * The embedded database: PGlite (PostgreSQL compiled to WebAssembly) persisted in a
 * directory, served by `@electric-sql/pglite-socket` on a Unix socket in a private
 * directory (mode 0700, so no other local user can connect; it has no password), and
 * reached through the same `@effect/sql-pg` client and migrations as a real PostgreSQL.
 * One SQL dialect everywhere; no server to install.
 *
 * One process owns a directory: it is locked for the layer's lifetime
 * (`DataDirectoryLock`), and a second process — or a second layer in this one — fails
 * with `DataDirectoryInUse`. Its directories are 0700 and its files 0600.
 *
 * PGlite is a single session: the client keeps one connection, so statements and
 * transactions run one at a time. That suits one instance on one machine; deploy on
 * PostgreSQL for more.
 *
 * The repositories' deadline (`timeout`, see `PgDeadline`) holds here too, and bounds
 * opening the connection. PGlite has no `statement_timeout` (it runs no timers), and a
 * statement it is executing holds the process's thread until it ends.
 *
 * @since 0.1.0
 */
import type { PGlite } from "@electric-sql/pglite"
import { PgClient } from "@effect/sql-pg"
import { Data, Duration, Effect, Layer } from "effect"
import type { Migrator, SqlClient, SqlError } from "effect/sql"
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as DataDirectoryLock from "./DataDirectoryLock.ts"
import * as PgDeadline from "./PgDeadline.ts"
import * as PgSchema from "./PgSchema.ts"
import * as PgliteInitdbProcess from "./internal/PgliteInitdbProcess.ts"
import { layerMigrations } from "./PgMigrations.ts"

/** Options of {@link layer}. */
export interface PgliteDatabaseOptions {
  /** Directory holding the database files; created when missing. `memory://` keeps nothing. */
  readonly dataDir: string
  /** Deadline of every repository call; default {@link PgDeadline.defaultTimeout}. */
  readonly timeout?: Duration.Input
  /** The schema holding Coursekit's tables; default `coursekit`, as on PostgreSQL (see `PgSchema`). */
  readonly schema?: string
}

/** PGlite failed to open its directory or to listen. */
export class PgliteStartError extends Data.TaggedError("PgliteStartError")<{
  readonly message: string
  readonly cause: unknown
}> {}

/**
 * Directories 0700 and files 0600 under `directory`, whatever the umask: the files hold
 * paid lesson text and purchases. PGlite unpacks its initial database with modes 0666 and
 * 0755; PostgreSQL itself creates its later files 0600.
 */
const makePrivate = (directory: string): void => {
  chmodSync(directory, 0o700)
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const path = join(directory, entry.name)
    if (entry.isDirectory()) makePrivate(path)
    else if (entry.isFile() && (lstatSync(path).mode & 0o077) !== 0) chmodSync(path, 0o600)
  }
}

/** Creates the directory (private) and holds its lock for the scope. */
const claimDirectory = (dataDir: string) =>
  Effect.try({
    try: () => mkdirSync(dataDir, { recursive: true, mode: 0o700 }),
    catch: (cause) => new PgliteStartError({ message: `PGlite could not create ${dataDir}: ${String(cause)}`, cause })
  }).pipe(Effect.andThen(DataDirectoryLock.acquire(dataDir)))

// --- Memory settings -----------------------------------------------------------------
// PGlite's PostgreSQL lives in one WebAssembly memory, and what it touches stays resident
// (that memory never shrinks). initdb sizes it as a server: 128 MB of shared buffers,
// which PostgreSQL touches at start, and shared state for 100 connections. One session of
// one process needs far less; pages beyond the buffers come from the operating system's
// file cache. docs/benchmarks.md ("Memory") gives what each setting measured.
const pgliteMemorySettings = [
  "shared_buffers=8MB", // 128MB by default: ~145 MiB more resident
  "max_connections=4", // 100 by default: PGlite runs one session
  "maintenance_work_mem=16MB" // 64MB by default: one VACUUM or CREATE INDEX would keep it resident
]

const pgliteStartParams = (defaults: ReadonlyArray<string>) => [
  ...defaults,
  ...pgliteMemorySettings.flatMap((setting) => ["-c", setting])
]
// ---------------------------------------------------------------------------------------

const openPglite = (dataDir: string) =>
  Effect.acquireRelease(
    Effect.tryPromise({
      // Loaded on first use: a server on PostgreSQL never pays for PGlite's module.
      try: async () => {
        const { PGlite } = await import("@electric-sql/pglite")
        const startParams = pgliteStartParams(PGlite.defaultStartParams)
        if (dataDir.startsWith("memory://")) return PGlite.create({ dataDir, startParams })
        makePrivate(dataDir)
        const db = await PGlite.create({ dataDir, startParams })
        makePrivate(dataDir)
        return db
      },
      catch: (cause) => new PgliteStartError({ message: `PGlite could not open ${dataDir}: ${String(cause)}`, cause })
    }),
    // Closing flushes PGlite's files, so the next start finds a consistent directory.
    (db) => Effect.promise(() => db.close())
  )

// The socket lives in a fresh private directory: short enough for the 107-byte limit
// on socket paths wherever the data directory is, and unreachable for other users.
const serveOnPrivateSocket = (db: PGlite) =>
  Effect.acquireRelease(
    Effect.tryPromise({
      try: async () => {
        const { PGLiteSocketServer } = await import("@electric-sql/pglite-socket")
        const directory = mkdtempSync(join(tmpdir(), "coursekit-pglite-"))
        chmodSync(directory, 0o700)
        const path = join(directory, ".s.PGSQL.5432")
        // More than one slot: the client's replacement connection may arrive before the
        // old one is released. The client itself keeps one (see below).
        const server = new PGLiteSocketServer({ db, path, maxConnections: 4 })
        await server.start()
        return { server, directory, path }
      },
      catch: (cause) => new PgliteStartError({ message: `PGlite could not listen: ${String(cause)}`, cause })
    }),
    ({ directory, server }) =>
      Effect.promise(() => server.stop()).pipe(Effect.andThen(Effect.sync(() => rmSync(directory, { recursive: true, force: true }))))
  )

/**
 * A migrated PGlite database behind an `effect/sql` client. Releasing the layer closes
 * the client first, then the socket, then PGlite. Throws `PgSchema.InvalidSchemaName`
 * for a `schema` outside `PgSchema.schemaNamePattern`.
 */
export const layer = (
  options: PgliteDatabaseOptions
): Layer.Layer<
  SqlClient.SqlClient | PgClient.PgClient,
  | PgliteStartError
  | DataDirectoryLock.DataDirectoryInUse
  | DataDirectoryLock.DataDirectoryLockError
  | SqlError.SqlError
  | Migrator.MigrationError
> => {
  const timeout = options.timeout === undefined ? PgDeadline.defaultTimeout : Duration.fromInputUnsafe(options.timeout)
  return layerMigrations.pipe(
    Layer.provideMerge(Layer.unwrap(Effect.gen(function*() {
      if (!options.dataDir.startsWith("memory://")) yield* claimDirectory(options.dataDir)
      // After the lock: two processes never create the same database at once.
      yield* PgliteInitdbProcess.createInChildProcess(options.dataDir, pgliteMemorySettings) // first start only
      const db = yield* openPglite(options.dataDir)
      const { path } = yield* serveOnPrivateSocket(db)
      return PgClient.layer({
        path,
        username: "postgres",
        database: "postgres",
        maxConnections: 1,
        applicationName: "coursekit",
        connectTimeout: timeout
      })
    }))),
    Layer.provideMerge(PgDeadline.layer(timeout)),
    Layer.provideMerge(PgSchema.layer(options.schema ?? PgSchema.defaultSchema))
  )
}
