/**
 * The admin session repository port: where the sessions of admins who signed in with a
 * browser are kept, so that every instance knows them, a sign-out counts everywhere at
 * once and a restart keeps them. The store's clock decides how long a session has been
 * idle, so the instances' clocks need not agree. Adapters (PostgreSQL, PGlite, the
 * in-memory layer here) pass `adminSessionRepoSuite` in `@coursekit/core/testing`.
 *
 * @since 0.3.0
 */
import { Clock, Context, Duration, Effect, Layer, Ref } from "effect"
import type { PersistenceError } from "../shared/PersistenceError.ts"

/** How long a session lives without use, and how often a use is written down. */
export interface AdminSessionWindow {
  /** A session not used for this long is over. */
  readonly idle: Duration.Duration
  /**
   * A use writes the session's last-seen instant only when it is older than this, so a
   * burst of requests costs one write; a session may then end up to this much earlier
   * than `idle` after its last use.
   */
  readonly refreshAfter: Duration.Duration
}

/**
 * Stores admin sessions by `key`, a digest of the session's secret id (the id itself is
 * only in the browser's cookie, so the store's contents sign no one in). `principal` is
 * who signed in, in the caller's own terms; the store keeps it as it is.
 *
 * - `create(key, principal, idle)` stores a new session, seen now; keys are unique (a
 *   digest of a random id). In the same step it removes every session idle for longer
 *   than `idle`, so the store holds live sessions and those that ran out since the last
 *   sign-in.
 * - `use(key, window)` answers the principal of the session `key` when it was seen
 *   within `window.idle` (by the store's clock), and writes that it is seen now when its
 *   last-seen instant is older than `window.refreshAfter`; `undefined` for a session that
 *   is idle for longer, removed, or was never stored.
 * - `remove(key)` ends the session for every later `use`; removing an unknown key does
 *   nothing.
 */
export class AdminSessionRepo extends Context.Service<AdminSessionRepo, {
  create(key: string, principal: string, idle: Duration.Duration): Effect.Effect<void, PersistenceError>
  use(key: string, window: AdminSessionWindow): Effect.Effect<string | undefined, PersistenceError>
  remove(key: string): Effect.Effect<void, PersistenceError>
}>()("@coursekit/core/AdminSessionRepo") {
  /** In this process, by Effect's `Clock` (so `TestClock` moves it): for tests and trials. */
  static readonly layerMemory: Layer.Layer<AdminSessionRepo> = Layer.effect(
    AdminSessionRepo,
    Effect.gen(function*() {
      const sessions = yield* Ref.make(new Map<string, { readonly principal: string; readonly seenAt: number }>())
      const create = Effect.fn("AdminSessionRepo.create")(function*(key: string, principal: string, idle: Duration.Duration) {
        const now = yield* Clock.currentTimeMillis
        const oldest = now - Duration.toMillis(idle)
        yield* Ref.update(sessions, (all) => {
          const kept = new Map([...all].filter(([, session]) => session.seenAt > oldest))
          return kept.set(key, { principal, seenAt: now })
        })
      })
      const use = Effect.fn("AdminSessionRepo.use")(function*(key: string, window: AdminSessionWindow) {
        const now = yield* Clock.currentTimeMillis
        return yield* Ref.modify(sessions, (all): readonly [string | undefined, Map<string, { readonly principal: string; readonly seenAt: number }>] => {
          const session = all.get(key)
          if (session === undefined || session.seenAt <= now - Duration.toMillis(window.idle)) return [undefined, all]
          if (session.seenAt > now - Duration.toMillis(window.refreshAfter)) return [session.principal, all]
          return [session.principal, new Map(all).set(key, { principal: session.principal, seenAt: now })]
        })
      })
      const remove = Effect.fn("AdminSessionRepo.remove")(function*(key: string) {
        yield* Ref.update(sessions, (all) => {
          if (!all.has(key)) return all
          const rest = new Map(all)
          rest.delete(key)
          return rest
        })
      })
      return AdminSessionRepo.of({ create, use, remove })
    })
  )
}
