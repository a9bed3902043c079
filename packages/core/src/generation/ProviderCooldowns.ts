/**
 * Cool-downs of language models: which models `ContentGenerator` leaves alone after a
 * 429, a 5xx or a time-out, and for how long. Kept in terms of durations ("60 000 ms
 * left"), so that the clocks of several instances need not agree: a store shared by the
 * instances (`PgProviderCooldowns` in `@coursekit/postgres`) measures them with its own
 * clock. `layerMemory` keeps them in this process. Adapters pass the conformance suite in
 * `@coursekit/core/testing`.
 *
 * @since 0.1.0
 */
import { Cause, Clock, Context, Duration, Effect, Exit, Layer } from "effect"
import * as Deadline from "../shared/Deadline.ts"
import type { LlmProvider } from "./LlmProvider.ts"

/**
 * Which models are cooling down. None of the methods fails: a cool-down is an
 * optimisation, and a store that cannot be read must never stop generation.
 *
 * - `remaining(keys)` answers, for each of `keys` that is cooling down, the milliseconds
 *   left (> 0); keys that are not cooling down are absent. One call reads all the keys.
 * - `coolDown(key, forMillis)` makes `key` cool down for `forMillis` from now, unless it
 *   already cools down longer: the later end wins, so one caller never shortens a
 *   cool-down another one set. `forMillis` that is not a positive number sets nothing.
 * - `clear(key)` ends `key`'s cool-down (after a success); clearing a key that is not
 *   cooling down does nothing.
 */
export class ProviderCooldowns extends Context.Service<ProviderCooldowns, {
  remaining(keys: ReadonlyArray<string>): Effect.Effect<ReadonlyMap<string, number>>
  coolDown(key: string, forMillis: number): Effect.Effect<void>
  clear(key: string): Effect.Effect<void>
}>()("@coursekit/core/ProviderCooldowns") {
  /** Cool-downs in this process, measured with Effect's `Clock` (so `TestClock` moves them). */
  static readonly layerMemory: Layer.Layer<ProviderCooldowns> = Layer.effect(
    ProviderCooldowns,
    Effect.sync(() => ProviderCooldowns.of(makeMemory()))
  )

  /**
   * The cool-downs of a store several instances share, which never fails and never
   * blocks: `store`'s calls run with a deadline, and this process keeps its own view
   * (what it set and what it last read). When a call fails or misses the deadline, the
   * process's own view answers, the store is left alone for `retryStoreAfter`, and one
   * warning is logged per outage (one info line when the store answers again). While
   * the store answers, it is the truth: what another instance cleared is cleared here too.
   * `clear` reaches the store only for a cool-down this process knows of (its last read
   * or its own write), so a success costs no statement in the common case.
   */
  static readonly makeShared = <E>(
    store: SharedCooldownStore<E>,
    options: SharedCooldownsOptions = {}
  ): Effect.Effect<ProviderCooldowns["Service"]> =>
    Effect.sync(() => ProviderCooldowns.of(makeShared(store, options)))
}

/**
 * The cool-down key of a model: `provider/model`, and where its requests go when the
 * adapter says (`openai/gpt-4o-mini@https://api.groq.com/openai/v1`), so that one model
 * served at two places cools down at each separately. No key holds a credential.
 */
export const cooldownKey = (model: Pick<LlmProvider["Service"], "provider" | "model" | "endpoint">): string =>
  model.endpoint === undefined ? `${model.provider}/${model.model}` : `${model.provider}/${model.model}@${model.endpoint}`

/**
 * The keys of a chain's steps, in order. A key that occurs again (the same model at the
 * same place, e.g. with a second API key) gets `#2`, `#3`, … so that each step cools down
 * on its own, as its quota does; instances with the same chain compute the same keys.
 */
export const cooldownKeys = (models: ReadonlyArray<Pick<LlmProvider["Service"], "provider" | "model" | "endpoint">>): ReadonlyArray<string> => {
  const seen = new Map<string, number>()
  return models.map((model) => {
    const key = cooldownKey(model)
    const count = (seen.get(key) ?? 0) + 1
    seen.set(key, count)
    return count === 1 ? key : `${key}#${count}`
  })
}

/** A shared store as its adapter reads and writes it: the same contract, with its own failures. */
export interface SharedCooldownStore<E> {
  remaining(keys: ReadonlyArray<string>): Effect.Effect<ReadonlyMap<string, number>, E>
  coolDown(key: string, forMillis: number): Effect.Effect<void, E>
  clear(key: string): Effect.Effect<void, E>
}

/** Options of {@link ProviderCooldowns.makeShared}. */
export interface SharedCooldownsOptions {
  /**
   * How long one read or write of the store may take before the process's own view
   * answers. Default {@link defaultStoreDeadline}.
   */
  readonly deadline?: Duration.Input | undefined
  /**
   * After a failed or late call, how long the store is not asked (the process's own view
   * answers), so that a frozen store does not add the deadline to every generation.
   * Default {@link defaultRetryStoreAfter}.
   */
  readonly retryStoreAfter?: Duration.Input | undefined
  /** Names the store in log lines; default `"shared store"`. */
  readonly storeName?: string | undefined
}

/** 200 ms: a healthy store answers in about a millisecond; a model call takes seconds. */
export const defaultStoreDeadline: Duration.Duration = Duration.millis(200)

/** 5 seconds. */
export const defaultRetryStoreAfter: Duration.Duration = Duration.seconds(5)

const coolingFor = (forMillis: number) => Number.isFinite(forMillis) && forMillis > 0

/** Until when each key cools down, in this process's clock (epoch ms). */
const makeMemory = () => {
  const until = new Map<string, number>()
  const remaining = (keys: ReadonlyArray<string>) =>
    Effect.map(Clock.currentTimeMillis, (now) => {
      const left = new Map<string, number>()
      for (const key of keys) {
        const end = until.get(key)
        if (end === undefined) continue
        if (end > now) left.set(key, end - now)
        else until.delete(key)
      }
      return left as ReadonlyMap<string, number>
    })
  const coolDown = (key: string, forMillis: number) =>
    coolingFor(forMillis)
      ? Effect.map(Clock.currentTimeMillis, (now) => {
        const end = now + forMillis
        if ((until.get(key) ?? 0) < end) until.set(key, end)
      })
      : Effect.void
  /** Ends `key`'s cool-down here; whether this view held one (ended or not). */
  const clear = (key: string) => Effect.sync(() => until.delete(key))
  /** Replaces what this view holds for `keys` with a store's answer, read at `now`. */
  const adopt = (keys: ReadonlyArray<string>, left: ReadonlyMap<string, number>, now: number) => {
    for (const key of keys) {
      const ms = left.get(key)
      if (ms === undefined) until.delete(key)
      else until.set(key, now + ms)
    }
  }
  return { remaining, coolDown, clear, adopt }
}

class StoreLate extends Error {}

const makeShared = <E>(store: SharedCooldownStore<E>, options: SharedCooldownsOptions) => {
  const own = makeMemory()
  const deadline = Duration.fromInputUnsafe(options.deadline ?? defaultStoreDeadline)
  const retryAfter = Duration.toMillis(Duration.fromInputUnsafe(options.retryStoreAfter ?? defaultRetryStoreAfter))
  const storeName = options.storeName ?? "shared store"
  /** Until when (this process's clock) the store is not asked. */
  let leftAloneUntil = 0
  let outage = false

  /** `effect` on the store within the deadline: its value, or nothing once the outage is handled. */
  const onStore = <A>(operation: string, effect: Effect.Effect<A, E>): Effect.Effect<A | undefined> =>
    Effect.gen(function*() {
      if ((yield* Clock.currentTimeMillis) < leftAloneUntil) return undefined
      const exit = yield* Effect.exit(effect.pipe(Deadline.within(deadline, () => new StoreLate())))
      if (Exit.isSuccess(exit)) {
        if (outage) {
          outage = false
          yield* Effect.logInfo(`provider cool-downs: the ${storeName} answers again`)
        }
        return exit.value
      }
      // Interrupted (the caller gave up, or the pool is closing): no sign of an outage.
      if (Cause.hasInterruptsOnly(exit.cause)) return undefined
      leftAloneUntil = (yield* Clock.currentTimeMillis) + retryAfter
      if (!outage) {
        outage = true
        const error = Cause.squash(exit.cause)
        yield* Effect.logWarning(
          `provider cool-downs: the ${storeName} could not be used; this process's own view answers until it can`,
          {
            operation,
            error: error instanceof StoreLate
              ? `no answer within ${Duration.format(deadline)}`
              : error instanceof Error ? error.message : String(error),
            retry_after_ms: retryAfter
          }
        )
      }
      return undefined
    })

  const remaining = Effect.fn("ProviderCooldowns.remaining")(function*(keys: ReadonlyArray<string>) {
    if (keys.length === 0) return new Map<string, number>() as ReadonlyMap<string, number>
    const read = yield* onStore("read", store.remaining(keys))
    if (read === undefined) return yield* own.remaining(keys)
    own.adopt(keys, read, yield* Clock.currentTimeMillis)
    return read
  })
  const coolDown = Effect.fn("ProviderCooldowns.coolDown")(function*(key: string, forMillis: number) {
    if (!coolingFor(forMillis)) return
    yield* own.coolDown(key, forMillis)
    yield* onStore("write", store.coolDown(key, forMillis))
  })
  // Only a cool-down this process knows of (its last read, its own write) is cleared in
  // the store: a success of a model that was not cooling down, the common case, costs no
  // statement. One another instance set after that read runs on: that instance's
  // provider asked for it after this call began.
  const clear = Effect.fn("ProviderCooldowns.clear")(function*(key: string) {
    if (yield* own.clear(key)) yield* onStore("clear", store.clear(key))
  })
  return { remaining, coolDown, clear }
}
