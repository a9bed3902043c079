/**
 * Coursekit inside a Hono app (Node, Bun, Deno, workers): `app.route("/", coursekitHono(layers, { prefix }).app)`.
 * The host's own authentication reaches the viewer and admin checks through `identify`
 * (give it what your auth middleware put in the context).
 *
 * @since 0.1.0
 */
import type { Context as HonoContext } from "hono"
import { Hono } from "hono"
import type { HostIdentity } from "../index.ts"
import { normalizePrefix } from "../edge/RequestPath.ts"
import type { StudioOptions } from "../studio/StudioRoutes.ts"
import { type HostServices, webHandler } from "../CoursekitHttp.ts"

/** Options of {@link coursekitHono}. */
export interface HonoOptions {
  /** Where the API lives, e.g. `/api/coursekit`; default the root. */
  readonly prefix?: string | undefined
  /** Who is asking, from the host's context; with `layerHostAuth` in the layers. */
  readonly identify?: ((context: HonoContext) => HostIdentity | Promise<HostIdentity>) | undefined
  /** Serves Coursekit Studio at `<prefix>/studio/` from its build, behind the host's login (see `HandlerOptions.studio`). */
  readonly studio?: StudioOptions | undefined
}

/** Coursekit's routes as a Hono app, and their lifecycle. */
export interface CoursekitHono {
  /** Routes `prefix` and below; mount with `app.route("/", kit.app)`. */
  readonly app: Hono
  /** Releases the layers; call it when the host shuts down. */
  readonly dispose: () => Promise<void>
}

/** Coursekit as Hono routes under `prefix`. */
export const coursekitHono = <E>(services: HostServices<E>, options: HonoOptions = {}): CoursekitHono => {
  const prefix = normalizePrefix(options.prefix)
  // The host identifies Hono's context; Coursekit serves its raw request.
  const contexts = new WeakMap<Request, HonoContext>()
  const identify = options.identify
  const web = webHandler(services, {
    prefix,
    studio: options.studio,
    ...(identify === undefined ? {} : { identify: (request: Request) => identify(contexts.get(request)!) })
  })
  const app = new Hono()
  const serve = (context: HonoContext) => {
    contexts.set(context.req.raw, context)
    return web.handler(context.req.raw)
  }
  app.all(prefix === "" ? "/" : prefix, serve)
  app.all(`${prefix}/*`, serve)
  return { app, dispose: web.dispose }
}
