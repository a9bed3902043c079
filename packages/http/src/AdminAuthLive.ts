/**
 * The server side of {@link AdminAuth}: accepts the bearer tokens of {@link AdminTokens}.
 *
 * @since 0.1.0
 */
import { Effect, Layer, Redacted } from "effect"
import { AdminAuth } from "./AdminAuth.ts"
import { AdminTokens } from "./AdminTokens.ts"
import { Unauthorized } from "./Problems.ts"

/** `AdminAuth` backed by the `AdminTokens` in context. */
export const layer: Layer.Layer<AdminAuth, never, AdminTokens> = Layer.effect(
  AdminAuth,
  Effect.gen(function*() {
    const tokens = yield* AdminTokens
    return AdminAuth.of({
      adminToken: (httpEffect, { credential }) => {
        // A missing header arrives as an empty credential.
        if (Redacted.value(credential) === "") {
          return Effect.fail(new Unauthorized({ detail: "This operation needs an admin token: Authorization: Bearer <token>." }))
        }
        return tokens.isAdmin(credential)
          ? httpEffect
          : Effect.fail(new Unauthorized({ detail: "The bearer token is not a valid admin token." }))
      }
    })
  })
)
