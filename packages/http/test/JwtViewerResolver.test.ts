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
})
