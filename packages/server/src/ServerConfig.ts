/**
 * The standalone server's configuration, read only through Effect's `Config` (environment
 * variables by default). Every variable is listed in the README and `.env.example`.
 *
 * @since 0.1.0
 */
import { defaultUploadLimits, type UploadLimits } from "@coursekit/core"
import { PgDatabase } from "@coursekit/postgres"
import { S3ObjectStore } from "@coursekit/storage-s3"
import { Config, Duration, type LogLevel, Option, Redacted, Schema } from "effect"

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
  /**
   * Base URL of stored files (`CDN_URL`); absent means where the store serves them:
   * `<PUBLIC_URL>/files` for the local store, the bucket's URL for S3.
   */
  readonly cdnUrl: Option.Option<string>
  /** `local` (files under `storageDir`, the default) or `s3` (the `S3_*` variables). */
  readonly storage: "local" | "s3"
  /** The S3 store's options (the `S3_*` variables), read only when `storage` is `s3`. */
  readonly s3: Option.Option<S3ObjectStore.Options>
  /** Where the local store keeps files. */
  readonly storageDir: string
  /** Key of the local store's upload URL signatures; absent means a key file in `dataDir`. */
  readonly storageSecret: Option.Option<Redacted.Redacted<string>>
  readonly uploadLimits: UploadLimits
  /** How long an upload never finalized is kept after its URL expired. */
  readonly uploadGracePeriod: Duration.Duration
  /** How often the upload sweep runs. */
  readonly uploadSweepInterval: Duration.Duration
  /** Viewer tokens: the HS256 secret (`JWT_SECRET`). */
  readonly jwtSecret: Option.Option<Redacted.Redacted<string>>
  /** Viewer tokens: the identity provider's key set (`JWKS_URL`). */
  readonly jwksUrl: Option.Option<string>
  /** When set, viewer tokens must carry this `iss` (`JWT_ISSUER`). */
  readonly jwtIssuer: Option.Option<string>
  /** When set, viewer tokens' `aud` must contain this (`JWT_AUDIENCE`). */
  readonly jwtAudience: Option.Option<string>
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
  storage: Config.Literals(["local", "s3"], "STORAGE").pipe(Config.withDefault("local" as const)),
  // The S3 variables are required only when they are used.
  s3: Config.Literals(["local", "s3"], "STORAGE").pipe(
    Config.withDefault("local" as const),
    Config.flatMap((storage) =>
      storage === "s3" ? Config.map(S3ObjectStore.config, Option.some) : Config.succeed(Option.none<S3ObjectStore.Options>())
    )
  ),
  storageDir: Config.String("STORAGE_DIR").pipe(Config.option),
  storageSecret: Config.Redacted("STORAGE_SECRET").pipe(Config.option),
  thumbnailMaxBytes: Config.schema(Schema.Int.check(Schema.isGreaterThan(0)), "UPLOAD_THUMBNAIL_MAX_BYTES").pipe(
    Config.withDefault(defaultUploadLimits.thumbnailMaxBytes)
  ),
  mediaMaxBytes: Config.schema(Schema.Int.check(Schema.isGreaterThan(0)), "UPLOAD_MEDIA_MAX_BYTES").pipe(
    Config.withDefault(defaultUploadLimits.mediaMaxBytes)
  ),
  uploadGracePeriod: Config.Duration("UPLOAD_GRACE_PERIOD").pipe(Config.withDefault(Duration.hours(1))),
  uploadSweepInterval: Config.Duration("UPLOAD_SWEEP_INTERVAL").pipe(Config.withDefault(Duration.minutes(10))),
  // Its length is checked when the resolver is built (JwtViewerResolver.minSecretLength),
  // so that no error message ever holds the value.
  jwtSecret: Config.Redacted("JWT_SECRET").pipe(Config.option),
  jwksUrl: Config.URL("JWKS_URL").pipe(Config.map((url) => url.toString()), Config.option),
  jwtIssuer: Config.String("JWT_ISSUER").pipe(Config.option),
  jwtAudience: Config.String("JWT_AUDIENCE").pipe(Config.option),
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
    cdnUrl: Option.map(raw.cdnUrl, (url) => trimSlash(url.toString())),
    storage: raw.storage,
    s3: raw.s3,
    storageDir: Option.getOrElse(raw.storageDir, () => `${trimSlash(raw.dataDir)}/storage`),
    storageSecret: raw.storageSecret,
    uploadLimits: { thumbnailMaxBytes: raw.thumbnailMaxBytes, mediaMaxBytes: raw.mediaMaxBytes },
    uploadGracePeriod: raw.uploadGracePeriod,
    uploadSweepInterval: raw.uploadSweepInterval,
    jwtSecret: raw.jwtSecret,
    jwksUrl: raw.jwksUrl,
    jwtIssuer: raw.jwtIssuer,
    jwtAudience: raw.jwtAudience,
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
