/**
 * Coursekit inside a Fastify (5) app: `await app.register(coursekitPlugin(layers), { prefix })`.
 * Fastify hands the raw request to Coursekit, which reads the body itself; the layers are
 * released by Fastify's `onClose`. The host's own authentication reaches the viewer and
 * admin checks through `identify` (give it what your auth plugin decorated the request with).
 *
 * @since 0.1.0
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify"
import type { HostIdentity } from "../index.ts"
import type { IncomingMessage } from "node:http"
import type { StudioOptions } from "../studio/StudioRoutes.ts"
import { type HostServices, nodeHandler } from "../CoursekitHttp.ts"

/** Options of {@link coursekitPlugin}. */
export interface FastifyOptions {
  /** Who is asking, from the host's session; with `layerHostAuth` in the layers. */
  readonly identify?: ((request: FastifyRequest) => HostIdentity | Promise<HostIdentity>) | undefined
  /** Serves Coursekit Studio at `<prefix>/studio/` from its build, behind the host's login (see `HandlerOptions.studio`). */
  readonly studio?: StudioOptions | undefined
}

/**
 * Coursekit as a Fastify plugin. Register it with the `prefix` it should live under; it
 * answers every method on `prefix` and below, and nothing else.
 */
export const coursekitPlugin = <E>(services: HostServices<E>, options: FastifyOptions = {}): FastifyPluginAsync =>
  async (fastify) => {
    // The host identifies the Fastify request; Coursekit serves its raw request.
    const fastifyRequests = new WeakMap<IncomingMessage, FastifyRequest>()
    const identify = options.identify
    const node = nodeHandler(services, {
      prefix: fastify.prefix,
      studio: options.studio,
      ...(identify === undefined ? {} : { identify: (raw: IncomingMessage) => identify(fastifyRequests.get(raw)!) })
    })
    fastify.addHook("onClose", () => node.dispose())
    // Leave bodies unread in this plugin's scope: Coursekit reads and limits them.
    fastify.removeAllContentTypeParsers()
    fastify.addContentTypeParser("*", (_request: FastifyRequest, _payload: IncomingMessage, done: (error: null, body?: unknown) => void) => done(null))
    const serve = (request: FastifyRequest, reply: FastifyReply) => {
      fastifyRequests.set(request.raw, request)
      reply.hijack()
      node.handler(request.raw, reply.raw)
    }
    fastify.all("/", serve)
    fastify.all("/*", serve)
    await node.ready
  }
