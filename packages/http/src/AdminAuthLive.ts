/**
 * The server side of {@link AdminAuth}: accepts the bearer tokens of {@link AdminTokens};
 * a request the `ViewerResolver` recognizes as a signed-in viewer is refused with 403.
 *
 * @since 0.1.0
 */
import { Effect, Layer, Redacted } from "effect"
import { HttpServerRequest } from "effect/http"
import { AdminAuth } from "./AdminAuth.ts"
import { AdminTokens } from "./AdminTokens.ts"
import { Forbidden, Unauthorized } from "./Problems.ts"
import { ViewerResolver } from "./ViewerResolver.ts"

/** `AdminAuth` backed by the `AdminTokens` and the `ViewerResolver` in context. */
export const layer: Layer.Layer<AdminAuth, never, AdminTokens | ViewerResolver> = Layer.effect(
  AdminAuth,
  Effect.gen(function*() {
    const tokens = yield* AdminTokens
    const viewers = yield* ViewerResolver
    return AdminAuth.of({
      adminToken: (httpEffect, { credential }) => {
        if (Redacted.value(credential) !== "" && tokens.isAdmin(credential)) return httpEffect
        // Not an admin. A valid viewer gets 403 (known, but not allowed); anyone else 401.
        return Effect.gen(function*() {
          const request = yield* HttpServerRequest.HttpServerRequest
          const viewer = yield* viewers.resolve(request).pipe(Effect.orElseSucceed(() => undefined))
          if (viewer?._tag === "User") {
            return yield* new Forbidden({ detail: "A viewer token cannot be used for admin operations; use an admin token." })
          }
          return yield* new Unauthorized({
            detail: Redacted.value(credential) === ""
              ? "This operation needs an admin token: Authorization: Bearer <token>."
              : "The bearer token is not a valid admin token."
          })
        })
      }
    })
  })
)
