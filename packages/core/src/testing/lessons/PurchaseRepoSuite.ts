/**
 * The conformance suite every `PurchaseRepo` adapter runs, with the `Entitlements` it
 * provides and the `CourseRepo` of the same store.
 *
 * @since 0.1.0
 */
import { assert, describe, layer } from "@effect/vitest"
import { Effect, type Layer } from "effect"
import { CourseRepo } from "../../catalogue/CourseRepo.ts"
import { publishedNow } from "../../catalogue/Publishing.ts"
import { Entitlements } from "../../lessons/Entitlements.ts"
import { PurchaseRepo } from "../../lessons/PurchaseRepo.ts"
import type { UserId } from "../../shared/Viewer.ts"

const newCourse = Effect.gen(function*() {
  const title = `Purchases ${Math.random().toString(36).slice(2, 10)}`
  return (yield* (yield* CourseRepo).insert({ ...publishedNow, title, slugBase: title.toLowerCase().replace(/ /g, "-"), content_html: "" })).id
})
const newUser = () => `user|${Math.random().toString(36).slice(2, 10)}` as UserId

/** Registers the `PurchaseRepo` conformance tests for `repoLayer` under `name`. */
export const purchaseRepoSuite = <E>(name: string, repoLayer: Layer.Layer<PurchaseRepo | Entitlements | CourseRepo, E>): void => {
  describe(`PurchaseRepo conformance: ${name}`, () => {
    layer(repoLayer, { timeout: 60_000 })((it) => {
      it.effect("grant records the purchase once; Entitlements sees it; revoke removes it", () =>
        Effect.gen(function*() {
          const repo = yield* PurchaseRepo
          const entitlements = yield* Entitlements
          const courseId = yield* newCourse
          const other = yield* newCourse
          const user = newUser()
          assert.isFalse((yield* entitlements.purchasedAt(user, courseId)) !== undefined)
          const purchase = yield* repo.grant(courseId, user)
          assert.strictEqual(purchase.course_id, courseId)
          assert.strictEqual(purchase.user_id, user)
          assert.deepStrictEqual(yield* repo.grant(courseId, user), purchase, "granting again returns the first purchase")
          assert.isTrue(yield* repo.has(courseId, user))
          assert.deepStrictEqual(yield* entitlements.purchasedAt(user, courseId), purchase.purchased_at, "the purchase's own instant")
          assert.deepStrictEqual(yield* repo.find(courseId, user), purchase)
          assert.isFalse((yield* entitlements.purchasedAt(user, other)) !== undefined, "another course is not bought")
          assert.isFalse((yield* entitlements.purchasedAt(newUser(), courseId)) !== undefined, "another user has not bought it")
          assert.isTrue(yield* repo.revoke(courseId, user))
          assert.isFalse(yield* repo.revoke(courseId, user), "revoking again succeeds and removes nothing")
          assert.isFalse((yield* entitlements.purchasedAt(user, courseId)) !== undefined)
        }))

      it.effect("buyers lists a course's purchases by user id; find answers one or none", () =>
        Effect.gen(function*() {
          const repo = yield* PurchaseRepo
          const courseId = yield* newCourse
          const users = [newUser(), newUser(), newUser()]
          for (const user of users) yield* repo.grant(courseId, user)
          yield* repo.revoke(courseId, users[1]!)
          const buyers = yield* repo.buyers(courseId)
          assert.deepStrictEqual(buyers.map((purchase) => purchase.user_id), [users[0]!, users[2]!].sort())
          assert.deepStrictEqual(buyers.map((purchase) => purchase.course_id), [courseId, courseId])
          assert.isUndefined(yield* repo.find(courseId, users[1]!))
          assert.deepStrictEqual(yield* repo.buyers(yield* newCourse), [])
        }))

      it.effect("an unknown course is CourseNotFound", () =>
        Effect.gen(function*() {
          const courseId = yield* newCourse
          yield* (yield* CourseRepo).delete(courseId)
          const error = yield* Effect.flip((yield* PurchaseRepo).grant(courseId, newUser()))
          assert.strictEqual(error._tag, "CourseNotFound")
        }))

      it.effect("concurrent grants of one pair leave one purchase, and all return it", () =>
        Effect.gen(function*() {
          const repo = yield* PurchaseRepo
          const courseId = yield* newCourse
          const user = newUser()
          const results = yield* Effect.forEach(Array.from({ length: 20 }), () => repo.grant(courseId, user), { concurrency: "unbounded" })
          assert.strictEqual(new Set(results.map((purchase) => String(purchase.purchased_at.epochMilliseconds))).size, 1)
          assert.isTrue(yield* repo.revoke(courseId, user))
          assert.isFalse(yield* repo.has(courseId, user))
        }))

      it.effect("deleting the course deletes its purchases", () =>
        Effect.gen(function*() {
          const repo = yield* PurchaseRepo
          const courseId = yield* newCourse
          const user = newUser()
          yield* repo.grant(courseId, user)
          yield* (yield* CourseRepo).delete(courseId)
          assert.isFalse(yield* repo.has(courseId, user))
          assert.isFalse((yield* (yield* Entitlements).purchasedAt(user, courseId)) !== undefined)
        }))
    })
  })
}
