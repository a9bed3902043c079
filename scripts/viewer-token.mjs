#!/usr/bin/env node
// Mints a viewer token for trying Coursekit out: an HS256 JWT signed with JWT_SECRET
// whose `sub` is the user id, valid for an hour (or --minutes N), with `iss`/`aud` from
// JWT_ISSUER/JWT_AUDIENCE when the server requires them. Prints only the token.
//
//   npm run -s viewer-token -- user-42
//
// Real deployments get viewer tokens from their identity provider; this is for the
// README's quick start and for local testing. Plain Node (no dependencies), so it runs on
// whatever `node` is on PATH.
import { createHmac } from "node:crypto"

const minSecretLength = 32
// As the server accepts a `sub` (core's UserId): 1 to 255 characters, no control characters.
const userIdPattern = /^[^\u0000-\u001f\u007f]{1,255}$/

const fail = (message) => {
  process.stderr.write(`viewer-token: ${message}\n`)
  process.exit(1)
}

const args = process.argv.slice(2)
let minutes = 60
const positional = []
for (let i = 0; i < args.length; i++) {
  if (args[i] === "--minutes") {
    minutes = Number(args[++i])
    if (!Number.isInteger(minutes) || minutes < 1 || minutes > 60 * 24 * 30) fail("--minutes takes a whole number from 1 to 43200")
  } else positional.push(args[i])
}
if (positional.length !== 1) fail("usage: npm run -s viewer-token -- <user-id> [--minutes N]")
const [sub] = positional
if (!userIdPattern.test(sub)) fail(`${JSON.stringify(sub)} is not a user id: 1 to 255 characters, no control characters`)

const secret = process.env.JWT_SECRET
if (secret === undefined || secret === "") fail("JWT_SECRET is not set: export the same JWT_SECRET the server runs with")
if (secret.length < minSecretLength) fail(`JWT_SECRET must be at least ${minSecretLength} characters, as the server requires`)

const now = Math.floor(Date.now() / 1000)
const claims = { sub, iat: now, exp: now + minutes * 60 }
if (process.env.JWT_ISSUER) claims.iss = process.env.JWT_ISSUER
if (process.env.JWT_AUDIENCE) claims.aud = process.env.JWT_AUDIENCE

const part = (value) => Buffer.from(JSON.stringify(value)).toString("base64url")
const unsigned = `${part({ alg: "HS256", typ: "JWT" })}.${part(claims)}`
const signature = createHmac("sha256", secret).update(unsigned).digest("base64url")
process.stdout.write(`${unsigned}.${signature}\n`)
