/**
 * The server's port for viewer identity: turns a request into a `Viewer`. The standalone
 * server verifies JWTs (`JwtViewerResolver.ts`); an embedding app provides a layer of its
 * own that reads its session, so Coursekit trusts the host's authentication.
 *
 * @since 0.1.0
 */
import { anonymousViewer, type Viewer } from "@coursekit/core"
import { Context, Effect, Layer } from "effect"
import type { HttpServerRequest } from "effect/http"
import { type ServiceUnavailable, Unauthorized } from "../problems/Problems.ts"

/**
 * Resolves the viewer of a request.
 *
 * - No credentials: `anonymousViewer`.
 * - Credentials that verify: the signed-in viewer.
 * - Credentials that do not (forged, expired, malformed, an unknown scheme): `Unauthorized`.
 * - The identity provider cannot be asked (a key server down): `ServiceUnavailable`.
 *
 * `vary` names the request headers the answer depends on; responses that depend on the
 * viewer carry them in `Vary`, so shared caches never serve one viewer's page to another.
 * Coursekit asks `resolve` at most once per request and reuses its answer
 * (`RequestViewer.ts`).
 */
export class ViewerResolver extends Context.Service<ViewerResolver, {
  resolve(request: HttpServerRequest.HttpServerRequest): Effect.Effect<Viewer, Unauthorized | ServiceUnavailable>
  readonly vary: ReadonlyArray<string>
}>()("@coursekit/http/ViewerResolver") {
  /**
   * No viewer tokens are accepted: every request without credentials is anonymous, and
   * one with credentials is refused (401), so a misconfigured deployment is visible.
   */
  static readonly layerAnonymousOnly: Layer.Layer<ViewerResolver> = Layer.succeed(
    ViewerResolver,
    ViewerResolver.of({
      vary: ["authorization"],
      resolve: (request) =>
        request.headers.authorization === undefined || request.headers.authorization === ""
          ? Effect.succeed(anonymousViewer)
          : Effect.fail(
            new Unauthorized({ detail: "This server accepts no viewer tokens (set JWT_SECRET or JWKS_URL); send the request without Authorization." })
          )
    })
  )
}
