/**
 * The conformance suite every `AdminSessionRepo` adapter runs. It uses the real clock
 * (idleness is the store's clock's, which a test clock cannot move) with windows of a
 * second or so, and keys of its own, so a shared store may hold other sessions.
 *
 * @since 0.3.0
 */
import { assert, describe, layer } from "@effect/vitest"
import { Duration, Effect, type Layer } from "effect"
import { AdminSessionRepo, type AdminSessionWindow } from "../../sessions/AdminSessionRepo.ts"

/** A key as the HTTP layer makes them: 64 hex digits. */
const newKey = () => Array.from({ length: 64 }, () => Math.floor(Math.random() * 16).toString(16)).join("")

const hour = Duration.hours(1)
/** A window no test outlives: a session is over only when removed. */
const longWindow: AdminSessionWindow = { idle: hour, refreshAfter: Duration.zero }

/** Registers the `AdminSessionRepo` conformance tests for `repoLayer` under `name`. */
export const adminSessionRepoSuite = <E>(name: string, repoLayer: Layer.Layer<AdminSessionRepo, E>): void => {
  describe(`AdminSessionRepo conformance: ${name}`, () => {
    layer(repoLayer, { timeout: 60_000, excludeTestServices: true })((it) => {
      it.effect("a created session answers its principal; an unknown key answers nothing", () =>
        Effect.gen(function*() {
          const repo = yield* AdminSessionRepo
          const [ada, grace] = [newKey(), newKey()]
          yield* repo.create(ada, "principal-ada", hour)
          yield* repo.create(grace, "principal-grace", hour)
          assert.strictEqual(yield* repo.use(ada, longWindow), "principal-ada")
          assert.strictEqual(yield* repo.use(grace, longWindow), "principal-grace")
          assert.strictEqual(yield* repo.use(ada, longWindow), "principal-ada", "a use does not consume it")
          assert.isUndefined(yield* repo.use(newKey(), longWindow))
        }))

      it.effect("remove ends that session only, for good; removing an unknown key does nothing", () =>
        Effect.gen(function*() {
          const repo = yield* AdminSessionRepo
          const [ended, other] = [newKey(), newKey()]
          yield* repo.create(ended, "principal", hour)
          yield* repo.create(other, "principal", hour)
          yield* repo.remove(ended)
          yield* repo.remove(ended)
          yield* repo.remove(newKey())
          assert.isUndefined(yield* repo.use(ended, longWindow))
          assert.isUndefined(yield* repo.use(ended, longWindow), "a second use after the removal")
          assert.strictEqual(yield* repo.use(other, longWindow), "principal")
        }))

      it.effect("a session idle for longer than the window is over", () =>
        Effect.gen(function*() {
          const repo = yield* AdminSessionRepo
          const key = newKey()
          yield* repo.create(key, "principal", hour)
          const window = { idle: Duration.millis(800), refreshAfter: Duration.zero }
          assert.strictEqual(yield* repo.use(key, window), "principal")
          yield* Effect.sleep(Duration.millis(1_100))
          assert.isUndefined(yield* repo.use(key, window))
        }))

      it.effect("a use keeps the session alive: the window counts from the last use, not from the sign-in", () =>
        Effect.gen(function*() {
          const repo = yield* AdminSessionRepo
          const key = newKey()
          const window = { idle: Duration.millis(1_200), refreshAfter: Duration.millis(100) }
          yield* repo.create(key, "principal", hour)
          // Four uses 700 ms apart: 2.8 s after the sign-in, each within 1.2 s of the one before.
          for (let use = 0; use < 4; use++) {
            yield* Effect.sleep(Duration.millis(700))
            assert.strictEqual(yield* repo.use(key, window), "principal", `use ${use + 1}`)
          }
          yield* Effect.sleep(Duration.millis(1_500))
          assert.isUndefined(yield* repo.use(key, window), "idle since the last use")
        }))

      it.effect("a use within refreshAfter of the last one writes nothing: the window still counts from that one", () =>
        Effect.gen(function*() {
          const repo = yield* AdminSessionRepo
          const key = newKey()
          const window = { idle: Duration.millis(1_200), refreshAfter: Duration.minutes(1) }
          yield* repo.create(key, "principal", hour)
          yield* Effect.sleep(Duration.millis(700))
          assert.strictEqual(yield* repo.use(key, window), "principal")
          yield* Effect.sleep(Duration.millis(700))
          // 1.4 s after the sign-in, the last write: the use 0.7 s ago did not move it.
          assert.isUndefined(yield* repo.use(key, window))
        }))

      it.effect("create removes the sessions idle for longer than its window, and keeps the others", () =>
        Effect.gen(function*() {
          const repo = yield* AdminSessionRepo
          const [old, recent] = [newKey(), newKey()]
          yield* repo.create(old, "principal-old", hour)
          yield* Effect.sleep(Duration.millis(1_000))
          yield* repo.create(recent, "principal-recent", hour)
          yield* repo.create(newKey(), "principal-new", Duration.millis(600))
          // Asked with a window it would still be within: it was removed, not merely over.
          assert.isUndefined(yield* repo.use(old, longWindow))
          assert.strictEqual(yield* repo.use(recent, longWindow), "principal-recent")
        }))

      it.effect("twenty sessions created at once are each their own", () =>
        Effect.gen(function*() {
          const repo = yield* AdminSessionRepo
          const keys = Array.from({ length: 20 }, newKey)
          yield* Effect.forEach(keys, (key, index) => repo.create(key, `principal-${index}`, hour), { concurrency: "unbounded" })
          const principals = yield* Effect.forEach(keys, (key) => repo.use(key, longWindow), { concurrency: "unbounded" })
          assert.deepStrictEqual(principals, keys.map((_, index) => `principal-${index}`))
        }))

      it.effect("principals are kept exactly as given", () =>
        Effect.gen(function*() {
          const repo = yield* AdminSessionRepo
          const principals = ["ada", "Ada", "a".repeat(500), "'; DROP TABLE admin_sessions; --", "模型-ü-🙂", "a\\0b"]
          const keys = principals.map(newKey)
          yield* Effect.forEach(keys, (key, index) => repo.create(key, principals[index]!, hour))
          assert.deepStrictEqual(yield* Effect.forEach(keys, (key) => repo.use(key, longWindow)), principals)
        }))
    })
  })
}
