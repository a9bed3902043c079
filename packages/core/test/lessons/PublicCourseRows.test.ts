import { assert, describe, it } from "@effect/vitest"
import { Cause, DateTime, Effect, Exit, Layer, Schema } from "effect"
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

/** A reader that reads through the ports and counts its reads, as an adapter's reader would stand in for them. */
const countingRows = (reads: { count: number }) =>
  Layer.effect(
    PublicCourseRows,
    Effect.gen(function*() {
      const read = readFromPorts(yield* CourseRepo, yield* LessonRepo, yield* Entitlements)
      return PublicCourseRows.of({ read: (slug, viewer) => Effect.suspend(() => (reads.count++, read(slug, viewer))) })
    })
  )

const media = MediaUrls.layer().pipe(Layer.provideMerge(FileUrl.layer("https://cdn.example.com")))

/** `PublicCourses` over the reader `rows`, which reads the memory ports and `entitlements` (default: the memory store's). */
const publicCourses = (rows: Layer.Layer<PublicCourseRows, never, CourseRepo | LessonRepo | Entitlements>, entitlements?: Entitlements["Service"]) => {
  const withEntitlements = entitlements === undefined ? ports : Layer.merge(ports, Layer.succeed(Entitlements, entitlements))
  return PublicCourses.layerNoDeps.pipe(Layer.provide(rows), Layer.provide(media), Layer.provideMerge(withEntitlements))
}

const course = Effect.gen(function*() {
  const created = yield* (yield* CourseRepo).insert({ ...publishedNow, title: "Rows", slugBase: "rows", content_html: "" })
  yield* (yield* LessonRepo).insert(created.id, { ...publishedNow, title: "Paid", content_html: "<p>PAID</p>", video_key: null, is_preview: false, section_id: null })
  return created
})

describe("PublicCourses and the PublicCourseRows reader the layers provide", () => {
  it.effect("reads through the reader provided, once per view", () => {
    const reads = { count: 0 }
    return Effect.gen(function*() {
      const { slug } = yield* course
      const view = yield* (yield* PublicCourses).view(slug, anonymousViewer)
      assert.strictEqual(reads.count, 1)
      assert.deepStrictEqual(view.lessons.map((lesson) => lesson.access), ["locked"])
    }).pipe(Effect.provide(publicCourses(countingRows(reads))))
  })

  it.effect("with the ports' reader over a host's own Entitlements, the host is the one asked", () => {
    const hostEntitlements = Entitlements.of({ purchasedAt: (userId) => Effect.succeed(userId === vip ? DateTime.makeUnsafe(0) : undefined) })
    return Effect.gen(function*() {
      const { slug } = yield* course
      const view = yield* (yield* PublicCourses).view(slug, signedInViewer(vip))
      assert.isTrue(view.purchased)
      assert.deepStrictEqual(view.lessons.map((lesson) => [lesson.access, lesson.content_html]), [["purchased", "<p>PAID</p>"]])
    }).pipe(Effect.provide(publicCourses(PublicCourseRows.layerFromPorts, hostEntitlements)))
  })

  it.effect("without a reader the composition does not compile, and does not build", () =>
    Effect.gen(function*() {
      // @ts-expect-error: PublicCourses needs a PublicCourseRows reader, and none is provided.
      const incomplete: Layer.Layer<PublicCourses> = PublicCourses.layerNoDeps.pipe(Layer.provide(media), Layer.provide(ports))
      const built = yield* Effect.exit(Effect.scoped(Layer.build(incomplete)))
      assert.isTrue(Exit.isFailure(built))
      assert.include(String(Exit.isFailure(built) ? Cause.squash(built.cause) : ""), "Service not found: @coursekit/core/PublicCourseRows")
    }))
})
