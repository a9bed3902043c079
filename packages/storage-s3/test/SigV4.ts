/**
 * SigV4 verification of an incoming request, written from AWS's specification
 * ("Create a signed AWS API request", "Authenticating requests: using query
 * parameters"), independently of the SDK's signer. The tests put it in front of s3rver
 * because s3rver 3.7 does not verify SigV4 signatures at all: it looks the access key
 * up and lets every signature through (`lib/middleware/authentication.js`: "Signature
 * version 4 calculation is unimplemeneted"). Without it a PUT with another content
 * type or size than the signed one, or a request signed with a wrong secret, would
 * succeed, which S3, R2 and MinIO refuse.
 *
 * Checked: the signature over method, path, query, signed headers (their values as
 * received, so a changed Content-Type or Content-Length breaks it) and the declared
 * payload hash; the credential scope; the expiry of presigned URLs (`X-Amz-Date` plus
 * `X-Amz-Expires`, 1 second to 7 days). s3rver checks that expiry too, but an
 * `X-Amz-Expires` that is not a number never expires there (`lib/middleware/
 * authentication.js`: `if (isNaN(expires)) if (expires < 0)`, then a comparison with an
 * invalid date), so it is checked here as well. Left to s3rver: clock skew of header
 * authentication, which it does check. Not checked: that a hex `x-amz-content-sha256`
 * matches the body (no test sends a body with header authentication) and the region.
 */
import { createHash, createHmac, timingSafeEqual } from "node:crypto"
import type { IncomingHttpHeaders } from "node:http"

/**
 * Whether a request may go on (`signed`: with a verified SigV4 signature, else
 * anonymous); a refusal names the S3 error code to answer with.
 */
export type Verdict =
  | { readonly ok: true; readonly signed: boolean }
  | { readonly ok: false; readonly code: "AccessDenied" | "InvalidAccessKeyId" | "SignatureDoesNotMatch"; readonly message: string }

const refuse = (code: "AccessDenied" | "InvalidAccessKeyId" | "SignatureDoesNotMatch", message: string): Verdict => ({ ok: false, code, message })

// SigV4's URI encoding: RFC 3986 unreserved characters as they are, every other byte as
// %XX. encodeURIComponent also leaves !'()* alone, so those are escaped after it.
const uriEncode = (value: string) =>
  encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)

const decode = (value: string): string | undefined => {
  try {
    return decodeURIComponent(value)
  } catch {
    return undefined
  }
}

const sha256Hex = (data: string) => createHash("sha256").update(data, "utf8").digest("hex")
const hmac = (key: string | Buffer, data: string) => createHmac("sha256", key).update(data, "utf8").digest()

interface Parsed {
  /** For a presigned URL, the end of its validity (epoch milliseconds), or why it has none. */
  readonly expiresAt: number | string | undefined
  readonly accessKeyId: string
  readonly scope: { readonly date: string; readonly region: string; readonly service: string; readonly terminator: string }
  readonly amzDate: string
  readonly signedHeaders: ReadonlyArray<string>
  readonly signature: string
  readonly payloadHash: string
  /** Query parameters that enter the canonical query string, decoded. */
  readonly query: ReadonlyArray<readonly [string, string]>
}

const parseCredential = (credential: string) => {
  const [accessKeyId, date, region, service, terminator, ...rest] = credential.split("/")
  if (accessKeyId === undefined || date === undefined || region === undefined || service === undefined || terminator === undefined || rest.length > 0) {
    return undefined
  }
  return { accessKeyId, scope: { date, region, service, terminator } }
}

const header = (headers: IncomingHttpHeaders, name: string): string | undefined => {
  const value = headers[name]
  return Array.isArray(value) ? value.join(",") : value
}

/** When a presigned URL stops being valid, in epoch milliseconds, or why it is invalid. */
const presignedExpiry = (amzDate: string, expires: string | undefined): number | string => {
  const date = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(amzDate)
  if (date === null) return "X-Amz-Date is not yyyyMMddTHHmmssZ"
  if (expires === undefined || !/^\d{1,6}$/.test(expires) || Number(expires) < 1 || Number(expires) > 604_800) {
    return "X-Amz-Expires must be 1 to 604800 seconds"
  }
  const [year, month, day, hours, minutes, seconds] = date.slice(1).map(Number) as [number, number, number, number, number, number]
  return Date.UTC(year, month - 1, day, hours, minutes, seconds) + Number(expires) * 1000
}

const parse = (method: string, rawQuery: string, headers: IncomingHttpHeaders): Parsed | Verdict | undefined => {
  const query: Array<readonly [string, string]> = []
  for (const pair of rawQuery === "" ? [] : rawQuery.split("&")) {
    const equals = pair.indexOf("=")
    const name = decode(equals === -1 ? pair : pair.slice(0, equals))
    const value = decode(equals === -1 ? "" : pair.slice(equals + 1))
    if (name === undefined || value === undefined) return refuse("AccessDenied", "Malformed query string")
    query.push([name, value])
  }
  const param = (name: string) => query.find(([key]) => key === name)?.[1]
  const authorization = header(headers, "authorization")

  if (param("X-Amz-Algorithm") !== undefined) {
    if (authorization !== undefined) return refuse("AccessDenied", "Two authentication mechanisms")
    if (param("X-Amz-Algorithm") !== "AWS4-HMAC-SHA256") return refuse("AccessDenied", "Unsupported algorithm")
    const credential = parseCredential(param("X-Amz-Credential") ?? "")
    const amzDate = param("X-Amz-Date")
    const signedHeaders = param("X-Amz-SignedHeaders")
    const signature = param("X-Amz-Signature")
    if (credential === undefined || amzDate === undefined || signedHeaders === undefined || signature === undefined) {
      return refuse("AccessDenied", "Incomplete presigned query")
    }
    return {
      ...credential,
      expiresAt: presignedExpiry(amzDate, param("X-Amz-Expires")),
      amzDate,
      signedHeaders: signedHeaders.split(";"),
      signature,
      // Presigned S3 requests sign no payload unless the query names a hash.
      payloadHash: param("X-Amz-Content-Sha256") ?? "UNSIGNED-PAYLOAD",
      query: query.filter(([key]) => key !== "X-Amz-Signature")
    }
  }

  if (authorization !== undefined) {
    const match = /^AWS4-HMAC-SHA256 Credential=([^,]+),\s*SignedHeaders=([^,]+),\s*Signature=([0-9a-f]+)$/.exec(authorization.trim())
    const credential = match === null ? undefined : parseCredential(match[1]!)
    const amzDate = header(headers, "x-amz-date")
    const payloadHash = header(headers, "x-amz-content-sha256")
    if (match === null || credential === undefined || amzDate === undefined || payloadHash === undefined) {
      return refuse("AccessDenied", `Unsupported or malformed Authorization for ${method}`)
    }
    return { ...credential, expiresAt: undefined, amzDate, signedHeaders: match[2]!.split(";"), signature: match[3]!, payloadHash, query }
  }

  return undefined
}

/** Whether the request claims SigV4 authentication (presigned query or `Authorization`), verified or not. */
export const claimsSignature = (url: string, headers: IncomingHttpHeaders): boolean =>
  header(headers, "authorization") !== undefined || /[?&]X-Amz-Algorithm=/.test(url)

/**
 * Verifies the request's SigV4 signature with the secret of its access key. An
 * anonymous request is let through: what it may do is the store's business.
 */
export const verify = (
  request: { readonly method: string; readonly url: string; readonly headers: IncomingHttpHeaders },
  secrets: ReadonlyMap<string, string>
): Verdict => {
  const questionMark = request.url.indexOf("?")
  const rawPath = questionMark === -1 ? request.url : request.url.slice(0, questionMark)
  const rawQuery = questionMark === -1 ? "" : request.url.slice(questionMark + 1)
  const parsed = parse(request.method, rawQuery, request.headers)
  if (parsed === undefined) return { ok: true, signed: false }
  if ("ok" in parsed) return parsed
  if (typeof parsed.expiresAt === "string") return refuse("AccessDenied", parsed.expiresAt)

  const secret = secrets.get(parsed.accessKeyId)
  if (secret === undefined) return refuse("InvalidAccessKeyId", "The AWS Access Key Id you provided does not exist in our records.")
  const { scope } = parsed
  if (scope.terminator !== "aws4_request" || scope.service !== "s3" || !parsed.amzDate.startsWith(scope.date)) {
    return refuse("AccessDenied", "Credential scope does not match the request")
  }
  if (!parsed.signedHeaders.includes("host")) return refuse("AccessDenied", "Host is not signed")

  // S3 encodes each path segment once (no double encoding, no normalisation).
  const segments: Array<string> = []
  for (const segment of rawPath.split("/")) {
    const decoded = decode(segment)
    if (decoded === undefined) return refuse("AccessDenied", "Malformed path")
    segments.push(uriEncode(decoded))
  }
  const canonicalUri = segments.join("/") || "/"
  const canonicalQuery = parsed.query
    .map(([key, value]) => [uriEncode(key), uriEncode(value)] as const)
    .sort(([a, av], [b, bv]) => (a < b ? -1 : a > b ? 1 : av < bv ? -1 : av > bv ? 1 : 0))
    .map(([key, value]) => `${key}=${value}`)
    .join("&")
  const canonicalHeaders: Array<string> = []
  for (const name of parsed.signedHeaders) {
    const value = header(request.headers, name)
    // A signed header the request does not carry cannot match its signature.
    if (value === undefined) return refuse("SignatureDoesNotMatch", `Signed header ${name} is missing`)
    canonicalHeaders.push(`${name}:${value.trim().replace(/\s+/g, " ")}\n`)
  }
  const canonicalRequest = [
    request.method,
    canonicalUri,
    canonicalQuery,
    canonicalHeaders.join(""),
    parsed.signedHeaders.join(";"),
    parsed.payloadHash
  ].join("\n")
  const stringToSign = [
    "AWS4-HMAC-SHA256",
    parsed.amzDate,
    `${scope.date}/${scope.region}/${scope.service}/${scope.terminator}`,
    sha256Hex(canonicalRequest)
  ].join("\n")
  let key = hmac(`AWS4${secret}`, scope.date)
  for (const part of [scope.region, scope.service, scope.terminator]) key = hmac(key, part)
  const expected = createHmac("sha256", key).update(stringToSign, "utf8").digest()
  const provided = Buffer.from(parsed.signature, "hex")
  if (provided.length !== expected.length || !timingSafeEqual(provided, expected)) {
    return refuse("SignatureDoesNotMatch", "The request signature we calculated does not match the signature you provided.")
  }
  // From `expiresAt` on, as the port's `expiresAt` says (S3 documents no finer point).
  if (parsed.expiresAt !== undefined && Date.now() >= parsed.expiresAt) return refuse("AccessDenied", "Request has expired")
  return { ok: true, signed: true }
}
