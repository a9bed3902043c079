/**
 * The server side of {@link AdminAuth}: {@link AdminAccess} decides (bearer tokens in the
 * standalone server, the host's session when embedded); a request the `ViewerResolver`
 * recognizes as a signed-in viewer is refused with 403, anyone else with 401, each in
 * the terms of the `AdminAccess` (its `refusals`), so a host's users never read about
 * tokens the host does not use.
 *
 * @since 0.1.0
 */
import { Effect, Layer } from "effect"
import { HttpServerRequest } from "effect/http"
import { AdminAuth } from "./AdminAuth.ts"
import { AdminAccess, genericAdminRefusals } from "./AdminAccess.ts"
import { CurrentAuthor } from "../handlers/EditHeaders.ts"
import { Forbidden, Unauthorized } from "../problems/Problems.ts"
import { resolveOnce } from "./RequestViewer.ts"
import { ViewerResolver } from "./ViewerResolver.ts"

/** `AdminAuth` backed by the `AdminAccess` and the `ViewerResolver` in context. */
export const layer: Layer.Layer<AdminAuth, never, AdminAccess | ViewerResolver> = Layer.effect(
  AdminAuth,
  Effect.gen(function*() {
    const access = yield* AdminAccess
    const viewers = yield* ViewerResolver
    const refusals = access.refusals ?? genericAdminRefusals
    return AdminAuth.of({
      adminToken: (httpEffect, { credential }) =>
        Effect.gen(function*() {
          const request = yield* HttpServerRequest.HttpServerRequest
          if (yield* access.isAdmin(request, credential)) {
            // The writes it makes are this admin's: their revisions name them.
            const author = access.authorOf === undefined ? undefined : yield* access.authorOf(request, credential)
            return yield* (author === undefined ? httpEffect : Effect.provideService(httpEffect, CurrentAuthor, author))
          }
          // Not an admin. A valid viewer gets 403 (known, but not allowed); anyone else 401.
          const viewer = yield* resolveOnce(viewers, request).pipe(Effect.orElseSucceed(() => undefined))
          if (viewer?._tag === "User") return yield* new Forbidden({ detail: refusals.forbidden })
          return yield* new Unauthorized({ detail: refusals.unauthorized(credential, request) })
        })
    })
  })
)
