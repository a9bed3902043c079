/**
 * A migrated PostgreSQL database: an `effect/sql` client for `DATABASE_URL`, with
 * Coursekit's migrations applied before anything uses it, and a deadline on every call
 * (`timeout`): the repositories' calls (`PgDeadline`), opening a connection, and each
 * statement on the server too (`statement_timeout`), in case the client's cancel is lost.
 *
 * @since 0.1.0
 */
import { PgClient } from "@effect/sql-pg"
import { Config, ConfigProvider, Duration, Effect, Layer, Redacted, Schema } from "effect"
import type { Migrator, SqlClient, SqlError } from "effect/sql"
import * as PgDeadline from "./PgDeadline.ts"
import { layerMigrations } from "./PgMigrations.ts"
import * as PgSchema from "./PgSchema.ts"

/** Connection options for {@link layer}. */
export interface PgDatabaseOptions {
  /** `postgres://user:password@host:port/database` */
  readonly url: Redacted.Redacted<string>
  /** Pool size; defaults to the driver's. */
  readonly maxConnections?: number
  /**
   * Deadline of every repository call, of opening a connection, and (as the session's
   * `statement_timeout`) of every statement on the server; default
   * {@link PgDeadline.defaultTimeout}. Migrations are exempt.
   */
  readonly timeout?: Duration.Input
  /**
   * The schema holding every Coursekit table, function and the migrations' bookkeeping
   * (created when missing); default {@link PgSchema.defaultSchema}, `coursekit`. Two
   * instances with two schemas share nothing. See `PgSchema`.
   */
  readonly schema?: string
}

const urlSetsConnectTimeout = (url: Redacted.Redacted<string>) => {
  try {
    return new URL(Redacted.value(url)).searchParams.has("connect_timeout")
  } catch {
    return false
  }
}

/**
 * Connects to PostgreSQL and migrates it. Throws `PgSchema.InvalidSchemaName` for a
 * `schema` outside `PgSchema.schemaNamePattern`.
 */
export const layer = (
  options: PgDatabaseOptions
): Layer.Layer<SqlClient.SqlClient | PgClient.PgClient, SqlError.SqlError | Migrator.MigrationError> => {
  const timeout = options.timeout === undefined ? PgDeadline.defaultTimeout : Duration.fromInputUnsafe(options.timeout)
  return layerMigrations.pipe(
    Layer.provideMerge(PgClient.layer({
      url: options.url,
      ...(options.maxConnections === undefined ? {} : { maxConnections: options.maxConnections }),
      applicationName: "coursekit",
      // A `connect_timeout` in the URL is the operator's word; else the deadline bounds connecting.
      ...(urlSetsConnectTimeout(options.url) ? {} : { connectTimeout: timeout }),
      // The server's own stop for a statement whose client-side cancel never arrives.
      startupParameters: { statement_timeout: String(Math.ceil(Duration.toMillis(timeout))) }
    })),
    Layer.provideMerge(PgDeadline.layer(timeout)),
    Layer.provideMerge(PgSchema.layer(options.schema ?? PgSchema.defaultSchema))
  )
}

/** Connections per instance when nothing says otherwise. */
export const defaultPoolSize = 10

/** Least and greatest `DATABASE_TIMEOUT_MS`. */
export const timeoutRangeMillis = { minimum: 100, maximum: 600_000 } as const

/** `DATABASE_SCHEMA`: the schema holding Coursekit's tables, default `coursekit`. */
export const schemaConfig: Config.Config<string> = Config.String("DATABASE_SCHEMA").pipe(
  Config.withDefault(PgSchema.defaultSchema),
  Config.flatMap((name) => {
    const invalid = PgSchema.invalidSchemaName(name)
    return invalid === undefined
      ? Config.succeed(name)
      : Config.fail(new ConfigProvider.SourceError({ message: `DATABASE_SCHEMA: ${invalid.message}` }))
  })
)

/** `DATABASE_TIMEOUT_MS`: the deadline of each database call, in milliseconds. */
export const timeoutConfig: Config.Config<Duration.Duration> = Config.schema(
  Schema.Int.check(Schema.isBetween(timeoutRangeMillis)),
  "DATABASE_TIMEOUT_MS"
).pipe(Config.withDefault(Duration.toMillis(PgDeadline.defaultTimeout)), Config.map(Duration.millis))

/**
 * Reads `DATABASE_URL` (and `DATABASE_POOL_SIZE`, default {@link defaultPoolSize},
 * `DATABASE_TIMEOUT_MS`, default 5000, and `DATABASE_SCHEMA`, default `coursekit`).
 */
export const layerConfig = Layer.unwrap(Effect.map(
  Config.all({
    url: Config.Redacted("DATABASE_URL"),
    maxConnections: Config.Int("DATABASE_POOL_SIZE").pipe(Config.withDefault(defaultPoolSize)),
    timeout: timeoutConfig,
    schema: schemaConfig
  }),
  layer
))
