/**
 * The host's own authentication, for embedding: the host tells Coursekit who is asking —
 * from its session, its cookies, its roles — and the viewer and admin checks follow it.
 * The handlers' `identify` option (`CoursekitHttp.webHandler`, `nodeHandler` and the
 * framework adapters) resolves the identity of each request before routing and provides
 * it as {@link CurrentHostIdentity}; {@link layerHostAuth} provides the `ViewerResolver`
 * and `AdminAccess` that read it.
 *
 * @since 0.1.0
 */
import { anonymousViewer, type Viewer } from "@coursekit/core"
import { Context, Effect, Layer } from "effect"
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

/** The identity of the request being served; anonymous unless the host's `identify` said otherwise. */
export const CurrentHostIdentity = Context.Reference<HostIdentity>("@coursekit/http/CurrentHostIdentity", {
  defaultValue: () => anonymousIdentity
})

/**
 * Viewer and admin checks that follow the host's identity of each request. Responses
 * that depend on the viewer vary on `Cookie` and `Authorization`, where hosts keep
 * sessions.
 */
export const layerHostAuth: Layer.Layer<ViewerResolver | AdminAccess> = Layer.mergeAll(
  Layer.succeed(ViewerResolver, ViewerResolver.of({
    vary: ["authorization", "cookie"],
    resolve: () =>
      Effect.gen(function*() {
        return (yield* CurrentHostIdentity).viewer
      })
  })),
  Layer.succeed(AdminAccess, AdminAccess.of({
    isAdmin: () =>
      Effect.gen(function*() {
        return (yield* CurrentHostIdentity).admin
      })
  }))
)
