/**
 * The standalone Coursekit service, wired from {@link ServerSettings}: the default
 * services (`DefaultServices`: PostgreSQL or PGlite, local disk or S3, the models, the
 * upload sweep); admin tokens from `ADMIN_TOKENS`, else the token file in `DATA_DIR`, and
 * the Studio's sessions signed with `SESSION_SECRET`, else a key file in `DATA_DIR`;
 * viewer tokens from `JWT_SECRET`/`JWKS_URL`; Coursekit Studio at `/studio/` unless
 * `STUDIO_ENABLED=false`; the HTTP server on `HOST:PORT`.
 *
 * @since 0.1.0
 */
import type { AdminSessionRepo, Courses, Uploads, UploadSweep } from "@coursekit/core"
import {
  AdminSessions,
  CourseListCache,
  CoursekitHttp,
  JwtViewerResolver,
  RequestLogger,
  RequireIfMatch,
  type SessionSecretTooShort,
  StudioRoutes,
  ViewerResolver
} from "@coursekit/http"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { type Config, Effect, Layer, LogLevel, Option, Redacted } from "effect"
import { HttpServer, type HttpServerError } from "effect/http"
import * as AdminTokenFile from "./AdminTokenFile.ts"
import * as DemoData from "./DemoData.ts"
import * as DefaultServices from "./DefaultServices.ts"
import * as SecretFile from "./SecretFile.ts"
import { type ServerSettings, settings as readSettings } from "./ServerConfig.ts"

/** Admin tokens from `ADMIN_TOKENS`, else the token file in `DATA_DIR`. */
const adminTokensOf = (settings: ServerSettings) =>
  Effect.gen(function*() {
    if (settings.adminTokens.length > 0) {
      yield* Effect.logInfo(`Admin tokens: ${settings.adminTokens.length} from ADMIN_TOKENS.`)
      return settings.adminTokens
    }
    const file = yield* AdminTokenFile.ensure(settings.dataDir)
    yield* file.created
      ? Effect.logInfo(`Created an admin token in ${file.path} (mode 0600); it is printed this once.`).pipe(
        Effect.annotateLogs({ adminToken: Redacted.value(file.token) })
      )
      : Effect.logInfo(`Admin token: read it from ${file.path}.`)
    return [file.token]
  })

/** The key of the Studio's session cookies: `SESSION_SECRET`, else a key file in `DATA_DIR`. */
const sessionSecretOf = (settings: ServerSettings) =>
  Option.match(settings.sessionSecret, {
    onSome: (secret) => Effect.as(Effect.logInfo("Session secret: from SESSION_SECRET."), secret),
    onNone: () =>
      Effect.tap(SecretFile.ensure(settings.dataDir, "session-secret", ""), (file) =>
        // Another instance has another data directory, so another key: its sessions would not count here.
        Effect.logInfo(
          `Session secret: ${file.created ? "created in" : "read from"} ${file.path}` +
            (Option.isSome(settings.databaseUrl) ? "; with several instances, set SESSION_SECRET to one value on all of them." : ".")
        )).pipe(Effect.map((file) => file.secret))
  })

/**
 * Admin access: bearer tokens, and the Studio's sessions (signed cookies, kept in the
 * database `adminSessions` names). `publicUrl` is read on every use.
 */
const layerAdminAccess = (settings: ServerSettings, adminSessions: Layer.Layer<AdminSessionRepo, DefaultServices.StartError>, publicUrl: () => string) =>
  Layer.unwrap(Effect.gen(function*() {
    const tokens = yield* adminTokensOf(settings)
    const secret = yield* sessionSecretOf(settings)
    return AdminSessions.layer({ tokens, secret, publicUrl, originFromHost: !settings.publicUrlConfigured }).pipe(Layer.provide(adminSessions))
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

/**
 * The server's own base URL. With `PORT=0` and no `PUBLIC_URL` it is known only once the
 * server listens: {@link announce} sets it then, and URLs built later read it.
 */
interface Origin {
  url: string
}

const originOf = (settings: ServerSettings): Origin => ({ url: settings.publicUrl })

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
        `public URL ${publicUrl}, API docs ${publicUrl}/docs, OpenAPI ${publicUrl}/openapi.json` +
        (settings.studioEnabled ? `, Studio ${publicUrl}${StudioRoutes.studioPath}/` : "")
    )
    yield* Effect.logInfo(`Data directory: ${settings.dataDir}`)
    if (settings.demo) {
      // The API at the address it is bound to (the public URL may be a proxy's).
      const local = address._tag === "UnixPathAddress" ? publicUrl : `http://${host === "localhost" ? "127.0.0.1" : host}:${address.port}`
      const adminToken = settings.adminTokens[0] ?? (yield* AdminTokenFile.ensure(settings.dataDir)).token
      yield* DemoData.run({
        url: local,
        adminToken,
        jwtSecret: Option.getOrUndefined(settings.jwtSecret),
        issuer: Option.getOrUndefined(settings.jwtIssuer),
        audience: Option.getOrUndefined(settings.jwtAudience)
      })
    }
    // Provider and model only: never a key or a base URL (which may hold credentials).
    yield* Effect.logInfo(
      settings.aiModels.length === 0
        ? "AI content generation: no model configured (set AI_PRIMARY_*)."
        : `AI content generation: ${settings.aiModels.map((model) => `${model.provider}/${model.model}`).join(" → ")}`
    )
  }))

/** Why the service could not start. */
export type StartError =
  | DefaultServices.StartError
  | HttpServerError.ServeError
  | AdminTokenFile.AdminTokenFileInvalid
  | SessionSecretTooShort
  | JwtViewerResolver.JwtOptionsInvalid

/**
 * The whole service for `settings`: {@link DefaultServices.coreLayers} behind the admin
 * tokens, the viewer tokens and `node:http`. Build it to serve; release it to shut down
 * gracefully: the server stops accepting and finishes requests in flight before the
 * sweep, the store and the database are released. `HttpServer` is in the output, so
 * callers can read the bound address.
 */
export const layerFrom = (settings: ServerSettings): Layer.Layer<HttpServer.HttpServer | Courses | Uploads | UploadSweep, StartError> => {
  const origin = originOf(settings)
  const core = DefaultServices.coreLayers(settings, () => origin.url)
  const studio = settings.studioEnabled ? StudioRoutes.layer({ dir: settings.studioDir }) : Layer.empty
  const routes = Layer.mergeAll(CoursekitHttp.layerRoutes, core.storageRoutes, studio)
  return announce(settings, origin).pipe(
    Layer.provideMerge(CoursekitHttp.layerNodeServer({ port: settings.port, host: settings.host }, routes)),
    Layer.provide([
      CourseListCache.layer({ maxEntries: settings.listCacheEntries }),
      Layer.succeed(RequireIfMatch, settings.requireIfMatch),
      layerAdminAccess(settings, core.adminSessions, () => origin.url),
      layerViewers(settings),
      LogLevel.isGreaterThan(settings.logLevel, "Info") ? RequestLogger.layerSilent : RequestLogger.layerJsonLines()
    ]),
    Layer.provideMerge(core.services),
    // The admin token and session secret files.
    Layer.provide(NodeServices.layer)
  )
}

/** The service configured from the environment (see the README's configuration table). */
export const layer: Layer.Layer<HttpServer.HttpServer | Courses | Uploads | UploadSweep, StartError | Config.ConfigError> = Layer.unwrap(
  Effect.map(readSettings, layerFrom)
)
