import type { UserId } from "@coursekit/core"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import { HttpServerRequest } from "effect/http"
import { SignJWT } from "jose"
import { JwtViewerResolver } from "../src/index.ts"

const requestWith = (authorization?: string) =>
  HttpServerRequest.fromWeb(new Request("http://test/public/courses/x", { headers: authorization === undefined ? {} : { authorization } }))

const secret = "s".repeat(JwtViewerResolver.minSecretLength)

describe("JwtViewerResolver", () => {
  it.effect("refuses unusable options: none, a short secret, a relative JWKS URL", () =>
    Effect.gen(function*() {
      for (
        const options of [
          {},
          { secret: Redacted.make("short") },
          { jwksUrl: "/.well-known/jwks.json" }
        ]
      ) {
        const error = yield* Effect.flip(JwtViewerResolver.make(options))
        assert.strictEqual(error._tag, "JwtOptionsInvalid")
      }
    }))

  it.effect("no header is anonymous; a valid HS256 token is its sub; anything else is Unauthorized", () =>
    Effect.gen(function*() {
      const resolver = yield* JwtViewerResolver.make({ secret: Redacted.make(secret) })
      assert.deepStrictEqual(yield* resolver.resolve(requestWith()), { _tag: "Anonymous" })
      const sign = (sub: string, exp: string | number = "5m") =>
        Effect.promise(() => new SignJWT({}).setProtectedHeader({ alg: "HS256" }).setSubject(sub).setExpirationTime(exp).sign(new TextEncoder().encode(secret)))
      assert.deepStrictEqual(yield* resolver.resolve(requestWith(`Bearer ${yield* sign("u-1")}`)), { _tag: "User", id: "u-1" as UserId })
      assert.deepStrictEqual(yield* resolver.resolve(requestWith(`bearer  ${yield* sign("u-2")}`)), { _tag: "User", id: "u-2" as UserId })
      const noExp = yield* Effect.promise(() =>
        new SignJWT({}).setProtectedHeader({ alg: "HS256" }).setSubject("u-3").sign(new TextEncoder().encode(secret))
      )
      // Another secret, and the same secret under another HMAC: refused (the key is imported once, for HS256).
      const otherSecret = yield* Effect.promise(() =>
        new SignJWT({}).setProtectedHeader({ alg: "HS256" }).setSubject("u-4").setExpirationTime("5m").sign(new TextEncoder().encode(`${secret}-other`))
      )
      const hs512 = yield* Effect.promise(() =>
        new SignJWT({}).setProtectedHeader({ alg: "HS512" }).setSubject("u-5").setExpirationTime("5m").sign(new TextEncoder().encode(secret))
      )
      for (const header of [`Bearer ${noExp}`, `Bearer ${yield* sign("bad\u0001sub")}`, "Bearer", "Token abc", `Bearer ${yield* sign("u", 1)}`, `Bearer ${otherSecret}`, `Bearer ${hs512}`]) {
        const error = yield* Effect.flip(resolver.resolve(requestWith(header)))
        assert.strictEqual(error._tag, "Unauthorized", header)
      }
    }))

  it.live("a remembered token is refused once its exp passes: remembering never outlives the token", () =>
    Effect.gen(function*() {
      const resolver = yield* JwtViewerResolver.make({ secret: Redacted.make(secret), clockTolerance: 0 })
      const exp = Math.floor(Date.now() / 1000) + 2
      const token = yield* Effect.promise(() =>
        new SignJWT({}).setProtectedHeader({ alg: "HS256" }).setSubject("brief").setExpirationTime(exp).sign(new TextEncoder().encode(secret))
      )
      assert.deepStrictEqual(yield* resolver.resolve(requestWith(`Bearer ${token}`)), { _tag: "User", id: "brief" as UserId })
      assert.deepStrictEqual(yield* resolver.resolve(requestWith(`Bearer ${token}`)), { _tag: "User", id: "brief" as UserId })
      yield* Effect.sleep(exp * 1000 - Date.now() + 50)
      const error = yield* Effect.flip(resolver.resolve(requestWith(`Bearer ${token}`)))
      assert.deepStrictEqual([error._tag, error.detail], ["Unauthorized", "The viewer token has expired."])
    }))

  it("remembers a verified token for its time to live, while exp and nbf pass with the tolerance, the newest `limit` of them", () => {
    const viewer = { _tag: "User", id: "u" as UserId } as const
    const at = (seconds: number) => seconds * 1000
    const tokens = JwtViewerResolver.verifiedTokens(2, at(60), 5)
    tokens.set("a", { viewer, exp: 1_000, nbf: undefined }, at(900))
    assert.deepStrictEqual(tokens.get("a", at(900)), viewer)
    assert.deepStrictEqual(tokens.get("a", at(959.9)), viewer)
    // Time to live over (60 s after it was verified): forgotten, and verified again by jose.
    assert.isUndefined(tokens.get("a", at(960)))
    assert.isUndefined(tokens.get("a", at(900)), "forgotten, not only refused")
    // exp 1,000 with 5 s of tolerance: taken until 1,004.999 s, as jose takes it.
    tokens.set("b", { viewer, exp: 1_000, nbf: undefined }, at(990))
    assert.deepStrictEqual(tokens.get("b", at(1_004.999)), viewer)
    assert.isUndefined(tokens.get("b", at(1_005)))
    // nbf 100 with 5 s of tolerance: not before 95 s (a clock that went back).
    tokens.set("c", { viewer, exp: 1_000, nbf: 100 }, at(90))
    assert.isUndefined(tokens.get("c", at(94)))
    // The oldest goes first.
    tokens.set("d", { viewer, exp: 1_000, nbf: undefined }, at(100))
    tokens.set("e", { viewer, exp: 1_000, nbf: undefined }, at(100))
    tokens.set("f", { viewer, exp: 1_000, nbf: undefined }, at(100))
    assert.deepStrictEqual(["d", "e", "f"].map((token) => tokens.get(token, at(100)) !== undefined), [false, true, true])
    assert.strictEqual(tokens.size, 2)
  })
})
