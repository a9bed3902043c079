/**
 * Coursekit's default wiring, shared by the standalone server and embedding hosts:
 * PostgreSQL when `DATABASE_URL` is set, else the embedded PGlite in `DATA_DIR`; files on
 * local disk (with their upload and file routes) or in S3; the configured language
 * models; the upload sweep. A host that "takes the defaults" hands {@link layer} to
 * `CoursekitHttp.nodeHandler`, `webHandler` or a framework adapter:
 *
 * ```ts
 * const kit = coursekit(DefaultServices.layer({ publicUrl: "https://app.example.com/api/coursekit" }), {
 *   prefix: "/api/coursekit",
 *   identify
 * })
 * ```
 *
 * @since 0.1.0
 */
import {
  type AdminSessionRepo,
  Courses,
  ContentGenerator,
  Deadline,
  FileUrl,
  defaultHtmlLimits,
  MediaUrls,
  Lessons,
  LlmChain,
  type LlmProvider,
  ObjectStore,
  ProviderCooldowns,
  PublicCourses,
  Purchases,
  type StorageError,
  Uploads,
  UploadSweep,
  defaultRevisionPolicy,
  Learning,
  RevisionPolicies
} from "@coursekit/core"
import { CourseListCache, type CoursekitHttp, layerHostAuth, Readiness, RequestLogger, RequireIfMatch, type StoreOriginList, StoreOrigins } from "@coursekit/http"
import * as LocalStorageRoutes from "@coursekit/http/local-storage"
import { GeminiProvider } from "@coursekit/llm-gemini"
import { OpenAiProvider } from "@coursekit/llm-openai"
import {
  type DataDirectoryLock,
  PgAdminSessionRepo,
  PgCourseRepo,
  PgDatabase,
  PgLessonRepo,
  PgliteDatabase,
  PgProgressRepo,
  PgProviderCooldowns,
  PgPublicCourseRows,
  PgPurchaseRepo,
  PgMediaRepo,
  PgUploadRepo
} from "@coursekit/postgres"
import { LocalObjectStore, ServedKeys } from "@coursekit/storage-local"
import { S3ObjectStore } from "@coursekit/storage-s3"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { type Config, ConfigProvider, type Data, Duration, Effect, Layer, Option, type PlatformError, Redacted, References } from "effect"
import type { HttpRouter } from "effect/http"
import { type Migrator, SqlClient, type SqlError } from "effect/sql"
import { join } from "node:path"
import * as PrivateDirectory from "./PrivateDirectory.ts"
import * as SecretFile from "./SecretFile.ts"
import * as WorkerHtmlSanitizer from "./WorkerHtmlSanitizer.ts"
import { aiConfigurationHint, type AiModelSettings, type ServerSettings, settings as readSettings, type StorageSettings } from "./ServerConfig.ts"

/** Why the default services could not start. */
export type StartError =
  | SqlError.SqlError
  | Migrator.MigrationError
  | PgliteDatabase.PgliteStartError
  | DataDirectoryLock.DataDirectoryInUse
  | DataDirectoryLock.DataDirectoryLockError
  | PlatformError.PlatformError
  | StorageError

/** PGlite in `DATA_DIR/pglite`, which the layer locks: one process per data directory. */
const layerDatabase = (settings: ServerSettings) =>
  Option.match(settings.databaseUrl, {
    onNone: () =>
      PgliteDatabase.layer({
        dataDir: join(settings.dataDir, "pglite"),
        timeout: settings.databaseTimeout,
        schema: settings.databaseSchema
      }).pipe(
        Layer.provide(Layer.effectDiscard(PrivateDirectory.ensure(settings.dataDir)).pipe(Layer.provide(NodeServices.layer)))
      ),
    onSome: (url) =>
      PgDatabase.layer({
        url,
        maxConnections: settings.databasePoolSize,
        timeout: settings.databaseTimeout,
        schema: settings.databaseSchema
      })
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

/**
 * The models' cool-downs: on PostgreSQL in the database, shared by every instance; on
 * PGlite (one process) in the process.
 */
const layerCooldowns = (settings: ServerSettings) =>
  Option.isSome(settings.databaseUrl) ? PgProviderCooldowns.layer() : ProviderCooldowns.layerMemory

/** `POST /admin/ai/generate`: the configured models, in order (none: a 503 naming the variables). */
const layerContentGenerator = (settings: ServerSettings) =>
  ContentGenerator.layerNoDeps({ timeout: settings.aiTimeout, cooldown: settings.aiCooldown, maxOutputBytes: settings.aiMaxOutputBytes }).pipe(
    Layer.provide(LlmChain.layer(
      settings.aiModels.map((model) => ({ model: layerModel(model), prices: Option.getOrUndefined(model.prices) })),
      { whenEmpty: aiConfigurationHint }
    )),
    Layer.provide(layerCooldowns(settings))
  )

/** Every stored HTML body and every model answer is sanitized in worker processes, off the event loop. */
const layerSanitizer = (settings: ServerSettings) =>
  WorkerHtmlSanitizer.layer({
    limits: { ...defaultHtmlLimits, maxElements: settings.sanitizer.maxElements },
    workers: settings.sanitizer.workers,
    maxQueue: settings.sanitizer.maxQueue,
    timeBudget: settings.sanitizer.timeBudget,
    idleTimeout: settings.sanitizer.idleTimeout
  })

const layerReadiness = (settings: ServerSettings) =>
  Layer.effect(
    Readiness,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const store = yield* ObjectStore
      const database = sql`SELECT 1`.pipe(
        Effect.asVoid,
        Deadline.within(settings.databaseTimeout, () => new Error(`no answer within ${Duration.format(settings.databaseTimeout)}`))
      )
      return Readiness.of({
        checks: [
          { name: "database", check: database },
          { name: "storage", check: store.check }
        ]
      })
    })
  )

type LocalStorage = Data.TaggedEnum.Value<StorageSettings, "local">

/** The local store's signing key: `STORAGE_SECRET`, else a key file in `DATA_DIR`. */
const storageSecret = (settings: ServerSettings, local: LocalStorage) =>
  Option.match(local.secret, {
    onSome: Effect.succeed,
    onNone: () => Effect.map(SecretFile.ensure(settings.dataDir, "storage-secret", ""), (file) => file.secret)
  })

/** The local store on `STORAGE_DIR`, signing URLs under `publicUrl`. */
const layerLocalStore = (settings: ServerSettings, local: LocalStorage, publicUrl: () => string) =>
  Layer.unwrap(Effect.map(Effect.andThen(PrivateDirectory.ensure(settings.dataDir), storageSecret(settings, local)), (secret) =>
    LocalObjectStore.layer({
      root: local.dir,
      uploadBaseUrl: () => `${publicUrl()}/storage`,
      // Behind a CDN, signed URLs of private files go through it too (it forwards their query).
      publicBaseUrl: Option.match(settings.cdnUrl, { onSome: (url) => url, onNone: () => () => `${publicUrl()}/files` }),
      secret,
      maxUploadBytes: Math.max(settings.uploadLimits.thumbnailMaxBytes, settings.uploadLimits.mediaMaxBytes)
    })))

/** A store, the routes it needs this server to serve (the local store's uploads and files), and where browsers reach it. */
interface StorageLayers {
  readonly store: Layer.Layer<ObjectStore, StartError>
  readonly routes: Layer.Layer<never, StartError, HttpRouter.HttpRouter>
  /** The origins of its files' and upload URLs (read on every use, as `publicUrl`). */
  readonly origins: () => StoreOriginList
}

/**
 * The store `settings.storage` names: the one place each store is wired. `servedKeys`
 * says which files the local store's file route may serve.
 */
const layerStorage = (
  settings: ServerSettings,
  publicUrl: () => string,
  servedKeys: Layer.Layer<ServedKeys, StartError>
): StorageLayers => {
  const storage = settings.storage
  switch (storage._tag) {
    case "local": {
      const store = layerLocalStore(settings, storage, publicUrl).pipe(Layer.provide(NodeServices.layer))
      return {
        store,
        routes: LocalStorageRoutes.layer().pipe(Layer.provide(store), Layer.provide(servedKeys)),
        // This server receives the uploads and serves the files (unless a CDN does).
        origins: () => ({ files: [Option.getOrElse(settings.cdnUrl, publicUrl)], uploads: [publicUrl()] })
      }
    }
    case "s3": {
      // S3 serves its own uploads and files; signed reads and uploads go to the bucket's own URL.
      const bucket = S3ObjectStore.bucketUrl(storage)
      const files = [Option.getOrElse(settings.cdnUrl, () => storage.publicBaseUrl ?? bucket), bucket]
      return { store: S3ObjectStore.layer(storage), routes: Layer.empty, origins: () => ({ files, uploads: [bucket] }) }
    }
  }
}

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

/** The core's wiring: see {@link coreLayers}. */
export interface CoreLayers {
  /**
   * The use cases, the upload sweep, the readiness checks of the database and the store,
   * and where browsers reach the store (`StoreOrigins`, for the Studio's policy).
   */
  readonly services: Layer.Layer<CoursekitHttp.UseCases | UploadSweep | Readiness, StartError>
  /** With the local store, its upload (`/storage`) and file (`/files`) routes; else none. */
  readonly storageRoutes: Layer.Layer<never, StartError, HttpRouter.HttpRouter>
  /** The Studio's admin sessions, in the same database (the standalone server signs authors in; a host's login does). */
  readonly adminSessions: Layer.Layer<AdminSessionRepo, StartError>
}

/**
 * The core's use cases on the adapters `settings` pick, the routes the local store
 * needs, and the admin sessions' store. They share one store and one database: build
 * `storageRoutes` and `adminSessions` within the build of `services` (as the routes of a
 * server or handler provided with them), since layers are shared per reference within
 * one build. `publicUrl` is where clients reach those routes (read on every use).
 */
export const coreLayers = (settings: ServerSettings, publicUrl: () => string): CoreLayers => {
  // One database for the services and the file route: layers are shared per reference
  // within one build (a second PGlite on the directory would be refused by its lock).
  const database = layerDatabase(settings)
  // Files are served once finalized: the media library says which.
  const servedKeys = ServedKeys.layerFinalized.pipe(Layer.provide(PgMediaRepo.layer), Layer.provide(database))
  const storage = layerStorage(settings, publicUrl, servedKeys)
  const uploads = { limits: settings.uploadLimits, gracePeriod: settings.uploadGracePeriod }
  const services = Layer.mergeAll(
    UploadSweep.layerSchedule(settings.uploadSweepInterval).pipe(Layer.provideMerge(UploadSweep.layerNoDeps(uploads))),
    Layer.mergeAll(
      Courses.layerNoDeps,
      Lessons.layerNoDeps,
      PublicCourses.layerNoDeps,
      Purchases.layerNoDeps,
      Learning.layerNoDeps,
      layerContentGenerator(settings)
    ).pipe(Layer.provideMerge(Uploads.layerNoDeps(uploads)), Layer.provide(layerSanitizer(settings))),
    layerReadiness(settings),
    Layer.succeed(StoreOrigins, storage.origins)
  ).pipe(
    Layer.provide(MediaUrls.layer({ ttl: settings.mediaUrlTtl })),
    Layer.provide(layerFileUrl(settings)),
    Layer.provide(Layer.mergeAll(PgCourseRepo.layer, PgUploadRepo.layer, PgLessonRepo.layer, PgPurchaseRepo.layer, PgPublicCourseRows.layer, PgProgressRepo.layer)),
    Layer.provide(Layer.succeed(RevisionPolicies, { ...defaultRevisionPolicy, keep: settings.revisionsKeep })),
    Layer.provide(storage.store),
    Layer.provide(database),
    Layer.provide(NodeServices.layer),
    Layer.provide(Layer.succeed(References.MinimumLogLevel, settings.logLevel))
  )
  return { services, storageRoutes: storage.routes, adminSessions: PgAdminSessionRepo.layer.pipe(Layer.provide(database)) }
}

/** Options of {@link layer} and {@link layerFrom}. */
export interface Options {
  /**
   * The absolute URL clients reach the mounted API at, the host's prefix included:
   * `https://app.example.com/api/coursekit`. The local store signs upload URLs under
   * `<publicUrl>/storage` and serves files from `<publicUrl>/files` (unless `CDN_URL`
   * says otherwise). A function is read on every use: a host listening on port 0
   * knows its URL only once it listens.
   */
  readonly publicUrl: string | (() => string)
  /**
   * Where the PGlite database (`<dataDir>/pglite`), the files (`<dataDir>/storage`) and
   * the upload-signing key live; for {@link layer}, in place of `DATA_DIR`. One process
   * owns a data directory.
   */
  readonly dataDir?: string | undefined
}

/**
 * Everything the embedded handlers need, on the default adapters configured by
 * `settings`: the use cases ({@link coreLayers}), the host's identity for the viewer and
 * admin checks (`identify`; `ADMIN_TOKENS` and the `JWT_*` variables are the standalone
 * server's and are not read), the course list cache (`LIST_CACHE_ENTRIES`), readiness
 * of the database and the store, and no request log (the host logs its requests).
 */
export const layerFrom = (settings: ServerSettings, options: Options): CoursekitHttp.HostServices<StartError> => {
  const { publicUrl } = options
  const read = typeof publicUrl === "string" ? () => publicUrl : publicUrl
  const core = coreLayers(settings, () => read().replace(/\/+$/, ""))
  return Layer.mergeAll(
    layerHostAuth,
    CourseListCache.layer({ maxEntries: settings.listCacheEntries }),
    Layer.succeed(RequireIfMatch, settings.requireIfMatch),
    RequestLogger.layerSilent,
    core.storageRoutes
  ).pipe(Layer.provideMerge(core.services))
}

/**
 * {@link layerFrom} with the settings read from the configuration (the environment by
 * default: `DATA_DIR`, `DATABASE_URL`, `STORAGE`, `S3_*`, `AI_*`, `UPLOAD_*`, … as
 * docs/configuration.md lists them; `PORT`, `HOST`, `PUBLIC_URL`, `ADMIN_TOKENS` and
 * `JWT_*` are the host's business and are not used). With nothing set: PGlite in
 * `./data/pglite`, files in `./data/storage`, no model.
 */
export const layer = (options: Options): CoursekitHttp.HostServices<StartError | Config.ConfigError> =>
  Layer.unwrap(Effect.gen(function*() {
    const configured = yield* ConfigProvider.ConfigProvider
    const provider = options.dataDir === undefined
      ? configured
      : ConfigProvider.orElse(ConfigProvider.fromEnv({ env: { DATA_DIR: options.dataDir } }), configured)
    return layerFrom(yield* readSettings.parse(provider), options)
  }))
