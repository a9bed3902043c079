/**
 * The host's own authentication, for embedding: the host tells Coursekit who is asking —
 * from its session, its cookies, its roles — and the viewer and admin checks follow it.
 * The handlers' `identify` option (`CoursekitHttp.webHandler`, `nodeHandler` and the
 * framework adapters) records the identity of each request; {@link layerHostAuth}
 * provides the `ViewerResolver` and `AdminAccess` that read it.
 *
 * @since 0.1.0
 */
import { anonymousViewer, type Viewer } from "@coursekit/core"
import { Effect, Layer } from "effect"
import type { HttpServerRequest } from "effect/http"
import { AdminAccess } from "./AdminAccess.ts"
import { ViewerResolver } from "./ViewerResolver.ts"

/** Who is asking, as the host sees it. */
export interface HostIdentity {
  /** The signed-in user (`signedInViewer(userId)`) or `anonymousViewer`. */
  readonly viewer: Viewer
  /** Whether this user may use the admin API. */
  readonly admin: boolean
}

/** Nobody signed in. */
export const anonymousIdentity: HostIdentity = { viewer: anonymousViewer, admin: false }

/** How a host identifies its requests (`Req`: a Node `IncomingMessage`, a Web `Request`, …). */
export type Identify<Req> = (request: Req) => HostIdentity | Promise<HostIdentity>

// Keyed by the request object the HTTP server wraps (`HttpServerRequest.source`), so an
// identity lives exactly as long as its request.
const identities = new WeakMap<object, HostIdentity>()

/** Records `identity` for the request object the server will see as `source`. */
export const attachHostIdentity = (source: object, identity: HostIdentity): void => {
  identities.set(source, identity)
}

/** The identity recorded for `request`; anonymous when the host recorded none. */
export const hostIdentityOf = (request: HttpServerRequest.HttpServerRequest): HostIdentity =>
  identities.get(request.source) ?? anonymousIdentity

/**
 * Viewer and admin checks that follow the identities the host records. Responses that
 * depend on the viewer vary on `Cookie` and `Authorization`, where hosts keep sessions.
 */
export const layerHostAuth: Layer.Layer<ViewerResolver | AdminAccess> = Layer.mergeAll(
  Layer.succeed(ViewerResolver, ViewerResolver.of({
    vary: ["authorization", "cookie"],
    resolve: (request) => Effect.succeed(hostIdentityOf(request).viewer)
  })),
  Layer.succeed(AdminAccess, AdminAccess.of({
    isAdmin: (request) => Effect.succeed(hostIdentityOf(request).admin)
  }))
)
