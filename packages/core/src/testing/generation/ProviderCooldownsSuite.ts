/**
 * The conformance suite every `ProviderCooldowns` adapter runs. It uses the real clock
 * (a cool-down must end by itself) and keys of its own, so a shared store may hold other
 * keys.
 *
 * @since 0.1.0
 */
import { assert, describe, layer } from "@effect/vitest"
import { Duration, Effect, type Layer } from "effect"
import { ProviderCooldowns } from "../../generation/ProviderCooldowns.ts"

const newKey = (label = "model") => `suite-${Math.random().toString(36).slice(2, 10)}/${label}`

/** Asserts that `key` has between `least` and `most` milliseconds left. */
const assertLeft = (left: ReadonlyMap<string, number>, key: string, least: number, most: number) => {
  const ms = left.get(key)
  assert.isDefined(ms, `${key} cools down`)
  assert.isAtLeast(ms!, least, key)
  assert.isAtMost(ms!, most, key)
}

/** Registers the `ProviderCooldowns` conformance tests for `cooldownsLayer` under `name`. */
export const providerCooldownsSuite = <E>(name: string, cooldownsLayer: Layer.Layer<ProviderCooldowns, E>): void => {
  describe(`ProviderCooldowns conformance: ${name}`, () => {
    layer(cooldownsLayer, { timeout: 60_000, excludeTestServices: true })((it) => {
      it.effect("a key that never cooled down is absent; asking for no key answers nothing", () =>
        Effect.gen(function*() {
          const cooldowns = yield* ProviderCooldowns
          assert.strictEqual((yield* cooldowns.remaining([newKey(), newKey()])).size, 0)
          assert.strictEqual((yield* cooldowns.remaining([])).size, 0)
        }))

      it.effect("coolDown: the key cools down for that long, and no other key does", () =>
        Effect.gen(function*() {
          const cooldowns = yield* ProviderCooldowns
          const [key, other] = [newKey(), newKey()]
          yield* cooldowns.coolDown(key, 60_000)
          const left = yield* cooldowns.remaining([key, other])
          assert.deepStrictEqual([...left.keys()], [key])
          assertLeft(left, key, 55_000, 60_000)
        }))

      it.effect("the later end wins: a shorter cool-down does not shorten it, a longer one extends it", () =>
        Effect.gen(function*() {
          const cooldowns = yield* ProviderCooldowns
          const key = newKey()
          yield* cooldowns.coolDown(key, 60_000)
          yield* cooldowns.coolDown(key, 10_000)
          assertLeft(yield* cooldowns.remaining([key]), key, 55_000, 60_000)
          yield* cooldowns.coolDown(key, 120_000)
          assertLeft(yield* cooldowns.remaining([key]), key, 115_000, 120_000)
        }))

      it.effect("concurrent cool-downs of one key keep the longest", () =>
        Effect.gen(function*() {
          const cooldowns = yield* ProviderCooldowns
          const key = newKey()
          const durations = Array.from({ length: 20 }, (_, i) => (i + 1) * 10_000)
          yield* Effect.forEach(durations.toReversed(), (ms) => cooldowns.coolDown(key, ms), { concurrency: "unbounded" })
          assertLeft(yield* cooldowns.remaining([key]), key, 195_000, 200_000)
        }))

      it.effect("clear ends the cool-down of that key only; clearing a key that is not cooling down does nothing", () =>
        Effect.gen(function*() {
          const cooldowns = yield* ProviderCooldowns
          const [key, other] = [newKey(), newKey()]
          yield* cooldowns.coolDown(key, 60_000)
          yield* cooldowns.coolDown(other, 60_000)
          yield* cooldowns.clear(key)
          yield* cooldowns.clear(key)
          yield* cooldowns.clear(newKey())
          assert.deepStrictEqual([...(yield* cooldowns.remaining([key, other])).keys()], [other])
          // A cleared key cools down again as new.
          yield* cooldowns.coolDown(key, 5_000)
          assertLeft(yield* cooldowns.remaining([key]), key, 1_000, 5_000)
        }))

      it.effect("a cool-down ends by itself", () =>
        Effect.gen(function*() {
          const cooldowns = yield* ProviderCooldowns
          const key = newKey()
          yield* cooldowns.coolDown(key, 300)
          assertLeft(yield* cooldowns.remaining([key]), key, 1, 300)
          yield* Effect.sleep(Duration.millis(500))
          assert.strictEqual((yield* cooldowns.remaining([key])).size, 0)
          // An ended cool-down does not hold back a new, shorter one.
          yield* cooldowns.coolDown(key, 10_000)
          assertLeft(yield* cooldowns.remaining([key]), key, 5_000, 10_000)
        }))

      it.effect("a zero, negative or non-finite duration sets nothing", () =>
        Effect.gen(function*() {
          const cooldowns = yield* ProviderCooldowns
          const key = newKey()
          for (const ms of [0, -5_000, Number.NaN, Number.POSITIVE_INFINITY]) yield* cooldowns.coolDown(key, ms)
          assert.strictEqual((yield* cooldowns.remaining([key])).size, 0)
        }))

      it.effect("a very long duration cools down for a very long time", () =>
        Effect.gen(function*() {
          const cooldowns = yield* ProviderCooldowns
          const key = newKey()
          yield* cooldowns.coolDown(key, 1e20)
          assert.isAbove((yield* cooldowns.remaining([key])).get(key) ?? 0, 365 * 24 * 3_600_000)
        }))

      it.effect("keys are kept apart exactly as given: endpoints, quotes, NUL, backslashes, non-ASCII, long keys", () =>
        Effect.gen(function*() {
          const cooldowns = yield* ProviderCooldowns
          const base = newKey("gpt-4o-mini")
          const keys = [
            base,
            `${base}@https://api.groq.com/openai/v1`,
            `${base}@https://api.groq.com/openai/v1#2`,
            `${base.toUpperCase()}`,
            `${base} '; DROP TABLE x; --`,
            `${base}/模型-ü-🙂`,
            `${base}/a\u0000b`,
            `${base}/a\\0b`,
            `${base}/a\\\u0000b`,
            `${base}/${"x".repeat(1000)}`,
            `${base}/${"模".repeat(3000)}`,
            `${base}/${"模".repeat(3000)}/2`
          ]
          for (const [i, key] of keys.entries()) yield* cooldowns.coolDown(key, (i + 1) * 10_000)
          const left = yield* cooldowns.remaining(keys)
          assert.strictEqual(left.size, keys.length)
          for (const [i, key] of keys.entries()) assertLeft(left, key, (i + 1) * 10_000 - 5_000, (i + 1) * 10_000)
          yield* cooldowns.clear(keys[1]!)
          assert.isFalse((yield* cooldowns.remaining(keys)).has(keys[1]!))
          assert.strictEqual((yield* cooldowns.remaining(keys)).size, keys.length - 1)
        }))
    })
  })
}
