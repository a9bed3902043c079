/**
 * `npm run viewer-token` (scripts/viewer-token.mjs) mints what the server accepts: its
 * tokens are checked by the resolver the standalone server uses, with and without
 * issuer and audience, and its refusals are one line and exit 1.
 */
import { type UserId, userIdMaxLength } from "@coursekit/core"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import { HttpServerRequest } from "effect/http"
import { spawnSync } from "node:child_process"
import { resolve } from "node:path"
import { JwtViewerResolver } from "../src/index.ts"

const script = resolve(import.meta.dirname, "../../../scripts/viewer-token.mjs")
const secret = "a-secret-of-exactly-the-minimum-length!".slice(0, JwtViewerResolver.minSecretLength)

const mint = (args: ReadonlyArray<string>, env: Record<string, string | undefined> = {}) => {
  const result = spawnSync(process.execPath, [script, ...args], {
    encoding: "utf8",
    env: { PATH: process.env.PATH, JWT_SECRET: secret, ...env }
  })
  return { status: result.status, stdout: result.stdout, stderr: result.stderr }
}

const viewerOf = (token: string, options: { issuer?: string; audience?: string } = {}) =>
  Effect.gen(function*() {
    const resolver = yield* JwtViewerResolver.make({ secret: Redacted.make(secret), ...options })
    return yield* resolver.resolve(HttpServerRequest.fromWeb(new Request("http://test/", { headers: { authorization: `Bearer ${token}` } })))
  })

const claimsOf = (token: string) => JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString("utf8"))

describe("npm run viewer-token", () => {
  it.effect("prints only a token the server accepts as the user, valid for an hour, or --minutes", () =>
    Effect.gen(function*() {
      const minted = mint(["user-42"])
      assert.strictEqual(minted.status, 0, minted.stderr)
      assert.match(minted.stdout, /^[\w-]+\.[\w-]+\.[\w-]+\n$/)
      const token = minted.stdout.trim()
      assert.deepStrictEqual(yield* viewerOf(token), { _tag: "User", id: "user-42" as UserId })
      const claims = claimsOf(token)
      assert.strictEqual(claims.exp - claims.iat, 3600)
      const short = claimsOf(mint(["user-42", "--minutes", "5"]).stdout.trim())
      assert.strictEqual(short.exp - short.iat, 300)
    }))

  it.effect("carries JWT_ISSUER and JWT_AUDIENCE, so a server that requires them accepts it", () =>
    Effect.gen(function*() {
      const token = mint(["user-7"], { JWT_ISSUER: "https://id.example", JWT_AUDIENCE: "coursekit" }).stdout.trim()
      assert.deepStrictEqual(
        yield* viewerOf(token, { issuer: "https://id.example", audience: "coursekit" }),
        { _tag: "User", id: "user-7" as UserId }
      )
      const without = mint(["user-7"]).stdout.trim()
      assert.strictEqual((yield* Effect.flip(viewerOf(without, { issuer: "https://id.example" })))._tag, "Unauthorized")
    }))

  it("refuses with one line and exit 1: no secret, a short secret, a user id the server would refuse, bad arguments", () => {
    const cases: ReadonlyArray<readonly [ReadonlyArray<string>, Record<string, string | undefined>, RegExp]> = [
      [["user-42"], { JWT_SECRET: undefined }, /JWT_SECRET is not set/],
      [["user-42"], { JWT_SECRET: "x".repeat(JwtViewerResolver.minSecretLength - 1) }, new RegExp(`at least ${JwtViewerResolver.minSecretLength} characters`)],
      [["bad\u0001id"], {}, /is not a user id/],
      [["u".repeat(userIdMaxLength + 1)], {}, /is not a user id/],
      [[], {}, /usage: npm run -s viewer-token/],
      [["user-42", "--minutes", "0"], {}, /--minutes/]
    ]
    for (const [args, env, message] of cases) {
      const refused = mint(args, env)
      assert.strictEqual(refused.status, 1, JSON.stringify(args))
      assert.strictEqual(refused.stdout, "")
      assert.match(refused.stderr, /^viewer-token: [^\n]+\n$/)
      assert.match(refused.stderr, message)
    }
    // The longest id the server accepts is accepted here too.
    assert.strictEqual(mint(["u".repeat(userIdMaxLength)]).status, 0)
  })
})
