/**
 * The standalone Coursekit service, wired from {@link ServerConfig}: PostgreSQL when
 * `DATABASE_URL` is set, else the embedded PGlite in `DATA_DIR`; admin tokens from
 * `ADMIN_TOKENS`, else the token file in `DATA_DIR`; the HTTP server on `HOST:PORT`.
 *
 * @since 0.1.0
 */
import { Catalogue, FileUrl } from "@coursekit/core"
import { AdminTokens, CoursekitHttp, Readiness, RequestLogger } from "@coursekit/http"
import { PgCourseRepo, PgDatabase, PgliteDatabase } from "@coursekit/postgres"
import { NodeServices } from "@effect/platform-node"
import { Effect, Layer, Option, Redacted } from "effect"
import { HttpServer } from "effect/http"
import { SqlClient } from "effect/sql"
import { join } from "node:path"
import * as AdminTokenFile from "./AdminTokenFile.ts"
import { ServerConfig } from "./ServerConfig.ts"

const layerDatabase = Layer.unwrap(Effect.gen(function*() {
  const config = yield* ServerConfig
  return Option.match(config.databaseUrl, {
    onNone: () => PgliteDatabase.layer({ dataDir: join(config.dataDir, "pglite") }),
    onSome: (url) => PgDatabase.layer({ url, maxConnections: config.databasePoolSize })
  })
}))

const layerAdminTokens = Layer.unwrap(Effect.gen(function*() {
  const config = yield* ServerConfig
  if (config.adminTokens.length > 0) {
    yield* Effect.logInfo(`Admin tokens: ${config.adminTokens.length} from ADMIN_TOKENS.`)
    return AdminTokens.layer(config.adminTokens)
  }
  const file = yield* AdminTokenFile.ensure(config.dataDir)
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

const layerCatalogue = Layer.unwrap(Effect.gen(function*() {
  const config = yield* ServerConfig
  return Catalogue.layerNoDeps.pipe(Layer.provide([PgCourseRepo.layer, FileUrl.layer(config.cdnUrl)]))
}))

const layerHttp = Layer.unwrap(Effect.gen(function*() {
  const config = yield* ServerConfig
  return CoursekitHttp.layerNodeServer({ port: config.port, host: config.host })
}))

const announce = Layer.effectDiscard(Effect.gen(function*() {
  const config = yield* ServerConfig
  const server = yield* HttpServer.HttpServer
  yield* Effect.logInfo(
    `Coursekit is listening on ${HttpServer.formatAddress(server.address)}; ` +
      `public URL ${config.publicUrl}, API docs ${config.publicUrl}/docs, OpenAPI ${config.publicUrl}/openapi.json`
  )
}))

/** The whole standalone service. Build it to serve; release it to shut down gracefully. */
export const layer = announce.pipe(
  Layer.provideMerge(layerHttp),
  Layer.provide([layerCatalogue, layerReadiness, layerAdminTokens, RequestLogger.layerJsonLines()]),
  Layer.provide(layerDatabase),
  Layer.provide(NodeServices.layer),
  Layer.provideMerge(ServerConfig.layer)
)
