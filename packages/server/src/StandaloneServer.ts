/**
 * The standalone Coursekit service, wired from {@link ServerSettings}: PostgreSQL when
 * `DATABASE_URL` is set, else the embedded PGlite in `DATA_DIR`; admin tokens from
 * `ADMIN_TOKENS`, else the token file in `DATA_DIR`; the HTTP server on `HOST:PORT`.
 *
 * @since 0.1.0
 */
import { Catalogue, FileUrl, HtmlSanitizer } from "@coursekit/core"
import { AdminTokens, CourseListCache, CoursekitHttp, Readiness, RequestLogger } from "@coursekit/http"
import { PgCourseRepo, PgDatabase, PgliteDatabase } from "@coursekit/postgres"
import { NodeServices } from "@effect/platform-node"
import { type Config, Effect, Layer, LogLevel, Option, type PlatformError, Redacted, References } from "effect"
import { HttpServer, type HttpServerError } from "effect/http"
import { type Migrator, SqlClient, type SqlError } from "effect/sql"
import { join } from "node:path"
import * as AdminTokenFile from "./AdminTokenFile.ts"
import { type ServerSettings, settings as readSettings } from "./ServerConfig.ts"

const layerDatabase = (settings: ServerSettings) =>
  Option.match(settings.databaseUrl, {
    onNone: () => PgliteDatabase.layer({ dataDir: join(settings.dataDir, "pglite") }),
    onSome: (url) => PgDatabase.layer({ url, maxConnections: settings.databasePoolSize })
  })

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

const layerReadiness = Layer.effect(
  Readiness,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return Readiness.of({ checks: [{ name: "database", check: sql`SELECT 1`.pipe(Effect.asVoid) }] })
  })
)

const announce = (settings: ServerSettings) =>
  Layer.effectDiscard(Effect.gen(function*() {
    const server = yield* HttpServer.HttpServer
    const address = server.address
    // With PORT=0 only the bound address knows the port.
    const publicUrl = settings.publicUrlConfigured || address._tag === "UnixPathAddress"
      ? settings.publicUrl
      : `http://localhost:${address.port}`
    yield* Effect.addFinalizer(() =>
      Effect.logInfo("Shutting down: finishing requests in flight, then closing the database.")
    )
    yield* Effect.logInfo(
      `Coursekit is listening on ${HttpServer.formatAddress(server.address)}; ` +
        `public URL ${publicUrl}, API docs ${publicUrl}/docs, OpenAPI ${publicUrl}/openapi.json`
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

/**
 * The whole service for `settings`. Build it to serve; release it to shut down
 * gracefully. `HttpServer` is in the output, so callers can read the bound address.
 */
export const layerFrom = (settings: ServerSettings): Layer.Layer<HttpServer.HttpServer | Catalogue, StartError> =>
  announce(settings).pipe(
    Layer.provideMerge(CoursekitHttp.layerNodeServer({ port: settings.port, host: settings.host })),
    Layer.provide([
      CourseListCache.layer({ maxEntries: settings.listCacheEntries }),
      layerReadiness,
      layerAdminTokens(settings),
      LogLevel.isGreaterThan(settings.logLevel, "Info") ? RequestLogger.layerSilent : RequestLogger.layerJsonLines()
    ]),
    Layer.provideMerge(Catalogue.layerNoDeps.pipe(Layer.provide([PgCourseRepo.layer, FileUrl.layer(settings.cdnUrl), HtmlSanitizer.layer]))),
    Layer.provide(layerDatabase(settings)),
    Layer.provide(NodeServices.layer),
    Layer.provide(Layer.succeed(References.MinimumLogLevel, settings.logLevel))
  )

/** The service configured from the environment (see the README's configuration table). */
export const layer: Layer.Layer<HttpServer.HttpServer | Catalogue, StartError | Config.ConfigError> = Layer.unwrap(
  Effect.map(readSettings, layerFrom)
)
