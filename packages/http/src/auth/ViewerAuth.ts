/**
 * The viewer of the public endpoints: who is asking, if anyone. This file holds only the
 * contract's side, so a client can import it; the server resolves viewers with
 * `ViewerAuthLive.ts` over a `ViewerResolver`.
 *
 * @since 0.1.0
 */
import type { Viewer } from "@coursekit/core"
import { Context } from "effect"
import { HttpApiMiddleware } from "effect/http-api"
import { ServiceUnavailable, UnauthorizedResponse } from "../problems/Problems.ts"

/** The viewer of the request being handled. */
export class CurrentViewer extends Context.Service<CurrentViewer, Viewer>()("@coursekit/http/CurrentViewer") {}

/**
 * Resolves the optional viewer credentials (standalone: `Authorization: Bearer <JWT>`).
 * No credentials: an anonymous viewer. Credentials that do not verify (forged, expired,
 * malformed): a 401 problem, never a silent downgrade to anonymous. An identity provider
 * that cannot be asked: 503.
 */
export class ViewerAuth extends HttpApiMiddleware.Service<ViewerAuth, {
  provides: CurrentViewer
}>()("@coursekit/http/ViewerAuth", {
  error: [UnauthorizedResponse, ServiceUnavailable]
}) {}
