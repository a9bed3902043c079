import { assert, describe, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import { AdminTokens } from "../src/index.ts"

describe("AdminTokens", () => {
  it.effect("accepts exactly the configured tokens", () =>
    Effect.gen(function*() {
      const tokens = yield* AdminTokens
      assert.isTrue(tokens.isAdmin(Redacted.make("first-token")))
      assert.isTrue(tokens.isAdmin(Redacted.make("second")))
      assert.isFalse(tokens.isAdmin(Redacted.make("first-token ")))
      assert.isFalse(tokens.isAdmin(Redacted.make("first")))
      assert.isFalse(tokens.isAdmin(Redacted.make("")))
    }).pipe(Effect.provide(AdminTokens.layer([Redacted.make("first-token"), Redacted.make("second"), Redacted.make("")]))))
})
