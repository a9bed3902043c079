/**
 * The local store's signed URLs, uploads and reads: what is signed, how, and how a URL's
 * query is read back. Both are HMAC-SHA256 under the store's secret, lower-case hex, over
 * a canonical string whose first two lines name the kind of URL, so a PUT signature
 * never passes as a GET or a part one, nor any the reverse.
 *
 * An upload URL is `<uploadBaseUrl>/<key>?expires=<unix seconds>&type=<content type>
 * [&length=<bytes>][&max=<bytes>]&signature=<hex>`, signed over
 *
 * ```
 * coursekit-local-put-v2\nPUT\n<key>\n<expires>\n<type>\n<length or empty>\n<max or empty>
 * ```
 *
 * `max` caps a PUT whose length is not signed (the upload purpose's limit).
 *
 * A read URL is `<publicBaseUrl>/<key>?expires=<unix seconds>&signature=<hex>`, signed over
 *
 * ```
 * coursekit-local-get-v1\nGET\n<key>\n<expires>
 * ```
 *
 * A part URL, for one part of a multipart upload, is `<uploadBaseUrl>/<key>?uploadId=<id>
 * &partNumber=<1 to 10000>&expires=<unix seconds>&length=<bytes>&signature=<hex>`, signed over
 *
 * ```
 * coursekit-local-part-v1\nPUT\n<key>\n<uploadId>\n<partNumber>\n<expires>\n<length>
 * ```
 *
 * Key and type are percent-encoded (`encodeURIComponent`) in the strings, so no field
 * can carry a line break into another.
 *
 * A URL is accepted only as the store writes it ({@link putTarget}, {@link partTarget},
 * {@link getTarget}: each key segment percent-encoded by `encodeURIComponent`, the
 * parameters above in that order and no other), so one file has one URL and caches keep
 * one entry for it. Internal to the package.
 *
 * @since 0.1.0
 */
import { Redacted } from "effect"
import { createHmac, timingSafeEqual } from "node:crypto"

/** Everything an upload signature covers. */
export interface SignedPut {
  readonly key: string
  /** Unix seconds; the URL is refused from this instant on. */
  readonly expires: number
  readonly contentType: string
  readonly contentLength: number | undefined
  /** Without a signed length, the most bytes accepted. */
  readonly maxLength: number | undefined
}

/** Everything a read signature covers. */
export interface SignedGet {
  readonly key: string
  /** Unix seconds; the URL is refused from this instant on. */
  readonly expires: number
}

/** Everything a part signature covers. */
export interface SignedPart {
  readonly key: string
  readonly uploadId: string
  readonly partNumber: number
  /** Unix seconds; the URL is refused from this instant on. */
  readonly expires: number
  /** The part's exact size. */
  readonly contentLength: number
}

/** The string a part's HMAC is computed over. */
export const partCanonicalString = (part: SignedPart): string =>
  [
    "coursekit-local-part-v1",
    "PUT",
    encodeURIComponent(part.key),
    encodeURIComponent(part.uploadId),
    String(part.partNumber),
    String(part.expires),
    String(part.contentLength)
  ].join("\n")

/** The string an upload's HMAC is computed over. */
export const putCanonicalString = (put: SignedPut): string =>
  [
    "coursekit-local-put-v2",
    "PUT",
    encodeURIComponent(put.key),
    String(put.expires),
    encodeURIComponent(put.contentType),
    put.contentLength === undefined ? "" : String(put.contentLength),
    put.maxLength === undefined ? "" : String(put.maxLength)
  ].join("\n")

/** The string a read's HMAC is computed over. */
export const getCanonicalString = (get: SignedGet): string =>
  ["coursekit-local-get-v1", "GET", encodeURIComponent(get.key), String(get.expires)].join("\n")

const hmacHex = (secret: Redacted.Redacted<string>, canonical: string) =>
  createHmac("sha256", Redacted.value(secret)).update(canonical, "utf8").digest("hex")

const hexSignature = /^[0-9a-f]{64}$/

/** Whether `signature` is the HMAC of `canonical`, compared in constant time. */
const matches = (secret: Redacted.Redacted<string>, canonical: string, signature: string): boolean =>
  hexSignature.test(signature) && timingSafeEqual(Buffer.from(hmacHex(secret, canonical), "hex"), Buffer.from(signature, "hex"))

/** The hex signature of `put`. */
export const signPut = (secret: Redacted.Redacted<string>, put: SignedPut): string => hmacHex(secret, putCanonicalString(put))

/** Whether `signature` signs `put`. */
export const verifyPut = (secret: Redacted.Redacted<string>, put: SignedPut, signature: string): boolean =>
  matches(secret, putCanonicalString(put), signature)

/** The hex signature of `part`. */
export const signPart = (secret: Redacted.Redacted<string>, part: SignedPart): string => hmacHex(secret, partCanonicalString(part))

/** Whether `signature` signs `part`. */
export const verifyPart = (secret: Redacted.Redacted<string>, part: SignedPart, signature: string): boolean =>
  matches(secret, partCanonicalString(part), signature)

/** The hex signature of `get`. */
export const signGet = (secret: Redacted.Redacted<string>, get: SignedGet): string => hmacHex(secret, getCanonicalString(get))

/** Whether `signature` signs `get`. */
export const verifyGet = (secret: Redacted.Redacted<string>, get: SignedGet, signature: string): boolean =>
  matches(secret, getCanonicalString(get), signature)

/** `key` as a URL's path writes it: each segment percent-encoded (`encodeURIComponent`). */
export const keyPath = (key: string): string => key.split("/").map(encodeURIComponent).join("/")

const queryOf = (fields: ReadonlyArray<readonly [string, string]>) =>
  fields.map(([name, value]) => `${name}=${encodeURIComponent(value)}`).join("&")

/** The query of the upload URL for `put`, values percent-encoded (spaces as `%20`). */
export const putQueryString = (put: SignedPut, signature: string): string => {
  const fields: Array<[string, string]> = [["expires", String(put.expires)], ["type", put.contentType]]
  if (put.contentLength !== undefined) fields.push(["length", String(put.contentLength)])
  if (put.maxLength !== undefined) fields.push(["max", String(put.maxLength)])
  fields.push(["signature", signature])
  return queryOf(fields)
}

/** The query of the part URL for `part`. */
export const partQueryString = (part: SignedPart, signature: string): string =>
  queryOf([
    ["uploadId", part.uploadId],
    ["partNumber", String(part.partNumber)],
    ["expires", String(part.expires)],
    ["length", String(part.contentLength)],
    ["signature", signature]
  ])

/** The query of the read URL for `get`. */
export const getQueryString = (get: SignedGet, signature: string): string =>
  queryOf([["expires", String(get.expires)], ["signature", signature]])

/**
 * What follows the upload base URL in the upload URL for `put`: `<key path>?<query>`,
 * as the store writes it and the only text the receiver accepts.
 */
export const putTarget = (put: SignedPut, signature: string): string => `${keyPath(put.key)}?${putQueryString(put, signature)}`

/** What follows the upload base URL in the part URL for `part` (see {@link putTarget}). */
export const partTarget = (part: SignedPart, signature: string): string => `${keyPath(part.key)}?${partQueryString(part, signature)}`

/** What follows the files base URL in the read URL for `get` (see {@link putTarget}). */
export const getTarget = (get: SignedGet, signature: string): string => `${keyPath(get.key)}?${getQueryString(get, signature)}`

/** A decoded query, as routers hand it over (a repeated parameter is an array). */
export type Query = Readonly<Record<string, string | ReadonlyArray<string> | undefined>>

// A repeated parameter is refused rather than guessed at.
const single = (query: Query, name: string) => {
  const value = query[name]
  return typeof value === "string" ? value : undefined
}

// Canonical: no leading zero, so one expiry has one spelling and a URL cannot be varied.
const unixSeconds = /^(?:0|[1-9]\d{0,11})$/

/** The latest `expires` a URL can carry (12 digits, as its query is read back). */
export const maxExpires = 999_999_999_999

/** The signed fields and the signature an upload URL's query claims, or `undefined` when malformed. */
export const parsePutQuery = (
  key: string,
  query: Query
): { readonly put: SignedPut; readonly signature: string } | undefined => {
  const expires = single(query, "expires")
  const contentType = single(query, "type")
  const length = single(query, "length")
  const max = single(query, "max")
  const signature = single(query, "signature")
  if (expires === undefined || !unixSeconds.test(expires)) return undefined
  if (contentType === undefined || contentType === "") return undefined
  if (signature === undefined) return undefined
  if (query.length !== undefined && (length === undefined || !/^\d{1,15}$/.test(length))) return undefined
  if (query.max !== undefined && (max === undefined || !/^\d{1,15}$/.test(max))) return undefined
  return {
    put: {
      key,
      expires: Number(expires),
      contentType,
      contentLength: length === undefined ? undefined : Number(length),
      maxLength: max === undefined ? undefined : Number(max)
    },
    signature
  }
}

/** Whether a read URL's query claims a signature at all: then it must verify. */
export const claimsGetSignature = (query: Query): boolean => query.expires !== undefined || query.signature !== undefined

/** The signed fields and the signature a read URL's query claims, or `undefined` when malformed. */
export const parseGetQuery = (
  key: string,
  query: Query
): { readonly get: SignedGet; readonly signature: string } | undefined => {
  const expires = single(query, "expires")
  const signature = single(query, "signature")
  if (expires === undefined || !unixSeconds.test(expires) || signature === undefined) return undefined
  return { get: { key, expires: Number(expires) }, signature }
}

/** Whether a PUT's query is a part's (it names an upload or a part number): then it must be one. */
export const claimsPart = (query: Query): boolean => query.uploadId !== undefined || query.partNumber !== undefined

/** An upload id as the store issues them: 22 URL-safe base64 characters (16 random bytes). */
export const uploadIdPattern = /^[A-Za-z0-9_-]{22}$/

// 1 to 10000, one spelling each.
const partNumberPattern = /^(?:[1-9]\d{0,3}|10000)$/

/** The signed fields and the signature a part URL's query claims, or `undefined` when malformed. */
export const parsePartQuery = (
  key: string,
  query: Query
): { readonly part: SignedPart; readonly signature: string } | undefined => {
  const uploadId = single(query, "uploadId")
  const partNumber = single(query, "partNumber")
  const expires = single(query, "expires")
  const length = single(query, "length")
  const signature = single(query, "signature")
  if (uploadId === undefined || !uploadIdPattern.test(uploadId)) return undefined
  if (partNumber === undefined || !partNumberPattern.test(partNumber)) return undefined
  if (expires === undefined || !unixSeconds.test(expires)) return undefined
  if (length === undefined || !/^(?:0|[1-9]\d{0,14})$/.test(length)) return undefined
  if (signature === undefined) return undefined
  return {
    part: { key, uploadId, partNumber: Number(partNumber), expires: Number(expires), contentLength: Number(length) },
    signature
  }
}
