/**
 * The host's own authentication, for embedding: the host tells Coursekit who is asking —
 * from its session, its cookies, its roles — and the viewer and admin checks follow it.
 * The handlers' `identify` option (`CoursekitHttp.webHandler`, `nodeHandler` and the
 * framework adapters) becomes {@link CurrentHostIdentity} for each request;
 * {@link layerHostAuth} provides the `ViewerResolver` and `AdminAccess` that ask it, so
 * requests that need no identity (health checks, the API docs) never call `identify`.
 * The catalogue reads ask it: admins see drafts there.
 *
 * @since 0.1.0
 */
import { anonymousViewer, type Viewer } from "@coursekit/core"
import { Context, Effect, Layer } from "effect"
import { AdminAccess, type AdminRefusals } from "./AdminAccess.ts"
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

/**
 * The identity of the request being served, asked for only when a route needs it (the
 * viewer and admin checks): the host's `identify`, run at most once per request, or
 * anonymous when the host gave none.
 */
export const CurrentHostIdentity = Context.Reference<Effect.Effect<HostIdentity>>("@coursekit/http/CurrentHostIdentity", {
  defaultValue: () => Effect.succeed(anonymousIdentity)
})

/**
 * How refusals read when the host's `identify` decides: in terms of the host's own login
 * and roles, never of Coursekit's bearer tokens, which the host's users do not have.
 */
export const hostLoginRefusals: AdminRefusals = {
  unauthorized: () => "Sign in to use this endpoint: the app's own login decides admin access to Coursekit.",
  forbidden: "The signed-in user has no admin rights in this app; the app's own login decides admin access to Coursekit."
}

/**
 * Viewer and admin checks that follow the host's identity of each request; a refused
 * admin request is told about the host's login ({@link hostLoginRefusals}). Responses
 * that depend on the viewer vary on `Cookie` and `Authorization`, where hosts keep
 * sessions.
 */
export const layerHostAuth: Layer.Layer<ViewerResolver | AdminAccess> = Layer.mergeAll(
  Layer.succeed(ViewerResolver, ViewerResolver.of({
    vary: ["authorization", "cookie"],
    resolve: () =>
      Effect.gen(function*() {
        return (yield* yield* CurrentHostIdentity).viewer
      })
  })),
  Layer.succeed(AdminAccess, AdminAccess.of({
    isAdmin: () =>
      Effect.gen(function*() {
        return (yield* yield* CurrentHostIdentity).admin
      }),
    // The host's user writes: revisions name their id.
    authorOf: () =>
      Effect.gen(function*() {
        const { viewer } = yield* yield* CurrentHostIdentity
        return viewer._tag === "User" ? viewer.id : undefined
      }),
    refusals: hostLoginRefusals
  }))
)
