import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import {
  anonymousViewer,
  CourseRepo,
  Entitlements,
  FileUrl,
  LessonRepo,
  MediaRepo,
  MediaUrls,
  ObjectStore,
  publishedNow,
  PublicCourseRows,
  PublicCourses,
  PurchaseRepo,
  readFromPorts,
  signedInViewer,
  UserId
} from "../../src/index.ts"

const vip = Schema.decodeUnknownSync(UserId)("host|vip")

const ports = Layer.mergeAll(LessonRepo.layerMemory, PurchaseRepo.layerMemory, MediaRepo.layerMemory, ObjectStore.layerMemory).pipe(
  Layer.provideMerge(CourseRepo.layerMemory)
)

/** A reader that reads through the ports and counts its reads, agreeing with `entitlementsOf`'s answer. */
const countingRows = (reads: { count: number }, entitlementsOf: (inContext: Entitlements["Service"]) => Entitlements["Service"]) =>
  Layer.effect(
    PublicCourseRows,
    Effect.gen(function*() {
      const read = readFromPorts(yield* CourseRepo, yield* LessonRepo, yield* Entitlements)
      return PublicCourseRows.of({
        entitlements: entitlementsOf(yield* Entitlements),
        read: (slug, viewer) => Effect.suspend(() => (reads.count++, read(slug, viewer)))
      })
    })
  )

/** `PublicCourses` over the memory ports, `rows` and `entitlements` (default: the memory store's). */
const publicCourses = (rows: Layer.Layer<PublicCourseRows, never, CourseRepo | LessonRepo | Entitlements>, entitlements?: Entitlements["Service"]) => {
  const withEntitlements = entitlements === undefined ? ports : Layer.merge(ports, Layer.succeed(Entitlements, entitlements))
  return PublicCourses.layerNoDeps.pipe(
    Layer.provide(rows),
    Layer.provide(MediaUrls.layer().pipe(Layer.provideMerge(FileUrl.layer("https://cdn.example.com")))),
    Layer.provideMerge(withEntitlements)
  )
}

const course = Effect.gen(function*() {
  const created = yield* (yield* CourseRepo).insert({ ...publishedNow, title: "Rows", slugBase: "rows", content_html: "" })
  yield* (yield* LessonRepo).insert(created.id, { ...publishedNow, title: "Paid", content_html: "<p>PAID</p>", video_key: null, is_preview: false, section_id: null })
  return created
})

describe("PublicCourses and an adapter's PublicCourseRows", () => {
  it.effect("reads through the adapter's reader when it agrees with the Entitlements given", () => {
    const reads = { count: 0 }
    return Effect.gen(function*() {
      const { slug } = yield* course
      const view = yield* (yield* PublicCourses).view(slug, anonymousViewer)
      assert.strictEqual(reads.count, 1)
      assert.deepStrictEqual(view.lessons.map((lesson) => lesson.access), ["locked"])
    }).pipe(Effect.provide(publicCourses(countingRows(reads, (inContext) => inContext))))
  })

  it.effect("asks a host's own Entitlements through the ports when the reader agrees with another", () => {
    const reads = { count: 0 }
    const hostEntitlements = Entitlements.of({ hasPurchased: (userId) => Effect.succeed(userId === vip) })
    return Effect.gen(function*() {
      const { slug } = yield* course
      const view = yield* (yield* PublicCourses).view(slug, signedInViewer(vip))
      assert.strictEqual(reads.count, 0)
      assert.isTrue(view.purchased)
      assert.deepStrictEqual(view.lessons.map((lesson) => [lesson.access, lesson.content_html]), [["purchased", "<p>PAID</p>"]])
    }).pipe(Effect.provide(publicCourses(countingRows(reads, () => Entitlements.of({ hasPurchased: () => Effect.succeed(false) })), hostEntitlements)))
  })
})
