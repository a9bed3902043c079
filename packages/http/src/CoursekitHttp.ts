/**
 * Coursekit as HTTP: the routes of {@link CoursekitApi} with their handlers, the OpenAPI
 * document (`/openapi.json`), the interactive explorer (`/docs`) and the edge middleware,
 * served by Node ({@link layerNodeServer}), as a Web `Request → Response` handler
 * ({@link webHandler}) or as a Node request listener ({@link nodeHandler}), the last two
 * mountable under a prefix of the host's choosing and able to serve Coursekit Studio
 * (`studio`, `StudioRoutes`) beside the API.
 *
 * @since 0.1.0
 */
// Its own module, not the package index: the index loads every Node module (HTTP client, sockets, workers…).
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { Duration, Effect, Exit, Layer, Scope } from "effect"
import { HttpRouter, HttpServer, HttpServerRequest, ProblemDetails } from "effect/http"
import { HttpApiBuilder, OpenApi } from "effect/http-api"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { UseCases } from "@coursekit/core"
import * as AdminAuthLive from "./auth/AdminAuthLive.ts"
import * as ApiDocsRoute from "./handlers/ApiDocsRoute.ts"
import type { AdminAccess } from "./auth/AdminAccess.ts"
import * as ApiProblemsLive from "./problems/ApiProblemsLive.ts"
import { CoursekitApi } from "./CoursekitApi.ts"
import { CourseListCache } from "./edge/CourseListCache.ts"
import * as AiHandlers from "./handlers/AiHandlers.ts"
import * as CoursesHandlers from "./handlers/CoursesHandlers.ts"
import * as EdgeMiddleware from "./edge/EdgeMiddleware.ts"
import { ProgressWrites } from "./edge/ProgressWrites.ts"
import { PublicCoursePages } from "./edge/PublicCoursePages.ts"
import * as LessonsHandlers from "./handlers/LessonsHandlers.ts"
import * as PublicCourseHandlers from "./handlers/PublicCourseHandlers.ts"
import * as PurchasesHandlers from "./handlers/PurchasesHandlers.ts"
import * as LearningHandlers from "./handlers/LearningHandlers.ts"
import * as SessionHandlers from "./handlers/SessionHandlers.ts"
import { problemBody } from "./problems/Problems.ts"
import { Readiness, type ReadinessCheck } from "./handlers/Readiness.ts"
import { maxBodySize } from "./edge/RequestLimits.ts"
import { RequestLogger } from "./edge/RequestLogger.ts"
import { RequireIfMatch } from "./handlers/EditHeaders.ts"
import { type Identify, layerHostAuth } from "./auth/HostIdentity.ts"
import * as HostMount from "./edge/HostMount.ts"
import { MountPrefix, normalizePrefix, stripPrefix } from "./edge/RequestPath.ts"
import { RouteTable } from "./edge/RouteTable.ts"
import * as StudioRoutes from "./studio/StudioRoutes.ts"
import * as SystemHandlers from "./handlers/SystemHandlers.ts"
import * as UploadsHandlers from "./handlers/UploadsHandlers.ts"
import * as ViewerAuthLive from "./auth/ViewerAuthLive.ts"
import * as CatalogueAuthLive from "./auth/CatalogueAuthLive.ts"
import { CatalogueReaders } from "./auth/CatalogueReaders.ts"
import type { ViewerResolver } from "./auth/ViewerResolver.ts"

const layerApiOf = (api: typeof CoursekitApi) =>
  HttpApiBuilder.layer(api, { openapiPath: "/openapi.json" }).pipe(
    Layer.provide([
      SystemHandlers.layer,
      CoursesHandlers.layer,
      UploadsHandlers.layer,
      LessonsHandlers.layer,
      LessonsHandlers.layerSections,
      PublicCourseHandlers.layer,
      PurchasesHandlers.layer,
      LearningHandlers.layer,
      AiHandlers.layer,
      SessionHandlers.layer
    ]),
    Layer.provide([ApiProblemsLive.layer, AdminAuthLive.layer, ViewerAuthLive.layer, CatalogueAuthLive.layer]),
    Layer.provide(CatalogueReaders.layer)
  )

const layerRoutesOf = (api: typeof CoursekitApi) =>
  Layer.mergeAll(
    layerApiOf(api),
    ApiDocsRoute.layer(api, "/docs"),
    EdgeMiddleware.layer.pipe(Layer.provide([CatalogueReaders.layer, PublicCoursePages.layer, ProgressWrites.layer]))
  )

/** The API routes and `/openapi.json`. Needs the use cases, `Readiness`, `AdminAccess` and a `ViewerResolver`. */
export const layerApi = layerApiOf(CoursekitApi)

/**
 * Everything Coursekit serves: the API, `/docs` and the edge middleware. The middleware
 * needs the `RouteTable` of everything served (for 405s): {@link layerNodeServer}
 * provides it; to serve the routes otherwise, provide `RouteTable.layer` to them and
 * any routes beside them.
 */
export const layerRoutes = layerRoutesOf(CoursekitApi)

/**
 * {@link layerRoutes} for an API mounted under `prefix`: its OpenAPI document names the
 * prefix as its server, so `/docs`' "try it" and generated clients call the mounted paths.
 */
const layerRoutesUnder = (prefix: string) =>
  prefix === "" ? layerRoutes : layerRoutesOf(CoursekitApi.annotate(OpenApi.Servers, [{ url: prefix }]))

/** What the routes need: the use cases and the HTTP-side services. */
export type RouteServices =
  | UseCases
  | Readiness
  | AdminAccess
  | ViewerResolver
  | CourseListCache
  | RequestLogger

/** The core's use cases the routes serve. */
export type { UseCases }

/**
 * What a host hands {@link webHandler} and {@link nodeHandler}: the {@link RouteServices}.
 * It may add routes of its own to the `HttpRouter` (a local store's upload and file
 * routes, as `DefaultServices` in `@coursekit/server` does); they are served under the
 * same prefix, behind the same middleware.
 */
export type HostServices<E> = Layer.Layer<RouteServices, E, HttpRouter.HttpRouter>

/** Options of {@link layerHostServices}. */
export interface HostServicesOptions {
  /** Most cached `GET /courses` responses; default 10,000; 0 keeps none (ETags still answer 304), as `LIST_CACHE_ENTRIES`. */
  readonly listCacheEntries?: number | undefined
  /** Readiness checks of `GET /health/ready` (the host's database, its storage); default none. */
  readonly readiness?: ReadonlyArray<ReadinessCheck> | undefined
  /** Whether writes of courses, lessons and sections must carry `If-Match` (else 428), as `REQUIRE_IF_MATCH`; default false. */
  readonly requireIfMatch?: boolean | undefined
}

/**
 * Everything the routes need besides the use cases, for an embedding host: the host's
 * identity decides viewer and admin access (`layerHostAuth`, fed by the handlers'
 * `identify`), the course list cache, and no request log lines of Coursekit's own (the
 * host logs its requests).
 */
export const layerHostServices = <E, R>(
  useCases: Layer.Layer<UseCases, E, R>,
  options: HostServicesOptions = {}
): Layer.Layer<RouteServices, E, R> =>
  Layer.mergeAll(
    layerHostAuth,
    Readiness.layer(options.readiness ?? []),
    CourseListCache.layer(options.listCacheEntries === undefined ? {} : { maxEntries: options.listCacheEntries }),
    Layer.succeed(RequireIfMatch, options.requireIfMatch === true),
    RequestLogger.layerSilent
  ).pipe(Layer.provideMerge(useCases))

/** Where and how an embedding host mounts the API. */
export interface MountOptions {
  /**
   * The path the API lives under in the host (`/api/coursekit`); default the root.
   * Requests are routed without it, and the links the API writes (`Location`, `Link`)
   * start with it. Requests outside it are answered 404 (or passed to `next` by the
   * Node handler).
   */
  readonly prefix?: string | undefined
}

/** Options of {@link webHandler} and {@link nodeHandler}. */
export interface HandlerOptions<Req> extends MountOptions {
  /**
   * The host's own authentication: who is asking, from the host's session. Called once
   * per request with the host's own request object, before routing; provide
   * `layerHostAuth` among the services so that the viewer and admin checks follow it. A
   * throw or rejection is a 500 problem that does not repeat its error (it is logged).
   */
  readonly identify?: Identify<Req> | undefined
  /**
   * Serves Coursekit Studio, the authoring app, at `<prefix>/studio/` from its build
   * (`{ dir: "…/packages/studio/dist" }`), with its Content-Security-Policy. Its files
   * are public; everything it shows comes from the admin API, so the host's login
   * (`identify`) decides who can use it. The policy lets the page reach the store at the
   * `StoreOrigins` the services provide (`DefaultServices` does). Default: not served.
   */
  readonly studio?: StudioRoutes.StudioOptions | undefined
}

const routesFor = <E>(services: HostServices<E>, prefix: string, options: HandlerOptions<any>) =>
  // First: it runs outside the edge middleware (see HostMount.ts).
  Layer.mergeAll(
    HostMount.layer({ prefix, identify: options.identify }),
    layerRoutesUnder(prefix),
    options.studio === undefined ? Layer.empty : StudioRoutes.layer(options.studio)
  ).pipe(
    Layer.provide(services),
    Layer.provide(Layer.succeed(MountPrefix, prefix)),
    Layer.provide(Layer.succeed(HttpServerRequest.MaxBodySize, maxBodySize)),
    Layer.provide(HttpServer.layerServices),
    // Last: between the router and everything that adds routes, the host's too.
    Layer.provide(RouteTable.layer)
  )

/**
 * The routes as a Web `Request → Response` handler, for hosts that speak Fetch (Next.js
 * route handlers, Hono, Bun, Deno, workers). The services are built on the first
 * request; call `dispose` when the host shuts down.
 */
export const webHandler = <E>(
  services: HostServices<E>,
  options: HandlerOptions<Request> = {}
): { readonly handler: (request: Request) => Promise<Response>; readonly dispose: () => Promise<void> } => {
  const web = HttpRouter.toWebHandler(routesFor(services, normalizePrefix(options.prefix), options), { disableLogger: true })
  return { handler: (request) => web.handler(request), dispose: web.dispose }
}

/** A Node `request` listener, as Express, Connect and `node:http` take it. */
export type NodeRequestListener = (request: IncomingMessage, response: ServerResponse, next?: (error?: unknown) => void) => void

/** What {@link nodeHandler} answers. */
export interface NodeHandler {
  /** Serves a request: `http.createServer(handler)`, `app.use(prefix, handler)`. */
  readonly handler: NodeRequestListener
  /** Settles when the services are built: rejects with what stopped them (a bad configuration, a database that is down). */
  readonly ready: Promise<void>
  /** Releases the services (database pools, fibers); call it when the host shuts down. */
  readonly dispose: () => Promise<void>
}

/**
 * The routes as a Node `(request, response)` listener for `node:http` and frameworks built
 * on it (Express, Connect, Fastify's raw request). The services are built at once;
 * `ready` tells when. Under a `prefix`, a request outside it goes to `next` when there
 * is one (Express, Connect), else it is a 404; a request whose `originalUrl` is set (by
 * Express' `app.use(prefix, …)`) is routed by it.
 */
export const nodeHandler = <E>(services: HostServices<E>, options: HandlerOptions<IncomingMessage> = {}): NodeHandler => {
  const prefix = normalizePrefix(options.prefix)
  const scope = Scope.makeUnsafe()
  const listener = Effect.runPromise(
    Effect.gen(function*() {
      const httpEffect = yield* HttpRouter.toHttpEffect(routesFor(services, prefix, options))
      return yield* NodeHttpServer.makeHandler(httpEffect, { scope })
    }).pipe(Effect.provideService(Scope.Scope, scope))
  )
  const ready = listener.then(() => undefined)
  // Failures are reported through `ready` and per request, never as an unhandled rejection.
  ready.catch(() => undefined)
  const handler: NodeRequestListener = (request, response, next) => {
    const url = (request as IncomingMessage & { originalUrl?: string }).originalUrl ?? request.url ?? "/"
    // Only the host's framework knows `next`; everything else is decided by the routes.
    if (next !== undefined && stripPrefix(url, prefix) === undefined) return next()
    request.url = url
    listener.then(
      (listen) => listen(request, response),
      (error: unknown) => {
        if (next !== undefined) return next(error)
        // No Effect runtime to answer with: the services did not start.
        response.writeHead(503, { "content-type": ProblemDetails.contentType })
          .end(JSON.stringify(problemBody(503, "Coursekit could not start; the host's logs say why.")))
      }
    )
  }
  return { handler, ready, dispose: () => Effect.runPromise(Scope.close(scope, Exit.void)) }
}

/** Options of {@link layerNodeServer}. */
export interface NodeServerOptions {
  readonly port: number
  readonly host?: string
  /** How long shutdown waits for requests in flight. Default 10 s. */
  readonly gracefulShutdownTimeout?: Duration.Input
}

// The one body of both forms of layerNodeServer, generic in its routes.
const serveOnNode = <E, R>(options: NodeServerOptions, routes: Layer.Layer<never, E, R>) =>
  HttpRouter.serve(Layer.provide(routes, RouteTable.layer), { disableLogger: true, disableListenLog: true }).pipe(
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

/**
 * What {@link layerNodeServer} builds over routes that fail with `E` and need `R`: the
 * server, failing with `E` or a `ServeError`, needing what `R` names but the `RouteTable`.
 */
export type NodeServer<E, R> = ReturnType<typeof serveOnNode<E, R>>

/**
 * Serves {@link layerRoutes} (or `routes`: them and more, such as a store's file routes
 * or `StudioRoutes.layer({ dir })`)
 * with `node:http`, with the `RouteTable` of them all. Closing the layer stops accepting
 * connections, lets requests in flight finish (up to the grace period), then releases
 * everything the routes hold. `HttpServer` stays in the output so callers can read
 * the bound address (useful with port 0).
 */
export function layerNodeServer(options: NodeServerOptions): NodeServer<never, RouteServices>
export function layerNodeServer<E, R>(options: NodeServerOptions, routes: Layer.Layer<never, E, R>): NodeServer<E, R>
export function layerNodeServer<E, R>(options: NodeServerOptions, routes?: Layer.Layer<never, E, R>) {
  if (routes !== undefined) return serveOnNode(options, routes)
  // Annotated: the compiler checks that the first signature is true of `layerRoutes`.
  const served: NodeServer<never, RouteServices> = serveOnNode(options, layerRoutes)
  return served
}
