/**
 * Coursekit inside an Express (4 or 5) app: `app.use(coursekit(layers, { prefix }))`.
 * The host's own authentication reaches the viewer and admin checks through `identify`
 * (give it `req.user`, `req.session`, …). Mount it before body parsers: Coursekit reads
 * request bodies itself (and limits them).
 *
 * @since 0.1.0
 */
import type { NextFunction, Request, RequestHandler, Response } from "express"
import type { HostIdentity } from "../index.ts"
import type { IncomingMessage } from "node:http"
import type { StudioOptions } from "../studio/StudioRoutes.ts"
import { type HostServices, nodeHandler } from "../CoursekitHttp.ts"
import type { Identify } from "../auth/HostIdentity.ts"

/** Options of {@link coursekit}. */
export interface ExpressOptions {
  /** Where the API lives in the host app, e.g. `/api/coursekit`; default the root. */
  readonly prefix?: string | undefined
  /** Who is asking, from the host's session; with `layerHostAuth` in the layers. */
  readonly identify?: ((request: Request) => HostIdentity | Promise<HostIdentity>) | undefined
  /** Serves Coursekit Studio at `<prefix>/studio/` from its build, behind the host's login (see `HandlerOptions.studio`). */
  readonly studio?: StudioOptions | undefined
}

/** An Express middleware serving Coursekit, with its lifecycle. */
export interface CoursekitMiddleware extends RequestHandler {
  /** Settles when the layers are built; rejects with what stopped them. */
  readonly ready: Promise<void>
  /** Releases the layers; call it when the host's server closes (`server.on("close", kit.dispose)`). */
  readonly dispose: () => Promise<void>
}

/**
 * Coursekit as Express middleware. Requests under `prefix` are served; any other goes to
 * the next middleware. Use it with `app.use(kit)` (or `app.use(prefix, kit)`: the prefix
 * is read from `originalUrl` either way).
 */
export const coursekit = <E>(services: HostServices<E>, options: ExpressOptions = {}): CoursekitMiddleware => {
  const node = nodeHandler(services, {
    prefix: options.prefix,
    identify: options.identify as Identify<IncomingMessage> | undefined,
    studio: options.studio
  })
  const middleware = (request: Request, response: Response, next: NextFunction) => {
    // A body parser before us has read the stream (body-parser 1 marks `_body`; 2 leaves
    // the stream ended): the body is gone for Coursekit.
    const hasBody = request.headers["transfer-encoding"] !== undefined || Number(request.headers["content-length"] ?? 0) > 0
    if (hasBody && ((request as Request & { _body?: boolean })._body === true || request.readableEnded)) {
      return next(new Error("Coursekit must be mounted before body parsers such as express.json(): it reads request bodies itself."))
    }
    node.handler(request, response, next)
  }
  return Object.assign(middleware, { ready: node.ready, dispose: node.dispose })
}
