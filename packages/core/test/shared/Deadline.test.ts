import { assert, describe, it } from "@effect/vitest"
import { Deferred, Duration, Effect, Exit, Fiber, Ref } from "effect"
import { TestClock } from "effect/testing"
import { Deadline } from "../../src/index.ts"

class TooLate {
  readonly _tag = "TooLate"
}

const withinOneSecond = Deadline.within(Duration.seconds(1), () => new TooLate())

describe("Deadline.within", () => {
  it.effect("passes on what ends in time: success and failure alike", () =>
    Effect.gen(function*() {
      assert.strictEqual(yield* withinOneSecond(Effect.succeed(42)), 42)
      assert.deepStrictEqual(yield* Effect.flip(withinOneSecond(Effect.fail("broken" as const))), "broken")
      const slowButInTime = yield* withinOneSecond(Effect.as(Effect.sleep(Duration.millis(900)), "done")).pipe(Effect.forkChild)
      yield* TestClock.adjust(Duration.millis(900))
      assert.strictEqual(yield* Fiber.join(slowButInTime), "done")
    }))

  it.effect("answers at the deadline while the late effect's clean-up goes on behind it", () =>
    Effect.gen(function*() {
      const cleanedUp = yield* Ref.make(false)
      // A clean-up that takes 5 s, like a statement's drain against a frozen server.
      const late = Effect.never.pipe(
        Effect.onInterrupt(() => Effect.andThen(Effect.sleep(Duration.seconds(5)), Ref.set(cleanedUp, true)))
      )
      const answer = yield* withinOneSecond(late).pipe(Effect.exit, Effect.forkChild)
      yield* TestClock.adjust(Duration.seconds(1))
      const exit = answer.pollUnsafe()
      assert.isDefined(exit, "no answer at the deadline")
      assert.deepStrictEqual(exit, Exit.succeed(Exit.fail(new TooLate())))
      assert.isFalse(yield* Ref.get(cleanedUp))
      yield* TestClock.adjust(Duration.seconds(5))
      assert.isTrue(yield* Ref.get(cleanedUp))
    }))

  it.effect("interrupting the caller interrupts the effect", () =>
    Effect.gen(function*() {
      const started = yield* Deferred.make<void>()
      const interrupted = yield* Deferred.make<void>()
      const caller = yield* withinOneSecond(
        Deferred.succeed(started, undefined).pipe(
          Effect.andThen(Effect.never),
          Effect.onInterrupt(() => Deferred.succeed(interrupted, undefined))
        )
      ).pipe(Effect.forkChild)
      yield* Deferred.await(started)
      yield* Fiber.interrupt(caller)
      yield* Deferred.await(interrupted)
    }))

  it.effect("interrupting a caller that is already waiting interrupts the effect, and nothing answers later", () =>
    Effect.gen(function*() {
      const interrupted = yield* Deferred.make<void>()
      const caller = yield* withinOneSecond(Effect.never.pipe(Effect.onInterrupt(() => Deferred.succeed(interrupted, undefined)))).pipe(
        Effect.exit,
        Effect.forkChild
      )
      // Half the deadline: the caller is waiting on the effect and its timer.
      yield* TestClock.adjust(Duration.millis(500))
      assert.isUndefined(caller.pollUnsafe())
      yield* Fiber.interrupt(caller)
      yield* Deferred.await(interrupted)
      // The timer went with it: past the deadline, the caller's end is still the interruption.
      yield* TestClock.adjust(Duration.seconds(2))
      assert.isTrue(Exit.hasInterrupts(caller.pollUnsafe()!))
    }))
})
