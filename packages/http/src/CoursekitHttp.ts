/**
 * Coursekit as HTTP: the routes of {@link CoursekitApi} with their handlers, the OpenAPI
 * document (`/openapi.json`), the interactive explorer (`/docs`) and the edge middleware,
 * served by Node or turned into a Web `Request → Response` handler.
 *
 * @since 0.1.0
 */
import { NodeHttpServer } from "@effect/platform-node"
import { ByteSize, Duration, Layer } from "effect"
import { HttpRouter, HttpServerRequest } from "effect/http"
import { HttpApiBuilder, HttpApiScalar } from "effect/http-api"
import { createServer } from "node:http"
import * as AdminAuthLive from "./AdminAuthLive.ts"
import * as ApiProblemsLive from "./ApiProblemsLive.ts"
import { CoursekitApi } from "./CoursekitApi.ts"
import * as CoursesHandlers from "./CoursesHandlers.ts"
import * as EdgeMiddleware from "./EdgeMiddleware.ts"
import * as SystemHandlers from "./SystemHandlers.ts"

/** The API routes and `/openapi.json`. Needs `Catalogue`, `Readiness`, `AdminTokens`. */
export const layerApi = HttpApiBuilder.layer(CoursekitApi, { openapiPath: "/openapi.json" }).pipe(
  Layer.provide([SystemHandlers.layer, CoursesHandlers.layer]),
  Layer.provide([ApiProblemsLive.layer, AdminAuthLive.layer])
)

/** Everything Coursekit serves: the API, `/docs` and the edge middleware. */
export const layerRoutes = Layer.mergeAll(
  layerApi,
  HttpApiScalar.layer(CoursekitApi, { path: "/docs" }),
  EdgeMiddleware.layer
)

/** Largest request body read: above the 1 MB HTML limit plus JSON overhead; larger is a 413. */
export const maxBodySize = ByteSize.mebibytes(2)

/** Options of {@link layerNodeServer}. */
export interface NodeServerOptions {
  readonly port: number
  readonly host?: string
  /** How long shutdown waits for requests in flight. Default 10 s. */
  readonly gracefulShutdownTimeout?: Duration.Input
}

/**
 * Serves {@link layerRoutes} with `node:http`. Closing the layer stops accepting
 * connections, lets requests in flight finish (up to the grace period), then releases
 * everything the routes hold. `HttpServer` stays in the output so callers can read
 * the bound address (useful with port 0).
 */
export const layerNodeServer = (options: NodeServerOptions) =>
  HttpRouter.serve(layerRoutes, { disableLogger: true, disableListenLog: true }).pipe(
    Layer.provide(Layer.succeed(HttpServerRequest.MaxBodySize, maxBodySize)),
    Layer.provideMerge(NodeHttpServer.layer(
      // A short keep-alive lets shutdown finish soon after the last response.
      () => createServer({ keepAliveTimeout: 5_000 }),
      {
        port: options.port,
        ...(options.host === undefined ? {} : { host: options.host }),
        gracefulShutdownTimeout: options.gracefulShutdownTimeout ?? Duration.seconds(10)
      }
    ))
  )

