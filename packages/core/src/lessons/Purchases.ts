/**
 * The purchase use cases of the admin API: record that a user bought a course, or take
 * it back. Both are idempotent.
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer } from "effect"
import type { CourseId, CourseNotFound } from "../catalogue/Course.ts"
import { CourseRepo } from "../catalogue/CourseRepo.ts"
import type { PersistenceError } from "../shared/PersistenceError.ts"
import type { Purchase } from "./Purchase.ts"
import { PurchaseRepo } from "./PurchaseRepo.ts"
import type { UserId } from "../shared/Viewer.ts"

export class Purchases extends Context.Service<Purchases, {
  /** Records the purchase; again, it returns the first record unchanged. */
  grant(courseId: CourseId, userId: UserId): Effect.Effect<Purchase, CourseNotFound | PersistenceError>
  /** Removes the purchase if there is one; access ends at once. */
  revoke(courseId: CourseId, userId: UserId): Effect.Effect<void, CourseNotFound | PersistenceError>
}>()("@coursekit/core/Purchases") {
  static readonly layerNoDeps: Layer.Layer<Purchases, never, PurchaseRepo | CourseRepo> = Layer.effect(
    Purchases,
    Effect.gen(function*() {
      const repo = yield* PurchaseRepo
      const courses = yield* CourseRepo
      return Purchases.of({
        grant: (courseId, userId) => repo.grant(courseId, userId).pipe(Effect.withSpan("Purchases.grant")),
        revoke: Effect.fn("Purchases.revoke")(function*(courseId: CourseId, userId: UserId) {
          yield* courses.findById(courseId)
          yield* repo.revoke(courseId, userId)
        })
      })
    })
  )
}
