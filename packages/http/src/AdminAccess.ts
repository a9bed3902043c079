/**
 * The server's port for admin access: may this request use the admin API? The
 * standalone server checks bearer tokens (`AdminTokens.layer` provides this port too); an
 * embedding app answers from its own session and roles (`layerHostAuth`).
 *
 * @since 0.1.0
 */
import { Context, type Effect, type Redacted } from "effect"
import type { HttpServerRequest } from "effect/http"
import type { ServiceUnavailable } from "./Problems.ts"

/**
 * Decides admin access for a request. `bearer` is the `Authorization: Bearer` credential
 * (empty when there is none); implementations may also read anything else of the
 * request. When the answer is no, a request the `ViewerResolver` recognizes as a
 * signed-in viewer is answered 403, anyone else 401.
 */
export class AdminAccess extends Context.Service<AdminAccess, {
  isAdmin(request: HttpServerRequest.HttpServerRequest, bearer: Redacted.Redacted<string>): Effect.Effect<boolean, ServiceUnavailable>
}>()("@coursekit/http/AdminAccess") {}
