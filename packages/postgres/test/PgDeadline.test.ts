import { PersistenceError } from "@coursekit/core"
import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Exit, Fiber, Layer } from "effect"
import { TestClock } from "effect/testing"
import * as PgDeadline from "../src/PgDeadline.ts"
import * as PgliteDatabase from "../src/PgliteDatabase.ts"

describe("PgDeadline", () => {
  it.effect("a call past the deadline fails as a PersistenceError naming the operation", () =>
    Effect.gen(function*() {
      const call = yield* Effect.never.pipe(PgDeadline.bounded(Duration.seconds(2), "find course"), Effect.exit, Effect.forkChild)
      yield* TestClock.adjust(Duration.millis(1999))
      assert.isUndefined(call.pollUnsafe())
      yield* TestClock.adjust(Duration.millis(1))
      const exit = yield* Fiber.join(call)
      const error = Exit.isFailure(exit) ? exit.cause.reasons[0] : undefined
      assert.strictEqual(error?._tag, "Fail", String(exit))
      const failure = (error as { error: PersistenceError }).error
      assert.instanceOf(failure, PersistenceError)
      assert.strictEqual(failure.operation, "find course")
      assert.strictEqual(String(failure.cause), "Error: no answer from the database within 2s")
    }))

  it.effect("repositories get 5 s unless a database layer says otherwise", () =>
    Effect.gen(function*() {
      assert.strictEqual(Duration.toMillis(yield* PgDeadline.PgDeadline), 5_000)
    }))

  it.effect("PgliteDatabase.layer sets the deadline from its timeout", () =>
    Effect.gen(function*() {
      assert.strictEqual(Duration.toMillis(yield* PgDeadline.PgDeadline), 1_234)
    }).pipe(Effect.provide(Layer.fresh(PgliteDatabase.layer({ dataDir: "memory://", timeout: Duration.millis(1234) })))), 60_000)
})
