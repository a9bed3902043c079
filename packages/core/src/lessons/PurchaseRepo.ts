/**
 * The purchase repository port: purchases recorded by the admin API
 * (`PUT|DELETE /admin/courses/{id}/purchases/{user_id}`). Its layers provide
 * `Entitlements` from the same records. Adapters pass the conformance suite in
 * `@coursekit/core/testing`.
 *
 * @since 0.1.0
 */
import { Context, DateTime, Effect, Layer, Ref } from "effect"
import { type CourseId, CourseNotFound } from "../catalogue/Course.ts"
import { CourseRepo } from "../catalogue/CourseRepo.ts"
import { Entitlements } from "./Entitlements.ts"
import type { PersistenceError } from "../shared/PersistenceError.ts"
import type { Purchase } from "./Purchase.ts"
import type { UserId } from "../shared/Viewer.ts"

/**
 * Stores purchases.
 *
 * - `grant` is idempotent: granting again returns the first purchase unchanged; many
 *   concurrent grants of one pair leave one purchase. An unknown course fails with
 *   `CourseNotFound`.
 * - `revoke` is idempotent: revoking what is not there succeeds. It returns whether a
 *   purchase was removed.
 * - Deleting a course deletes its purchases.
 */
export class PurchaseRepo extends Context.Service<PurchaseRepo, {
  grant(courseId: CourseId, userId: UserId): Effect.Effect<Purchase, CourseNotFound | PersistenceError>
  revoke(courseId: CourseId, userId: UserId): Effect.Effect<boolean, PersistenceError>
  has(courseId: CourseId, userId: UserId): Effect.Effect<boolean, PersistenceError>
  /** The purchase of the pair, if there is one. */
  find(courseId: CourseId, userId: UserId): Effect.Effect<Purchase | undefined, PersistenceError>
  /** Every purchase of the course, by user id. */
  buyers(courseId: CourseId): Effect.Effect<ReadonlyArray<Purchase>, PersistenceError>
}>()("@coursekit/core/PurchaseRepo") {
  /**
   * In-memory purchases over the `CourseRepo` in context, and `Entitlements` answered
   * from them: for tests and for trying the core without a database.
   */
  static readonly layerMemory: Layer.Layer<PurchaseRepo | Entitlements, never, CourseRepo> = Layer.effectContext(
    Effect.gen(function*() {
      const courses = yield* CourseRepo
      const purchases = yield* Ref.make(new Map<string, Purchase>())
      const keyOf = (courseId: CourseId, userId: UserId) => `${courseId}\u0000${userId}`
      const courseExists = (courseId: CourseId) =>
        courses.findById(courseId).pipe(Effect.as(true), Effect.catchTag("CourseNotFound", () => Effect.succeed(false)))

      const grant = Effect.fn("PurchaseRepo.grant")(function*(courseId: CourseId, userId: UserId) {
        if (!(yield* courseExists(courseId))) return yield* new CourseNotFound({ id: courseId })
        const now = yield* DateTime.now
        return yield* Ref.modify(purchases, (current) => {
          const existing = current.get(keyOf(courseId, userId))
          if (existing !== undefined) return [existing, current]
          const purchase: Purchase = { course_id: courseId, user_id: userId, purchased_at: now }
          return [purchase, new Map(current).set(keyOf(courseId, userId), purchase)]
        })
      })
      const revoke = (courseId: CourseId, userId: UserId) =>
        Ref.modify(purchases, (current) => {
          if (!current.has(keyOf(courseId, userId))) return [false, current]
          const next = new Map(current)
          next.delete(keyOf(courseId, userId))
          return [true, next]
        })
      // A purchase of a deleted course counts for nothing (course ids are never reused).
      const find = Effect.fn("PurchaseRepo.find")(function*(courseId: CourseId, userId: UserId) {
        const purchase = (yield* Ref.get(purchases)).get(keyOf(courseId, userId))
        return purchase !== undefined && (yield* courseExists(courseId)) ? purchase : undefined
      })
      const has = (courseId: CourseId, userId: UserId) => Effect.map(find(courseId, userId), (purchase) => purchase !== undefined)
      const buyers = Effect.fn("PurchaseRepo.buyers")(function*(courseId: CourseId) {
        if (!(yield* courseExists(courseId))) return []
        return [...(yield* Ref.get(purchases)).values()]
          .filter((purchase) => purchase.course_id === courseId)
          .sort((a, b) => (a.user_id < b.user_id ? -1 : a.user_id > b.user_id ? 1 : 0))
      })
      return Context.make(PurchaseRepo, PurchaseRepo.of({ grant, revoke, has, find, buyers })).pipe(
        Context.add(Entitlements, Entitlements.of({
          purchasedAt: (userId, courseId) => Effect.map(find(courseId, userId), (purchase) => purchase?.purchased_at)
        }))
      )
    })
  )
}
