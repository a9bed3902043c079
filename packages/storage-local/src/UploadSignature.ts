/**
 * Signed upload URLs: what is signed, how, and how a URL's query is read back.
 *
 * A URL is `<uploadBaseUrl>/<key>?expires=<unix seconds>&type=<content type>
 * [&length=<bytes>][&max=<bytes>]&signature=<hex>`, the signature being HMAC-SHA256
 * under the store's secret over the canonical string
 *
 * ```
 * coursekit-local-put-v2\nPUT\n<key>\n<expires>\n<type>\n<length or empty>\n<max or empty>
 * ```
 *
 * `max` caps a PUT whose length is not signed (the upload purpose's limit).
 *
 * with key and type percent-encoded (`encodeURIComponent`), so no field can carry a
 * line break into another. Internal to the package.
 *
 * @since 0.1.0
 */
import { Redacted } from "effect"
import { createHmac, timingSafeEqual } from "node:crypto"

/** Everything a signature covers. */
export interface SignedPut {
  readonly key: string
  /** Unix seconds; the URL is refused from this instant on. */
  readonly expires: number
  readonly contentType: string
  readonly contentLength: number | undefined
  /** Without a signed length, the most bytes accepted. */
  readonly maxLength: number | undefined
}

/** The string the HMAC is computed over. */
export const canonicalString = (put: SignedPut): string =>
  [
    "coursekit-local-put-v2",
    "PUT",
    encodeURIComponent(put.key),
    String(put.expires),
    encodeURIComponent(put.contentType),
    put.contentLength === undefined ? "" : String(put.contentLength),
    put.maxLength === undefined ? "" : String(put.maxLength)
  ].join("\n")

/** The hex signature of `put`. */
export const sign = (secret: Redacted.Redacted<string>, put: SignedPut): string =>
  createHmac("sha256", Redacted.value(secret)).update(canonicalString(put), "utf8").digest("hex")

const hexSignature = /^[0-9a-f]{64}$/

/** Whether `signature` signs `put`, compared in constant time. */
export const verify = (secret: Redacted.Redacted<string>, put: SignedPut, signature: string): boolean => {
  if (!hexSignature.test(signature)) return false
  return timingSafeEqual(Buffer.from(sign(secret, put), "hex"), Buffer.from(signature, "hex"))
}

/** The query of the URL for `put`, values percent-encoded (spaces as `%20`). */
export const queryString = (put: SignedPut, signature: string): string => {
  const fields: Array<[string, string]> = [["expires", String(put.expires)], ["type", put.contentType]]
  if (put.contentLength !== undefined) fields.push(["length", String(put.contentLength)])
  if (put.maxLength !== undefined) fields.push(["max", String(put.maxLength)])
  fields.push(["signature", signature])
  return fields.map(([name, value]) => `${name}=${encodeURIComponent(value)}`).join("&")
}

/** A decoded query, as routers hand it over (a repeated parameter is an array). */
export type Query = Readonly<Record<string, string | ReadonlyArray<string> | undefined>>

/** The signed fields and the signature a query claims, or `undefined` when malformed. */
export const parseQuery = (
  key: string,
  query: Query
): { readonly put: SignedPut; readonly signature: string } | undefined => {
  // A repeated parameter is refused rather than guessed at.
  const single = (name: string) => {
    const value = query[name]
    return typeof value === "string" ? value : undefined
  }
  const expires = single("expires")
  const contentType = single("type")
  const length = single("length")
  const max = single("max")
  const signature = single("signature")
  if (expires === undefined || !/^\d{1,12}$/.test(expires)) return undefined
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
