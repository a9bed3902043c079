/**
 * A migrated PostgreSQL database: an `effect/sql` client for `DATABASE_URL`, with
 * Coursekit's migrations applied before anything uses it.
 *
 * @since 0.1.0
 */
import { PgClient } from "@effect/sql-pg"
import { Config, Effect, Layer, type Redacted } from "effect"
import type { Migrator, SqlClient, SqlError } from "effect/sql"
import { layerMigrations } from "./PgMigrations.ts"

/** Connection options for {@link layer}. */
export interface PgDatabaseOptions {
  /** `postgres://user:password@host:port/database` */
  readonly url: Redacted.Redacted<string>
  /** Pool size; defaults to the driver's. */
  readonly maxConnections?: number
}

/** Connects to PostgreSQL and migrates it. */
export const layer = (
  options: PgDatabaseOptions
): Layer.Layer<SqlClient.SqlClient | PgClient.PgClient, SqlError.SqlError | Migrator.MigrationError> =>
  layerMigrations.pipe(
    Layer.provideMerge(PgClient.layer({
      url: options.url,
      ...(options.maxConnections === undefined ? {} : { maxConnections: options.maxConnections }),
      applicationName: "coursekit"
    }))
  )

/** Connections per instance when nothing says otherwise. */
export const defaultPoolSize = 10

/** Reads `DATABASE_URL` (and `DATABASE_POOL_SIZE`, default {@link defaultPoolSize}). */
export const layerConfig = Layer.unwrap(Effect.map(
  Config.all({
    url: Config.Redacted("DATABASE_URL"),
    maxConnections: Config.Int("DATABASE_POOL_SIZE").pipe(Config.withDefault(defaultPoolSize))
  }),
  layer
))
