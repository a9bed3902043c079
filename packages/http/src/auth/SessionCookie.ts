/**
 * The Studio's session cookie, as bytes: a random session id and its HMAC-SHA-256 under
 * the session secret, `<id>.<mac>` (both base64url, 43 characters each). The signature
 * lets a forged or altered cookie be refused without a database read; the store knows a
 * session only by the SHA-256 of its id ({@link keyOf}), so its rows sign no one in.
 * Not part of the package's exports: `AdminSessions` is the one user.
 *
 * @since 0.3.0
 */
import { Redacted } from "effect"
import type { HttpServerRequest } from "effect/http"
import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto"
import { sessionCookieName } from "./SessionCookieDoc.ts"

/** The cookie's name (the contract's). */
export const cookieName = sessionCookieName

/** 32 random bytes in base64url, then the same length of signature. */
const cookiePattern = /^([A-Za-z0-9_-]{43})\.([A-Za-z0-9_-]{43})$/

// Domain separation: the secret signs session ids and names tokens, never one as the other.
const macOf = (secret: Redacted.Redacted<string>, purpose: string, value: string) =>
  createHmac("sha256", Redacted.value(secret)).update(`coursekit/${purpose}\u0000${value}`, "utf8").digest()

/** A new session: its id (for the store's key) and the cookie's value. */
export const newSession = (secret: Redacted.Redacted<string>): { readonly id: string; readonly value: string } => {
  const id = randomBytes(32).toString("base64url")
  return { id, value: `${id}.${macOf(secret, "session", id).toString("base64url")}` }
}

/** The session id a cookie's value carries when `secret` signed it; undefined for anything else. */
export const verifiedId = (secret: Redacted.Redacted<string>, value: string): string | undefined => {
  const parts = cookiePattern.exec(value)
  if (parts === null) return undefined
  const presented = Buffer.from(parts[2]!, "base64url")
  const expected = macOf(secret, "session", parts[1]!)
  // The pattern fixes the length (43 characters are 32 bytes), so the comparison is constant-time.
  return presented.length === expected.length && timingSafeEqual(presented, expected) ? parts[1] : undefined
}

/** How the store knows the session `id`: its SHA-256, in hex. */
export const keyOf = (id: string): string => createHash("sha256").update(id, "utf8").digest("hex")

/**
 * Who signed in with `token`, as sessions store it: a keyed digest (hex), so the store
 * holds nothing a token could be guessed from, and a token taken out of the configuration
 * names no one any more.
 */
export const principalOf = (secret: Redacted.Redacted<string>, token: string): string =>
  macOf(secret, "admin-token", token).toString("hex")

/** The value of the session cookie the request carries (the first, as browsers send the most specific first), if any. */
export const cookieOf = (request: HttpServerRequest.HttpServerRequest): string | undefined =>
  // Most requests carry no cookie at all: no parsing for them.
  request.headers.cookie === undefined ? undefined : request.cookies[cookieName]
