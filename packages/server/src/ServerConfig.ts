/**
 * The standalone server's configuration, read only through Effect's `Config` (environment
 * variables by default). Every variable is listed in the README and `.env.example`.
 *
 * @since 0.1.0
 */
import { PgDatabase } from "@coursekit/postgres"
import { Config, type LogLevel, Option, Redacted, Schema } from "effect"

/** Resolved settings of the standalone server. */
export interface ServerSettings {
  readonly port: number
  readonly host: string
  /** Base URL clients use to reach this server, without a trailing slash. */
  readonly publicUrl: string
  /** Whether `PUBLIC_URL` was given (else it is derived from `PORT`, and the start-up line uses the bound port). */
  readonly publicUrlConfigured: boolean
  readonly dataDir: string
  /** PostgreSQL URL; absent means the embedded PGlite database in `dataDir`. */
  readonly databaseUrl: Option.Option<Redacted.Redacted<string>>
  readonly databasePoolSize: number
  /** Base URL of stored files. */
  readonly cdnUrl: string
  /** Admin tokens from `ADMIN_TOKENS`; empty means the token file in `dataDir`. */
  readonly adminTokens: ReadonlyArray<Redacted.Redacted<string>>
  /** Most `GET /courses` responses cached per instance; 0 turns the cache off. */
  readonly listCacheEntries: number
  /** Least severe level logged; request lines are `Info`. */
  readonly logLevel: LogLevel.LogLevel
}

const trimSlash = (url: string) => url.replace(/\/+$/, "")

/** Reads {@link ServerSettings}. */
export const settings: Config.Config<ServerSettings> = Config.all({
  // 0 asks the system for a free port (the start-up line names it).
  port: Config.schema(Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 65535 })), "PORT").pipe(
    Config.withDefault(3000)
  ),
  host: Config.String("HOST").pipe(Config.withDefault("0.0.0.0")),
  publicUrl: Config.URL("PUBLIC_URL").pipe(Config.option),
  dataDir: Config.String("DATA_DIR").pipe(Config.withDefault("./data")),
  databaseUrl: Config.Redacted("DATABASE_URL").pipe(Config.option),
  databasePoolSize: Config.Int("DATABASE_POOL_SIZE").pipe(Config.withDefault(PgDatabase.defaultPoolSize)),
  cdnUrl: Config.URL("CDN_URL").pipe(Config.option),
  adminTokens: Config.Redacted("ADMIN_TOKENS").pipe(Config.option),
  listCacheEntries: Config.schema(Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)), "LIST_CACHE_ENTRIES").pipe(
    Config.withDefault(10_000)
  ),
  logLevel: Config.LogLevel("LOG_LEVEL").pipe(Config.withDefault<LogLevel.LogLevel>("Info"))
}).pipe(Config.map((raw) => {
  const publicUrl = Option.match(raw.publicUrl, {
    onNone: () => `http://localhost:${raw.port}`,
    onSome: (url) => trimSlash(url.toString())
  })
  return {
    port: raw.port,
    host: raw.host,
    publicUrl,
    publicUrlConfigured: Option.isSome(raw.publicUrl),
    dataDir: raw.dataDir,
    databaseUrl: raw.databaseUrl,
    databasePoolSize: raw.databasePoolSize,
    cdnUrl: Option.match(raw.cdnUrl, { onNone: () => `${publicUrl}/files`, onSome: (url) => trimSlash(url.toString()) }),
    adminTokens: Option.match(raw.adminTokens, {
      onNone: () => [],
      onSome: (tokens) =>
        Redacted.value(tokens).split(",").map((token) => token.trim()).filter((token) => token.length > 0).map((
          token
        ) => Redacted.make(token))
    }),
    listCacheEntries: raw.listCacheEntries,
    logLevel: raw.logLevel
  }
}))
