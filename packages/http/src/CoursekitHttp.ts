/**
 * Coursekit as HTTP: the routes of {@link CoursekitApi} with their handlers, the OpenAPI
 * document (`/openapi.json`), the interactive explorer (`/docs`) and the edge middleware,
 * served by Node ({@link layerNodeServer}) or as a Web `Request → Response` handler
 * ({@link webHandler}).
 *
 * @since 0.1.0
 */
import { NodeHttpServer } from "@effect/platform-node"
import { Duration, Layer } from "effect"
import { HttpRouter, HttpServer, HttpServerRequest } from "effect/http"
import { HttpApiBuilder, HttpApiScalar } from "effect/http-api"
import { createServer } from "node:http"
import type { Catalogue, ContentGenerator, Lessons, PublicCourses, Purchases, Uploads } from "@coursekit/core"
import * as AdminAuthLive from "./AdminAuthLive.ts"
import type { AdminTokens } from "./AdminTokens.ts"
import * as ApiProblemsLive from "./ApiProblemsLive.ts"
import { CoursekitApi } from "./CoursekitApi.ts"
import type { CourseListCache } from "./CourseListCache.ts"
import * as AiHandlers from "./AiHandlers.ts"
import * as CoursesHandlers from "./CoursesHandlers.ts"
import * as EdgeMiddleware from "./EdgeMiddleware.ts"
import * as LessonsHandlers from "./LessonsHandlers.ts"
import * as PublicCourseHandlers from "./PublicCourseHandlers.ts"
import * as PurchasesHandlers from "./PurchasesHandlers.ts"
import type { Readiness } from "./Readiness.ts"
import { maxBodySize } from "./RequestLimits.ts"
import type { RequestLogger } from "./RequestLogger.ts"
import * as SystemHandlers from "./SystemHandlers.ts"
import * as UploadsHandlers from "./UploadsHandlers.ts"
import * as ViewerAuthLive from "./ViewerAuthLive.ts"
import type { ViewerResolver } from "./ViewerResolver.ts"

/** The API routes and `/openapi.json`. Needs the use cases, `Readiness`, `AdminTokens` and a `ViewerResolver`. */
export const layerApi = HttpApiBuilder.layer(CoursekitApi, { openapiPath: "/openapi.json" }).pipe(
  Layer.provide([
    SystemHandlers.layer,
    CoursesHandlers.layer,
    UploadsHandlers.layer,
    LessonsHandlers.layer,
    PublicCourseHandlers.layer,
    PurchasesHandlers.layer,
    AiHandlers.layer
  ]),
  Layer.provide([ApiProblemsLive.layer, AdminAuthLive.layer, ViewerAuthLive.layer])
)

/** Everything Coursekit serves: the API, `/docs` and the edge middleware. */
export const layerRoutes = Layer.mergeAll(
  layerApi,
  HttpApiScalar.layer(CoursekitApi, { path: "/docs" }),
  EdgeMiddleware.layer
)

/** What the routes need: the use cases and the HTTP-side services. */
export type RouteServices =
  | Catalogue
  | Uploads
  | Lessons
  | PublicCourses
  | Purchases
  | ContentGenerator
  | Readiness
  | AdminTokens
  | ViewerResolver
  | CourseListCache
  | RequestLogger

/**
 * The routes as a Web `Request → Response` handler, for hosts that speak Fetch (Next.js
 * route handlers, Hono, Bun, Deno, workers). Call `dispose` when the host shuts down.
 */
export const webHandler = <E>(services: Layer.Layer<RouteServices, E>) =>
  HttpRouter.toWebHandler(
    layerRoutes.pipe(
      Layer.provide(services),
      Layer.provide(Layer.succeed(HttpServerRequest.MaxBodySize, maxBodySize)),
      Layer.provide(HttpServer.layerServices)
    ),
    { disableLogger: true }
  )

/** Options of {@link layerNodeServer}. */
export interface NodeServerOptions {
  readonly port: number
  readonly host?: string
  /** How long shutdown waits for requests in flight. Default 10 s. */
  readonly gracefulShutdownTimeout?: Duration.Input
}

/**
 * Serves {@link layerRoutes} (or `routes`: them and more, such as a store's file routes)
 * with `node:http`. Closing the layer stops accepting
 * connections, lets requests in flight finish (up to the grace period), then releases
 * everything the routes hold. `HttpServer` stays in the output so callers can read
 * the bound address (useful with port 0).
 */
export const layerNodeServer = <E, R>(
  options: NodeServerOptions,
  routes: Layer.Layer<never, E, R> = layerRoutes as unknown as Layer.Layer<never, E, R>
) =>
  HttpRouter.serve(routes, { disableLogger: true, disableListenLog: true }).pipe(
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

