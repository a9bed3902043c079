/**
 * The standalone Coursekit service, wired from {@link ServerSettings}: PostgreSQL when
 * `DATABASE_URL` is set, else the embedded PGlite in `DATA_DIR`; files on local disk
 * (served by this server) or in S3; admin tokens from `ADMIN_TOKENS`, else the token file
 * in `DATA_DIR`; the upload sweep; the HTTP server on `HOST:PORT`.
 *
 * @since 0.1.0
 */
import {
  Catalogue,
  ContentGenerator,
  FileUrl,
  HtmlSanitizer,
  Lessons,
  LlmChain,
  type LlmProvider,
  ObjectStore,
  PublicCourses,
  Purchases,
  type StorageError,
  Uploads
} from "@coursekit/core"
import { AdminTokens, CourseListCache, CoursekitHttp, JwtViewerResolver, Readiness, RequestLogger, ViewerResolver } from "@coursekit/http"
import { PgCourseRepo, PgDatabase, PgLessonRepo, PgliteDatabase, PgPurchaseRepo, PgUploadRepo } from "@coursekit/postgres"
import { GeminiProvider } from "@coursekit/llm-gemini"
import { OpenAiProvider } from "@coursekit/llm-openai"
import { LocalObjectStore, LocalStorageRoutes } from "@coursekit/storage-local"
import { S3ObjectStore } from "@coursekit/storage-s3"
import { NodeServices } from "@effect/platform-node"
import { type Config, Effect, Layer, LogLevel, Option, type PlatformError, Redacted, References } from "effect"
import { HttpServer, type HttpServerError } from "effect/http"
import { type Migrator, SqlClient, type SqlError } from "effect/sql"
import { join } from "node:path"
import * as AdminTokenFile from "./AdminTokenFile.ts"
import * as SecretFile from "./SecretFile.ts"
import { aiConfigurationHint, type AiModelSettings, type ServerSettings, settings as readSettings } from "./ServerConfig.ts"

const layerDatabase = (settings: ServerSettings) =>
  Option.match(settings.databaseUrl, {
    onNone: () => PgliteDatabase.layer({ dataDir: join(settings.dataDir, "pglite") }),
    onSome: (url) => PgDatabase.layer({ url, maxConnections: settings.databasePoolSize })
  })

const layerModel = (model: AiModelSettings): Layer.Layer<LlmProvider> => {
  const baseUrl = Option.getOrUndefined(model.baseUrl)
  switch (model.provider) {
    case "openai":
      return OpenAiProvider.layer({ model: model.model, apiKey: Option.getOrUndefined(model.apiKey), baseUrl })
    case "google":
      // ServerConfig requires the key for Gemini; an empty one would be answered 400/401.
      return GeminiProvider.layer({ model: model.model, apiKey: Option.getOrElse(model.apiKey, () => Redacted.make("")), baseUrl })
  }
}

/** `POST /admin/ai/generate`: the configured models, in order (none: a 503 naming the variables). */
const layerContentGenerator = (settings: ServerSettings) =>
  ContentGenerator.layerNoDeps({ timeout: settings.aiTimeout, cooldown: settings.aiCooldown }).pipe(
    Layer.provide(LlmChain.layer(settings.aiModels.map(layerModel), { whenEmpty: aiConfigurationHint }))
  )

const layerAdminTokens = (settings: ServerSettings) =>
  Layer.unwrap(Effect.gen(function*() {
    if (settings.adminTokens.length > 0) {
      yield* Effect.logInfo(`Admin tokens: ${settings.adminTokens.length} from ADMIN_TOKENS.`)
      return AdminTokens.layer(settings.adminTokens)
    }
    const file = yield* AdminTokenFile.ensure(settings.dataDir)
    yield* file.created
      ? Effect.logInfo(`Created an admin token in ${file.path} (mode 0600); it is printed this once.`).pipe(
        Effect.annotateLogs({ adminToken: Redacted.value(file.token) })
      )
      : Effect.logInfo(`Admin token: read it from ${file.path}.`)
    return AdminTokens.layer([file.token])
  }))

/** Viewer tokens from `JWT_SECRET` and/or `JWKS_URL`; with neither, viewers are anonymous. */
const layerViewers = (settings: ServerSettings) =>
  Option.isNone(settings.jwtSecret) && Option.isNone(settings.jwksUrl)
    ? ViewerResolver.layerAnonymousOnly
    : JwtViewerResolver.layer({
      secret: Option.getOrUndefined(settings.jwtSecret),
      jwksUrl: Option.getOrUndefined(settings.jwksUrl),
      issuer: Option.getOrUndefined(settings.jwtIssuer),
      audience: Option.getOrUndefined(settings.jwtAudience)
    })

const layerReadiness = Layer.effect(
  Readiness,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const store = yield* ObjectStore
    return Readiness.of({
      checks: [
        { name: "database", check: sql`SELECT 1`.pipe(Effect.asVoid) },
        { name: "storage", check: store.check }
      ]
    })
  })
)

/**
 * The server's own base URL. With `PORT=0` and no `PUBLIC_URL` it is known only once the
 * server listens: {@link announce} sets it then, and URLs built later read it.
 */
interface Origin {
  url: string
}

const originOf = (settings: ServerSettings): Origin => ({ url: settings.publicUrl })

/** The local store's signing key: `STORAGE_SECRET`, else a key file in `DATA_DIR`. */
const storageSecret = (settings: ServerSettings) =>
  Option.match(settings.storageSecret, {
    onSome: Effect.succeed,
    onNone: () => Effect.map(SecretFile.ensure(settings.dataDir, "storage-secret", ""), (file) => file.secret)
  })

/** The local store on `STORAGE_DIR`, signing URLs under the server's own URL. */
const layerLocalStore = (settings: ServerSettings, origin: Origin) =>
  Layer.unwrap(Effect.map(storageSecret(settings), (secret) =>
    LocalObjectStore.layer({
      root: settings.storageDir,
      uploadBaseUrl: () => `${origin.url}/storage`,
      publicBaseUrl: () => `${origin.url}/files`,
      secret,
      maxUploadBytes: Math.max(settings.uploadLimits.thumbnailMaxBytes, settings.uploadLimits.mediaMaxBytes)
    })))

/** `CDN_URL` when set, else wherever the store serves files. */
const layerFileUrl = (settings: ServerSettings) =>
  Option.match(settings.cdnUrl, {
    onSome: (url) => FileUrl.layer(url),
    onNone: () =>
      Layer.effect(
        FileUrl,
        Effect.gen(function*() {
          const store = yield* ObjectStore
          return FileUrl.of({ publicUrl: store.publicUrl })
        })
      )
  })

const announce = (settings: ServerSettings, origin: Origin) =>
  Layer.effectDiscard(Effect.gen(function*() {
    const server = yield* HttpServer.HttpServer
    const address = server.address
    // With PORT=0 only the bound address knows the port. A specific listening address
    // is named as it is; a wildcard one as localhost.
    const host = settings.host === "0.0.0.0" || settings.host === "::" ? "localhost" : settings.host.includes(":") ? `[${settings.host}]` : settings.host
    const publicUrl = settings.publicUrlConfigured || address._tag === "UnixPathAddress"
      ? settings.publicUrl
      : `http://${host}:${address.port}`
    origin.url = publicUrl
    yield* Effect.addFinalizer(() =>
      Effect.logInfo("Shutting down: finishing requests in flight, then closing the database.")
    )
    yield* Effect.logInfo(
      `Coursekit is listening on ${HttpServer.formatAddress(server.address)}; ` +
        `public URL ${publicUrl}, API docs ${publicUrl}/docs, OpenAPI ${publicUrl}/openapi.json`
    )
    // Provider and model only: never a key or a base URL (which may hold credentials).
    yield* Effect.logInfo(
      settings.aiModels.length === 0
        ? "AI content generation: no model configured (set AI_PRIMARY_*)."
        : `AI content generation: ${settings.aiModels.map((model) => `${model.provider}/${model.model}`).join(" → ")}`
    )
  }))

/** Why the service could not start. */
export type StartError =
  | HttpServerError.ServeError
  | SqlError.SqlError
  | Migrator.MigrationError
  | PgliteDatabase.PgliteStartError
  | PlatformError.PlatformError
  | AdminTokenFile.AdminTokenFileInvalid
  | StorageError
  | JwtViewerResolver.JwtOptionsInvalid

/**
 * The whole service for `settings`. Build it to serve; release it to shut down
 * gracefully: the server stops accepting and finishes requests in flight before the
 * sweep, the store and the database are released. `HttpServer` is in the output, so
 * callers can read the bound address.
 */
export const layerFrom = (settings: ServerSettings): Layer.Layer<HttpServer.HttpServer | Catalogue | Uploads, StartError> => {
  const origin = originOf(settings)
  // One local store layer for both uses below: layers are built once per reference.
  const local = layerLocalStore(settings, origin)
  const store = Option.match(settings.s3, {
    onNone: () => local,
    onSome: (options) => S3ObjectStore.layer(options)
  })
  // The local store's upload and file routes are served here; S3 serves its own.
  const routes = Option.isNone(settings.s3)
    ? Layer.mergeAll(CoursekitHttp.layerRoutes, LocalStorageRoutes.layer().pipe(Layer.provide(local)))
    : CoursekitHttp.layerRoutes
  const uploads = Uploads.layerNoDeps({ limits: settings.uploadLimits, gracePeriod: settings.uploadGracePeriod })
  return announce(settings, origin).pipe(
    Layer.provideMerge(CoursekitHttp.layerNodeServer({ port: settings.port, host: settings.host }, routes)),
    Layer.provide([
      CourseListCache.layer({ maxEntries: settings.listCacheEntries }),
      layerReadiness,
      layerAdminTokens(settings),
      layerViewers(settings),
      LogLevel.isGreaterThan(settings.logLevel, "Info") ? RequestLogger.layerSilent : RequestLogger.layerJsonLines()
    ]),
    Layer.provideMerge(Uploads.layerSweeper(settings.uploadSweepInterval).pipe(Layer.provideMerge(uploads))),
    Layer.provideMerge(
      Layer.mergeAll(
        Catalogue.layerNoDeps,
        Lessons.layerNoDeps,
        PublicCourses.layerNoDeps,
        Purchases.layerNoDeps,
        layerContentGenerator(settings)
      ).pipe(
        Layer.provide(HtmlSanitizer.layer)
      )
    ),
    Layer.provide(layerFileUrl(settings)),
    Layer.provideMerge(Layer.mergeAll(PgCourseRepo.layer, PgUploadRepo.layer, PgLessonRepo.layer, PgPurchaseRepo.layer)),
    Layer.provideMerge(store),
    Layer.provide(layerDatabase(settings)),
    Layer.provide(NodeServices.layer),
    Layer.provide(Layer.succeed(References.MinimumLogLevel, settings.logLevel))
  )
}

/** The service configured from the environment (see the README's configuration table). */
export const layer: Layer.Layer<HttpServer.HttpServer | Catalogue | Uploads, StartError | Config.ConfigError> = Layer.unwrap(
  Effect.map(readSettings, layerFrom)
)
