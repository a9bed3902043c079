/**
 * Viewer tokens of the benchmarks: the standalone server's JWT settings (HS256 with a
 * shared secret, an issuer and an audience), given to Coursekit and to the baselines
 * alike, and tokens minted as `npm run viewer-token` mints them.
 */
import { createHmac } from "node:crypto"

export const jwt = {
  JWT_SECRET: "bench-viewer-secret-0123456789abcdef",
  JWT_ISSUER: "https://id.bench.example",
  JWT_AUDIENCE: "coursekit-bench"
}

/** An HS256 viewer token for `sub`, valid for a day (signed with `secret`: another one forges it). */
export const mint = (sub: string, secret = jwt.JWT_SECRET) => {
  const now = Math.floor(Date.now() / 1000)
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url")
  const unsigned = `${part({ alg: "HS256", typ: "JWT" })}.${
    part({ sub, iat: now, exp: now + 86_400, iss: jwt.JWT_ISSUER, aud: jwt.JWT_AUDIENCE })
  }`
  return `${unsigned}.${createHmac("sha256", secret).update(unsigned).digest("base64url")}`
}
