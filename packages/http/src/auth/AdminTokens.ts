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

/** A configured admin token and the name its writes go by. */
interface NamedToken {
  readonly name: string
  readonly digest: Buffer
}

/**
 * An `ADMIN_TOKENS` entry: `name=token` names its writes' author when an `=` is followed
 * by something other than `=` (a base64 token's padding is not a name); a bare token's
 * author is `admin-` and the first 8 hex digits of its SHA-256, never the token.
 */
export const namedToken = (entry: string): { readonly name: string; readonly token: string } => {
  const split = /^([^=]+)=(?!=)(.+)$/.exec(entry)
  if (split !== null) return { name: split[1]!.trim(), token: split[2]! }
  return { name: `admin-${digest(entry).toString("hex").slice(0, 8)}`, token: entry }
}

/** The usable entries of `tokens` (empty ones are ignored), each with its name ({@link namedToken}). */
export const configuredTokens = (tokens: ReadonlyArray<Redacted.Redacted<string>>): ReadonlyArray<{ readonly name: string; readonly token: string }> =>
  tokens.map(Redacted.value).filter((entry) => entry.length > 0).map(namedToken)

/**
 * Checks a presented token against the configured admin tokens. Both sides are hashed to
 * equal-length digests and every configured token is compared, so neither the length nor
 * the position of a match shows in the timing.
 */
export class AdminTokens extends Context.Service<AdminTokens, {
  isAdmin(presented: Redacted.Redacted<string>): boolean
  /** The name of the presented token's writes ({@link namedToken}); undefined for no admin token. */
  authorOf(presented: Redacted.Redacted<string>): string | undefined
}>()("@coursekit/http/AdminTokens") {
  /** The check of exactly `tokens` (see {@link AdminTokens.layer}), as a value. */
  static readonly make = (tokens: ReadonlyArray<Redacted.Redacted<string>>): AdminTokens["Service"] => {
    const known: ReadonlyArray<NamedToken> = configuredTokens(tokens).map(({ name, token }) => ({ name, digest: digest(token) }))
    const match = (presented: Redacted.Redacted<string>) => {
      const candidate = digest(Redacted.value(presented))
      let found: NamedToken | undefined
      for (const token of known) if (timingSafeEqual(token.digest, candidate) && found === undefined) found = token
      return found
    }
    return AdminTokens.of({
      isAdmin: (presented) => match(presented) !== undefined,
      authorOf: (presented) => match(presented)?.name
    })
  }

  /**
   * Accepts exactly `tokens` (empty strings are ignored; `name=token` entries name their
   * writes' author, see {@link namedToken}), and grants admin access to the requests that
   * present one as a bearer token (`AdminAccess`, refusing in the terms of tokens:
   * {@link adminTokenRefusals}).
   */
  static readonly layer = (tokens: ReadonlyArray<Redacted.Redacted<string>>): Layer.Layer<AdminTokens | AdminAccess> => {
    const service = AdminTokens.make(tokens)
    return Layer.succeedContext(
      Context.make(AdminTokens, service).pipe(
        Context.add(AdminAccess, AdminAccess.of({
          isAdmin: (_request, bearer) => Effect.succeed(Redacted.value(bearer) !== "" && service.isAdmin(bearer)),
          authorOf: (_request, bearer) => Effect.succeed(service.authorOf(bearer)),
          refusals: adminTokenRefusals
        }))
      )
    )
  }
}
