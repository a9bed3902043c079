/**
 * Who reads the catalogue (`GET /courses`, `GET /courses/{id}`, `GET /courses/search`):
 * admins see every course, drafts and scheduled ones included, with `status` and
 * `publish_at`; everyone else sees what is visible now. Search without `status` answers
 * everyone alike (the students' search), but resolves its reader too, so that bad
 * credentials are a 401 on every catalogue read; with `status` it is an admin's. This
 * file holds only the contract's side, so a client can import it; the server decides
 * with `CatalogueAuthLive.ts`.
 *
 * @since 0.2.0
 */
import { Context } from "effect"
import { HttpApiMiddleware } from "effect/http-api"
import { Forbidden, ServiceUnavailable, UnauthorizedResponse } from "../problems/Problems.ts"

/** Whether the request being handled reads the catalogue as an admin or as the public. */
export class CurrentAudience extends Context.Service<CurrentAudience, "admin" | "public">()("@coursekit/http/CurrentAudience") {}

/**
 * Resolves the catalogue's reader. Admin access (as for the admin endpoints): `admin`.
 * Otherwise the request is a viewer's or anonymous, resolved as the public endpoints do:
 * credentials that do not verify are a 401, never a silent downgrade, so a mistyped admin
 * token does not look like an empty list of drafts. Asking for an admin-only view
 * (`?status=`) without admin access is refused as an admin endpoint refuses (401, or 403
 * for a signed-in viewer).
 */
export class CatalogueAuth extends HttpApiMiddleware.Service<CatalogueAuth, {
  provides: CurrentAudience
}>()("@coursekit/http/CatalogueAuth", {
  requiredForClient: true,
  error: [UnauthorizedResponse, Forbidden, ServiceUnavailable]
}) {}
