/**
 * The standalone server's configuration, read only through Effect's `Config` (environment
 * variables by default). Every variable is listed in the README and `.env.example`.
 *
 * @since 0.1.0
 */
import { defaultHtmlLimits, defaultRevisionPolicy, defaultMediaUrlTtl, defaultSinglePutMaxBytes, defaultUploadLimits, type LlmPrices, maxMediaUrlTtl, type UploadLimits } from "@coursekit/core"
import { PgDatabase } from "@coursekit/postgres"
import { S3ObjectStore } from "@coursekit/storage-s3"
import { Config, ConfigProvider, Data, Duration, type LogLevel, Option, Redacted, Schema } from "effect"
import { fileURLToPath } from "node:url"
import { defaultWorkers as defaultSanitizerWorkers } from "./WorkerHtmlSanitizer.ts"

const trimSlash = (url: string) => url.replace(/\/+$/, "")

const dataDirConfig = Config.String("DATA_DIR").pipe(Config.withDefault("./data"))

/** One language model of the AI chain, from the variables under `prefix`. */
export interface AiModelSettings {
  /** `AI_PRIMARY`, `AI_SECONDARY`, `AI_STEP_3` … `AI_STEP_9`. */
  readonly prefix: string
  /** `openai` (OpenAI and OpenAI-compatible endpoints) or `google` (Gemini). */
  readonly provider: "openai" | "google"
  readonly model: string
  readonly apiKey: Option.Option<Redacted.Redacted<string>>
  readonly baseUrl: Option.Option<string>
  /** US dollars per million tokens (`_PRICE_INPUT`, `_PRICE_OUTPUT`, set together): each attempt's `cost_usd`. */
  readonly prices: Option.Option<LlmPrices>
}

/** The variable prefixes of the AI chain's steps, in the order they are tried. */
export const aiStepPrefixes: ReadonlyArray<string> = [
  "AI_PRIMARY",
  "AI_SECONDARY",
  ...Array.from({ length: 7 }, (_, index) => `AI_STEP_${index + 3}`)
]

/** What an operator sets to configure a model (the 503's hint). */
export const aiConfigurationHint = "Set AI_PRIMARY_PROVIDER (openai or google), AI_PRIMARY_MODEL and AI_PRIMARY_API_KEY " +
  "(and AI_PRIMARY_BASE_URL for an OpenAI-compatible endpoint such as Groq or Ollama); AI_SECONDARY_* adds a fallback."

const configFailure = (message: string) => Config.fail(new ConfigProvider.SourceError({ message }))

/** A price in US dollars per million tokens: a finite number from 0 to 10,000. */
const priceSchema = Schema.NumberFromString.check(Schema.isFinite(), Schema.isBetween({ minimum: 0, maximum: 10_000 }))

/** The step under `prefix`, when its `_PROVIDER` is set. */
const aiModelConfig = (prefix: string): Config.Config<Option.Option<AiModelSettings>> =>
  Config.option(Config.Literals(["openai", "google"], `${prefix}_PROVIDER`)).pipe(
    Config.flatMap(Option.match({
      onNone: () => Config.succeed(Option.none<AiModelSettings>()),
      onSome: (provider) =>
        Config.all({
          model: Config.NonEmptyString(`${prefix}_MODEL`),
          apiKey: Config.option(Config.Redacted(`${prefix}_API_KEY`)),
          baseUrl: Config.option(Config.URL(`${prefix}_BASE_URL`).pipe(Config.map((url) => trimSlash(url.toString())))),
          priceInput: Config.option(Config.schema(priceSchema, `${prefix}_PRICE_INPUT`)),
          priceOutput: Config.option(Config.schema(priceSchema, `${prefix}_PRICE_OUTPUT`))
        }).pipe(Config.flatMap(({ priceInput, priceOutput, ...read }) => {
          // A key may be left out only for a self-hosted OpenAI-compatible endpoint (Ollama, vLLM).
          if (Option.isNone(read.apiKey) && (provider === "google" || Option.isNone(read.baseUrl))) {
            return configFailure(`${prefix}_API_KEY is required for ${prefix}_PROVIDER=${provider}` +
              (provider === "openai" ? ` unless ${prefix}_BASE_URL names a self-hosted endpoint` : ""))
          }
          // One price alone would make every cost a guess.
          if (Option.isSome(priceInput) !== Option.isSome(priceOutput)) {
            return configFailure(`${prefix}_PRICE_INPUT and ${prefix}_PRICE_OUTPUT are set together (US dollars per million tokens)`)
          }
          const prices = Option.isSome(priceInput) && Option.isSome(priceOutput)
            ? Option.some<LlmPrices>({ inputPerMillion: priceInput.value, outputPerMillion: priceOutput.value })
            : Option.none<LlmPrices>()
          return Config.succeed(Option.some<AiModelSettings>({ prefix, provider, ...read, prices }))
        }))
    }))
  )

/** The AI chain's steps, in order; a gap (a step set after one that is not) is an error. */
const aiModelsConfig: Config.Config<ReadonlyArray<AiModelSettings>> = Config.all(aiStepPrefixes.map(aiModelConfig)).pipe(
  Config.flatMap((steps) => {
    const firstGap = steps.findIndex(Option.isNone)
    const afterGap = firstGap === -1 ? -1 : steps.findIndex((step, index) => index > firstGap && Option.isSome(step))
    return afterGap === -1
      ? Config.succeed(steps.flatMap((step) => Option.isSome(step) ? [step.value] : []))
      : configFailure(`${aiStepPrefixes[afterGap]}_PROVIDER is set but ${aiStepPrefixes[firstGap]}_PROVIDER is not: models are tried in order, without gaps`)
  })
)

/**
 * The object store and its settings, one case per store; the case's tag is the value of
 * `STORAGE`. A store is added as one case here, its variables in {@link storageCases}, and
 * one branch where `DefaultServices` builds the store (each is checked exhaustive).
 */
export type StorageSettings = Data.TaggedEnum<{
  /** Files on local disk (`STORAGE=local`, the default). */
  local: {
    /** Where the files are kept (`STORAGE_DIR`, default `<DATA_DIR>/storage`). */
    readonly dir: string
    /** Key of the upload URL signatures (`STORAGE_SECRET`); absent means a key file in `DATA_DIR`. */
    readonly secret: Option.Option<Redacted.Redacted<string>>
  }
  /** An S3 or S3-compatible bucket (`STORAGE=s3`): the `S3_*` variables. */
  s3: S3ObjectStore.Options
}>

/** Constructors (`StorageSettings.local({ dir, secret })`, `StorageSettings.s3(options)`) and `$match` of {@link StorageSettings}. */
export const StorageSettings = Data.taggedEnum<StorageSettings>()

/**
 * Each store's variables, keyed by its `STORAGE` value; only the named store's are read
 * (the `S3_*` variables, say, are required only with `STORAGE=s3`).
 */
const storageCases: {
  readonly [Tag in StorageSettings["_tag"]]: (dataDir: string) => Config.Config<Data.TaggedEnum.Value<StorageSettings, Tag>>
} = {
  local: (dataDir) =>
    Config.all({
      dir: Config.String("STORAGE_DIR").pipe(Config.withDefault(`${trimSlash(dataDir)}/storage`)),
      secret: Config.Redacted("STORAGE_SECRET").pipe(Config.option)
    }).pipe(Config.map(StorageSettings.local)),
  s3: () => Config.map(S3ObjectStore.config, StorageSettings.s3)
}

/** The store `STORAGE` names (default `local`), with its settings. */
const storageConfig: Config.Config<StorageSettings> = Config.all({
  // The values are the cases' tags: a new case is a new value.
  storage: Config.Literals(Object.keys(storageCases) as Array<StorageSettings["_tag"]>, "STORAGE").pipe(
    Config.withDefault("local" as const)
  ),
  dataDir: dataDirConfig
}).pipe(Config.flatMap(({ dataDir, storage }): Config.Config<StorageSettings> => storageCases[storage](dataDir)))

/**
 * Where `npm run build` writes the Studio (`packages/studio/dist`), found from this
 * module: `packages/server/src` when run from the sources, `packages/server/dist` when
 * built, both two levels below `packages/`.
 */
export const defaultStudioDir: string = fileURLToPath(new URL("../../studio/dist", import.meta.url))

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
  /** Deadline of each database call (`DATABASE_TIMEOUT_MS`), PostgreSQL or PGlite. */
  readonly databaseTimeout: Duration.Duration
  /** The schema holding Coursekit's tables (`DATABASE_SCHEMA`, default `coursekit`), PostgreSQL or PGlite. */
  readonly databaseSchema: string
  /**
   * Base URL of stored files (`CDN_URL`); absent means where the store serves them:
   * `<PUBLIC_URL>/files` for the local store, the bucket's URL for S3.
   */
  readonly cdnUrl: Option.Option<string>
  /** Where files are kept: the store `STORAGE` names, with its own settings. */
  readonly storage: StorageSettings
  readonly uploadLimits: UploadLimits
  /** How long an upload never finalized is kept after its URL expired. */
  readonly uploadGracePeriod: Duration.Duration
  /** How often the upload sweep runs. */
  readonly uploadSweepInterval: Duration.Duration
  /** How long a signed URL of a private file works (`MEDIA_URL_TTL`). */
  readonly mediaUrlTtl: Duration.Duration
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
  /** The key that signs the Studio's session cookies (`SESSION_SECRET`); absent means a key file in `dataDir`. */
  readonly sessionSecret: Option.Option<Redacted.Redacted<string>>
  /** Most `GET /courses` responses cached per instance; 0 turns the cache off. */
  readonly listCacheEntries: number
  /** Revisions kept per course and per lesson (`REVISIONS_KEEP`, default 100). */
  readonly revisionsKeep: number
  /** Whether writes of courses, lessons and sections must carry `If-Match` (`REQUIRE_IF_MATCH`). */
  readonly requireIfMatch: boolean
  /** The language models of `POST /admin/ai/generate`, in the order they are tried. */
  readonly aiModels: ReadonlyArray<AiModelSettings>
  /** Deadline of each model call (`AI_TIMEOUT_MS`). */
  readonly aiTimeout: Duration.Duration
  /** How long a model that failed with 429, 5xx or a time-out is skipped, without `Retry-After` (`AI_COOLDOWN_MS`). */
  readonly aiCooldown: Duration.Duration
  /** Most bytes of a model's answer that are read (`AI_MAX_OUTPUT_BYTES`). */
  readonly aiMaxOutputBytes: number
  /** The HTML sanitizer's worker processes and bounds (`SANITIZER_*`). */
  readonly sanitizer: SanitizerSettings
  /** Whether Coursekit Studio is served at `/studio/` (`STUDIO_ENABLED`, default true). */
  readonly studioEnabled: boolean
  /** The Studio's build (`STUDIO_DIR`, default {@link defaultStudioDir}). */
  readonly studioDir: string
  /** Least severe level logged; request lines are `Info`. */
  readonly logLevel: LogLevel.LogLevel
  /**
   * How log lines are written (`LOG_FORMAT`): `auto` (the default) as text a person reads
   * when standard output is a terminal, else JSON lines; `json` always JSON lines.
   */
  readonly logFormat: "auto" | "json"
  /** Fill an empty database with the demo once the server listens (`DEMO`, or `npm start -- --demo`). */
  readonly demo: boolean
}

/** The HTML sanitizer's worker processes and bounds. */
export interface SanitizerSettings {
  /** Worker processes (`SANITIZER_WORKERS`). */
  readonly workers: number
  /** Sanitizations that may wait for a worker; one more is a 503 (`SANITIZER_QUEUE`). */
  readonly maxQueue: number
  /** Longest one sanitization may run; past it 422 (`SANITIZER_TIME_BUDGET_MS`). */
  readonly timeBudget: Duration.Duration
  /** How long an idle worker lives before it ends and returns its memory (`SANITIZER_IDLE_MS`). */
  readonly idleTimeout: Duration.Duration
  /** Most elements a document may have after parsing (`SANITIZER_MAX_ELEMENTS`). */
  readonly maxElements: number
}


/** A minute to 7 days (SigV4's limit), whole seconds as signed URLs count them. */
const mediaUrlTtlConfig = Config.Duration("MEDIA_URL_TTL").pipe(
  Config.withDefault(defaultMediaUrlTtl),
  Config.flatMap((ttl) =>
    Duration.isLessThan(ttl, Duration.minutes(1)) || Duration.isGreaterThan(ttl, maxMediaUrlTtl)
      ? configFailure(`MEDIA_URL_TTL must be between 1 minute and 7 days; it is ${Duration.format(ttl)}`)
      : Config.succeed(ttl)
  )
)

/** An integer variable within `minimum`–`maximum`, `fallback` when unset. */
const intBetween = (name: string, minimum: number, maximum: number, fallback: number) =>
  Config.schema(Schema.Int.check(Schema.isBetween({ minimum, maximum })), name).pipe(Config.withDefault(fallback))

/** Reads {@link ServerSettings}. */
export const settings: Config.Config<ServerSettings> = Config.all({
  // 0 asks the system for a free port (the start-up line names it).
  port: intBetween("PORT", 0, 65535, 3000),
  host: Config.String("HOST").pipe(Config.withDefault("0.0.0.0")),
  publicUrl: Config.URL("PUBLIC_URL").pipe(Config.option),
  dataDir: dataDirConfig,
  databaseUrl: Config.Redacted("DATABASE_URL").pipe(Config.option),
  databasePoolSize: Config.Int("DATABASE_POOL_SIZE").pipe(Config.withDefault(PgDatabase.defaultPoolSize)),
  databaseTimeout: PgDatabase.timeoutConfig,
  databaseSchema: PgDatabase.schemaConfig,
  cdnUrl: Config.URL("CDN_URL").pipe(Config.option),
  storage: storageConfig,
  thumbnailMaxBytes: Config.schema(Schema.Int.check(Schema.isGreaterThan(0)), "UPLOAD_THUMBNAIL_MAX_BYTES").pipe(
    Config.withDefault(defaultUploadLimits.thumbnailMaxBytes)
  ),
  mediaMaxBytes: Config.schema(Schema.Int.check(Schema.isGreaterThan(0)), "UPLOAD_MEDIA_MAX_BYTES").pipe(
    Config.withDefault(defaultUploadLimits.mediaMaxBytes)
  ),
  singlePutMaxBytes: Config.schema(Schema.Int.check(Schema.isGreaterThan(0)), "UPLOAD_SINGLE_PUT_MAX_BYTES").pipe(
    Config.withDefault(defaultSinglePutMaxBytes)
  ),
  uploadGracePeriod: Config.Duration("UPLOAD_GRACE_PERIOD").pipe(Config.withDefault(Duration.hours(1))),
  uploadSweepInterval: Config.Duration("UPLOAD_SWEEP_INTERVAL").pipe(Config.withDefault(Duration.minutes(10))),
  mediaUrlTtl: mediaUrlTtlConfig,
  // Its length is checked when the resolver is built (JwtViewerResolver.minSecretLength),
  // so that no error message ever holds the value.
  jwtSecret: Config.Redacted("JWT_SECRET").pipe(Config.option),
  jwksUrl: Config.URL("JWKS_URL").pipe(Config.map((url) => url.toString()), Config.option),
  jwtIssuer: Config.String("JWT_ISSUER").pipe(Config.option),
  jwtAudience: Config.String("JWT_AUDIENCE").pipe(Config.option),
  adminTokens: Config.Redacted("ADMIN_TOKENS").pipe(Config.option),
  // Its length is checked when the sessions are built (`minSessionSecretLength` of
  // @coursekit/http), so that no error message ever holds the value.
  sessionSecret: Config.Redacted("SESSION_SECRET").pipe(Config.option),
  listCacheEntries: Config.schema(Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)), "LIST_CACHE_ENTRIES").pipe(
    Config.withDefault(10_000)
  ),
  revisionsKeep: intBetween("REVISIONS_KEEP", 1, 100_000, defaultRevisionPolicy.keep),
  requireIfMatch: Config.Boolean("REQUIRE_IF_MATCH").pipe(Config.withDefault(false)),
  aiModels: aiModelsConfig,
  aiTimeoutMs: intBetween("AI_TIMEOUT_MS", 1, 600_000, 30_000),
  aiCooldownMs: intBetween("AI_COOLDOWN_MS", 0, 3_600_000, 60_000),
  aiMaxOutputBytes: intBetween("AI_MAX_OUTPUT_BYTES", 1, 100_000_000, 1_000_000),
  sanitizerWorkers: intBetween("SANITIZER_WORKERS", 1, 64, defaultSanitizerWorkers()),
  sanitizerQueue: intBetween("SANITIZER_QUEUE", 0, 100_000, 64),
  sanitizerTimeBudgetMs: intBetween("SANITIZER_TIME_BUDGET_MS", 1, 600_000, 2_000),
  sanitizerIdleMs: intBetween("SANITIZER_IDLE_MS", 0, 86_400_000, 10_000),
  sanitizerMaxElements: intBetween("SANITIZER_MAX_ELEMENTS", 1, 10_000_000, defaultHtmlLimits.maxElements),
  studioEnabled: Config.Boolean("STUDIO_ENABLED").pipe(Config.withDefault(true)),
  studioDir: Config.NonEmptyString("STUDIO_DIR").pipe(Config.withDefault(defaultStudioDir)),
  logLevel: Config.LogLevel("LOG_LEVEL").pipe(Config.withDefault<LogLevel.LogLevel>("Info")),
  logFormat: Config.Literals(["auto", "json"], "LOG_FORMAT").pipe(Config.withDefault<"auto" | "json">("auto")),
  demo: Config.Boolean("DEMO").pipe(Config.withDefault(false))
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
    databaseTimeout: raw.databaseTimeout,
    databaseSchema: raw.databaseSchema,
    cdnUrl: Option.map(raw.cdnUrl, (url) => trimSlash(url.toString())),
    storage: raw.storage,
    uploadLimits: { thumbnailMaxBytes: raw.thumbnailMaxBytes, mediaMaxBytes: raw.mediaMaxBytes, singlePutMaxBytes: raw.singlePutMaxBytes },
    uploadGracePeriod: raw.uploadGracePeriod,
    uploadSweepInterval: raw.uploadSweepInterval,
    mediaUrlTtl: raw.mediaUrlTtl,
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
    sessionSecret: raw.sessionSecret,
    listCacheEntries: raw.listCacheEntries,
    revisionsKeep: raw.revisionsKeep,
    requireIfMatch: raw.requireIfMatch,
    aiModels: raw.aiModels,
    aiTimeout: Duration.millis(raw.aiTimeoutMs),
    aiCooldown: Duration.millis(raw.aiCooldownMs),
    aiMaxOutputBytes: raw.aiMaxOutputBytes,
    sanitizer: {
      workers: raw.sanitizerWorkers,
      maxQueue: raw.sanitizerQueue,
      timeBudget: Duration.millis(raw.sanitizerTimeBudgetMs),
      idleTimeout: Duration.millis(raw.sanitizerIdleMs),
      maxElements: raw.sanitizerMaxElements
    },
    studioEnabled: raw.studioEnabled,
    studioDir: raw.studioDir,
    logLevel: raw.logLevel,
    logFormat: raw.logFormat,
    demo: raw.demo
  }
}))
