/**
 * The admin guard of the contract: `Authorization: Bearer <admin token>` on every write.
 * This file holds only the definition, so a client can import it; the server's check
 * lives in `AdminAuthLive.ts`.
 *
 * @since 0.1.0
 */
import { HttpApiMiddleware, HttpApiSecurity } from "effect/http-api"
import { Forbidden, ServiceUnavailable, UnauthorizedResponse } from "../problems/Problems.ts"

/**
 * Requires an admin bearer token: a 401 problem without one or with a token that is
 * nobody's, a 403 problem for a valid viewer's token (admin and viewer tokens are distinct).
 * An embedding host may decide admin access from its own session instead; when it cannot
 * tell (its session store is down), 503.
 */
export class AdminAuth extends HttpApiMiddleware.Service<AdminAuth>()("@coursekit/http/AdminAuth", {
  requiredForClient: true,
  security: { adminToken: HttpApiSecurity.bearer },
  error: [UnauthorizedResponse, Forbidden, ServiceUnavailable]
}) {}
