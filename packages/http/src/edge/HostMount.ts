/**
 * Serving inside a host app: the global middleware that applies the host's mount prefix
 * and its `identify` to every request before routing. A request outside the prefix is a
 * 404 problem; inside it, routes see the path without the prefix (links get it back from
 * `MountPrefix`). The host's `identify` of the request is provided, unrun and cached, as
 * `CurrentHostIdentity`; an `identify` that throws or rejects is a defect where a route
 * asks for it, answered as a 500 problem by the edge middleware without its message.
 *
 * It must run before the edge middleware, whose list cache and request log see the path
 * without the prefix: `CoursekitHttp` merges it first (the Mounting tests check it).
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import { HttpRouter, HttpServerRequest } from "effect/http"
import { problem } from "./EdgeMiddleware.ts"
import { CurrentHostIdentity, type Identify } from "../auth/HostIdentity.ts"
import { pathOf, stripPrefix } from "./RequestPath.ts"

/** Where the host mounted the API and how it identifies requests. */
export interface HostMountOptions {
  /** Normalized (`normalizePrefix`): `""` or `/a/b`. */
  readonly prefix: string
  /** Called with the request object the server wraps (a Node `IncomingMessage`, a Web `Request`). */
  readonly identify?: Identify<any> | undefined
}

/** The middleware for `options`. */
export const layer = ({ identify, prefix }: HostMountOptions) =>
  HttpRouter.middleware(
    // At the root with no identity to read there is nothing to do: no effect per request.
    Effect.succeed(prefix === "" && identify === undefined ? (app) => app : (app) =>
      Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        const inner = stripPrefix(request.url, prefix)
        if (inner === undefined) {
          return problem(404, `No route for ${request.method} ${pathOf(request.url)}: the API is mounted under ${prefix}.`)
        }
        const routed = prefix === "" ? app : Effect.provideService(app, HttpServerRequest.HttpServerRequest, request.modify({ url: inner }))
        if (identify === undefined) return yield* routed
        const identity = yield* Effect.cached(Effect.promise(async () => identify(request.source)))
        return yield* Effect.provideService(routed, CurrentHostIdentity, identity)
      })
    ),
    { global: true }
  )
