/**
 * The embedded database: PGlite (PostgreSQL compiled to WebAssembly) persisted in a
 * directory, served on a loopback port by `@electric-sql/pglite-socket`, and reached
 * through the same `@effect/sql-pg` client and migrations as a real PostgreSQL. One SQL
 * dialect everywhere; no server to install.
 *
 * PGlite is a single session: the client keeps one connection, so statements and
 * transactions run one at a time. That suits one instance on one machine; deploy on
 * PostgreSQL for more.
 *
 * @since 0.1.0
 */
import type { PGlite } from "@electric-sql/pglite"
import { PgClient } from "@effect/sql-pg"
import { Effect, Layer } from "effect"
import type { Migrator, SqlClient, SqlError } from "effect/sql"
import { mkdirSync } from "node:fs"
import { layerMigrations } from "./PgMigrations.ts"

/** Options of {@link layer}. */
export interface PgliteDatabaseOptions {
  /** Directory holding the database files; created when missing. `memory://` keeps nothing. */
  readonly dataDir: string
}

/** PGlite failed to open its directory or to listen. */
export class PgliteStartError extends Error {
  override readonly name = "PgliteStartError"
}

const openPglite = (dataDir: string) =>
  Effect.acquireRelease(
    Effect.tryPromise({
      // Loaded on first use: a server on PostgreSQL never pays for PGlite's module.
      try: async () => {
        if (!dataDir.startsWith("memory://")) mkdirSync(dataDir, { recursive: true })
        const { PGlite } = await import("@electric-sql/pglite")
        return PGlite.create({ dataDir })
      },
      catch: (cause) => new PgliteStartError(`PGlite could not open ${dataDir}: ${String(cause)}`, { cause })
    }),
    // Closing flushes PGlite's files, so the next start finds a consistent directory.
    (db) => Effect.promise(() => db.close())
  )

const serveOnLoopback = (db: PGlite) =>
  Effect.acquireRelease(
    Effect.tryPromise({
      try: async () => {
        const { PGLiteSocketServer } = await import("@electric-sql/pglite-socket")
        const server = new PGLiteSocketServer({ db, host: "127.0.0.1", port: 0, maxConnections: 4 })
        await server.start()
        return server
      },
      catch: (cause) => new PgliteStartError(`PGlite could not listen on loopback: ${String(cause)}`, { cause })
    }),
    (server) => Effect.promise(() => server.stop())
  )

/**
 * A migrated PGlite database behind an `effect/sql` client. Releasing the layer closes
 * the client first, then the socket, then PGlite.
 */
export const layer = (
  options: PgliteDatabaseOptions
): Layer.Layer<
  SqlClient.SqlClient | PgClient.PgClient,
  PgliteStartError | SqlError.SqlError | Migrator.MigrationError
> =>
  layerMigrations.pipe(
    Layer.provideMerge(Layer.unwrap(Effect.gen(function*() {
      const db = yield* openPglite(options.dataDir)
      const server = yield* serveOnLoopback(db)
      const [host, port] = server.getServerConn().split(":")
      return PgClient.layer({
        host: host!,
        port: Number(port),
        username: "postgres",
        database: "postgres",
        maxConnections: 1,
        applicationName: "coursekit"
      })
    })))
  )
