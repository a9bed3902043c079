/**
 * The admin bearer tokens the server accepts, and their constant-time check.
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer, Redacted } from "effect"
import { createHash, timingSafeEqual } from "node:crypto"
import { AdminAccess, type AdminRefusals } from "./AdminAccess.ts"

const digest = (value: string) => createHash("sha256").update(value, "utf8").digest()

/** How the standalone server's refusals read: in terms of its bearer tokens. */
export const adminTokenRefusals: AdminRefusals = {
  unauthorized: (bearer) =>
    Redacted.value(bearer) === ""
      ? "This operation needs an admin token: Authorization: Bearer <token>."
      : "The bearer token is not a valid admin token.",
  forbidden: "A viewer token cannot be used for admin operations; use an admin token."
}

/**
 * Checks a presented token against the configured admin tokens. Both sides are hashed to
 * equal-length digests and every configured token is compared, so neither the length nor
 * the position of a match shows in the timing.
 */
export class AdminTokens extends Context.Service<AdminTokens, {
  isAdmin(presented: Redacted.Redacted<string>): boolean
}>()("@coursekit/http/AdminTokens") {
  /**
   * Accepts exactly `tokens` (empty strings are ignored), and grants admin access to the
   * requests that present one as a bearer token (`AdminAccess`, refusing in the terms of
   * tokens: {@link adminTokenRefusals}).
   */
  static readonly layer = (tokens: ReadonlyArray<Redacted.Redacted<string>>): Layer.Layer<AdminTokens | AdminAccess> => {
    const digests = tokens.map(Redacted.value).filter((token) => token.length > 0).map(digest)
    const service = AdminTokens.of({
      isAdmin: (presented) => {
        const candidate = digest(Redacted.value(presented))
        let match = false
        for (const known of digests) match = timingSafeEqual(known, candidate) || match
        return match
      }
    })
    return Layer.succeedContext(
      Context.make(AdminTokens, service).pipe(
        Context.add(AdminAccess, AdminAccess.of({
          isAdmin: (_request, bearer) => Effect.succeed(Redacted.value(bearer) !== "" && service.isAdmin(bearer)),
          refusals: adminTokenRefusals
        }))
      )
    )
  }
}
