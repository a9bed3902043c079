/**
 * The server's port for admin access: may this request use the admin API? The
 * standalone server checks bearer tokens and the Studio's session cookie
 * (`AdminSessions.layer`; `AdminTokens.layer` for tokens alone); an embedding app answers
 * from its own session and roles (`layerHostAuth`). Each says, in its own terms, how a
 * refused request gets access ({@link AdminRefusals}).
 *
 * @since 0.1.0
 */
import { Context, type Effect, type Redacted } from "effect"
import type { HttpServerRequest } from "effect/http"
import type { Forbidden, ServiceUnavailable } from "../problems/Problems.ts"

/**
 * The `detail` of the problems a refused request gets, in the terms of whatever decides
 * admin access (bearer tokens, a session, the host's login): `unauthorized` for the 401
 * of a request from nobody known (`bearer` as {@link AdminAccess} got it, and the
 * request), `forbidden` for the 403 of a signed-in viewer who is no admin. The statuses
 * themselves are fixed (`Problems.ts`).
 */
export interface AdminRefusals {
  unauthorized(bearer: Redacted.Redacted<string>, request: HttpServerRequest.HttpServerRequest): string
  readonly forbidden: string
}

/** The wording of an {@link AdminAccess} that gives none: it names no way of signing in. */
export const genericAdminRefusals: AdminRefusals = {
  unauthorized: () => "This operation needs admin access.",
  forbidden: "This operation needs admin access, which the signed-in viewer does not have."
}

/**
 * Decides admin access for a request. `bearer` is the `Authorization: Bearer` credential
 * (empty when there is none); implementations may also read anything else of the
 * request (a cookie: then name its header in `vary`). When the answer is no, a request
 * the `ViewerResolver` recognizes as a signed-in viewer is answered 403, anyone else
 * 401, worded by `refusals` ({@link genericAdminRefusals} when absent). A request it
 * refuses outright fails with `Forbidden` (a write signed in by a session cookie from
 * another origin). The empty `bearer` is one value shared by every request without
 * credentials: read it, never wipe it.
 */
export class AdminAccess extends Context.Service<AdminAccess, {
  isAdmin(request: HttpServerRequest.HttpServerRequest, bearer: Redacted.Redacted<string>): Effect.Effect<boolean, ServiceUnavailable | Forbidden>
  readonly refusals?: AdminRefusals | undefined
  /**
   * The request headers besides `Authorization` that the answer reads (`cookie` for a
   * session): the catalogue's answers, which differ for admins, carry them in `Vary`.
   */
  readonly vary?: ReadonlyArray<string> | undefined
  /**
   * Who an admitted request writes as: the `author` of the revisions it stores (a user
   * id, a token's name; never a secret). Absent or undefined: `admin`.
   */
  readonly authorOf?: ((request: HttpServerRequest.HttpServerRequest, bearer: Redacted.Redacted<string>) => Effect.Effect<string | undefined, ServiceUnavailable>) | undefined
}>()("@coursekit/http/AdminAccess") {}
