import { assert, describe, it } from "@effect/vitest"
import { DateTime, Effect, Schema } from "effect"
import {
  anonymousViewer,
  Courses,
  type CourseId,
  Lessons,
  MediaRepo,
  MemoryCoursekit,
  CoursePreview,
  PublicCourse,
  PublicCourses,
  Purchases,
  signedInViewer,
  UserId
} from "../../src/index.ts"

const withCore = Effect.provide(MemoryCoursekit.layerMemory({ cdnUrl: "https://cdn.example.com" }))
const buyer = Schema.decodeUnknownSync(UserId)("auth0|buyer")
const stranger = Schema.decodeUnknownSync(UserId)("auth0|stranger")

const video = (key: string) =>
  Effect.gen(function*() {
    yield* (yield* MediaRepo).upsert({ key, name: key, size_bytes: 10, content_type: "video/mp4" })
    return key
  })

/** A course with a preview lesson and a paid one, whose texts are easy to look for. */
const courseWithLessons = Effect.gen(function*() {
  const course = yield* (yield* Courses).create({ title: "Sourdough", content_html: "<p>About bread</p>" })
  const lessons = yield* Lessons
  const preview = yield* lessons.create(course.id, {
    title: "Starter",
    content_html: "<p>FREE-STARTER-TEXT</p>",
    video_key: yield* video("media/free.mp4"),
    is_preview: true
  })
  const paid = yield* lessons.create(course.id, {
    title: "Shaping",
    content_html: "<p>PAID-SHAPING-TEXT</p>",
    video_key: yield* video("private/media/paid.mp4")
  })
  return { course, preview, paid }
})

describe("Lessons", () => {
  it.effect("create sanitizes the body, places the lesson, and derives video_url from a finalized media file", () =>
    Effect.gen(function*() {
      const { course, preview, paid } = yield* courseWithLessons
      assert.strictEqual(preview.position, 1)
      assert.strictEqual(paid.position, 2)
      // A private video is signed for the response that shows it (the memory store's URL), for 4 hours.
      assert.match(paid.video_url!, /^memory:\/\/files\/private%2Fmedia%2Fpaid\.mp4\?expires=14400&signature=\d+$/)
      assert.strictEqual(DateTime.formatIso(paid.video_url_expires_at!), "1970-01-01T04:00:00.000Z")
      assert.strictEqual(preview.video_url, "https://cdn.example.com/media/free.mp4")
      assert.isNull(preview.video_url_expires_at)
      const lessons = yield* Lessons
      const sanitized = yield* lessons.create(course.id, {
        title: "Baking",
        content_html: `<p onclick="x()">Bake<script>alert(1)</script></p>`,
        position: 1
      })
      assert.strictEqual(sanitized.content_html, "<p>Bake</p>")
      assert.isNull(sanitized.video_url)
      assert.isFalse(sanitized.is_preview)
      assert.deepStrictEqual((yield* lessons.list(course.id)).map((lesson) => lesson.title), ["Baking", "Starter", "Shaping"])
    }).pipe(withCore))

  it.effect("a video_key that names no finalized media file is VideoNotFound, and nothing changes", () =>
    Effect.gen(function*() {
      const { course, paid } = yield* courseWithLessons
      const lessons = yield* Lessons
      const created = yield* Effect.flip(lessons.create(course.id, { title: "x", video_key: "media/never-finalized.mp4" }))
      assert.strictEqual(created._tag, "VideoNotFound")
      const updated = yield* Effect.flip(lessons.update(course.id, paid.id, { title: "changed", video_key: "media/nope.mp4" }))
      assert.strictEqual(updated._tag, "VideoNotFound")
      assert.deepStrictEqual((yield* lessons.list(course.id)).map((lesson) => [lesson.title, lesson.video_key]), [
        ["Starter", "media/free.mp4"],
        ["Shaping", "private/media/paid.mp4"]
      ])
      const cleared = yield* lessons.update(course.id, paid.id, { video_key: null, content_html: "<p>x<style>p{}</style></p>" })
      assert.isNull(cleared.video_url)
      assert.strictEqual(cleared.content_html, "<p>x</p>")
    }).pipe(withCore))

  it.effect("a lesson that is not a preview never uses a public video; a preview may use either", () =>
    Effect.gen(function*() {
      const { course, preview, paid } = yield* courseWithLessons
      const lessons = yield* Lessons
      const publicVideo = yield* video("media/trailer.mp4")
      const created = yield* Effect.flip(lessons.create(course.id, { title: "Paid", video_key: publicVideo }))
      assert.strictEqual(created._tag, "PublicVideoOnPaidLesson")
      assert.include(created.message, "media/trailer.mp4")
      const explicit = yield* Effect.flip(lessons.create(course.id, { title: "Paid", video_key: publicVideo, is_preview: false }))
      assert.strictEqual(explicit._tag, "PublicVideoOnPaidLesson")
      const onPaid = yield* Effect.flip(lessons.update(course.id, paid.id, { video_key: publicVideo, title: "renamed" }))
      assert.strictEqual(onPaid._tag, "PublicVideoOnPaidLesson")
      const unpreviewed = yield* Effect.flip(lessons.update(course.id, preview.id, { is_preview: false }))
      assert.strictEqual(unpreviewed._tag, "PublicVideoOnPaidLesson")
      // Nothing changed.
      assert.deepStrictEqual((yield* lessons.list(course.id)).map((lesson) => [lesson.title, lesson.is_preview, lesson.video_key]), [
        ["Starter", true, "media/free.mp4"],
        ["Shaping", false, "private/media/paid.mp4"]
      ])
      // Allowed: a preview with a private or a public video; a paid lesson with a private one or none.
      const privatePreview = yield* lessons.create(course.id, { title: "Teaser", video_key: "private/media/paid.mp4", is_preview: true })
      assert.isTrue(privatePreview.is_preview)
      const madePreview = yield* lessons.update(course.id, paid.id, { is_preview: true, video_key: publicVideo })
      assert.strictEqual(madePreview.video_url, "https://cdn.example.com/media/trailer.mp4")
      const withoutVideo = yield* lessons.update(course.id, preview.id, { is_preview: false, video_key: null })
      assert.deepStrictEqual([withoutVideo.is_preview, withoutVideo.video_url, withoutVideo.video_url_expires_at], [false, null, null])
    }).pipe(withCore))

  it.effect("an unknown course or lesson is not found", () =>
    Effect.gen(function*() {
      const lessons = yield* Lessons
      assert.strictEqual((yield* Effect.flip(lessons.list(999 as CourseId)))._tag, "CourseNotFound")
      assert.strictEqual((yield* Effect.flip(lessons.create(999 as CourseId, { title: "x" })))._tag, "CourseNotFound")
      const { course, paid } = yield* courseWithLessons
      yield* lessons.delete(course.id, paid.id)
      assert.strictEqual((yield* Effect.flip(lessons.delete(course.id, paid.id)))._tag, "LessonNotFound")
      assert.strictEqual((yield* Effect.flip(lessons.update(course.id, paid.id, { title: "y" })))._tag, "LessonNotFound")
    }).pipe(withCore))

  it.effect("deleting the course deletes its lessons", () =>
    Effect.gen(function*() {
      const { course } = yield* courseWithLessons
      yield* (yield* Courses).delete(course.id)
      assert.strictEqual((yield* Effect.flip((yield* Lessons).list(course.id)))._tag, "CourseNotFound")
    }).pipe(withCore))
})

describe("PublicCourses.view", () => {
  it.effect("anonymous and a signed-in non-buyer see previews only; locked bodies are absent", () =>
    Effect.gen(function*() {
      const { course, preview, paid } = yield* courseWithLessons
      const view = yield* PublicCourses
      for (const viewer of [anonymousViewer, signedInViewer(stranger)]) {
        const shown = yield* view.view(course.slug, viewer)
        assert.isFalse(shown.purchased)
        assert.deepStrictEqual(shown.lessons, [
          {
            id: preview.id,
            title: "Starter",
            position: 1,
            is_preview: true,
            access: "preview",
            content_html: "<p>FREE-STARTER-TEXT</p>",
            video_url: "https://cdn.example.com/media/free.mp4",
            video_url_expires_at: null,
            available_at: null
          },
          {
            id: paid.id,
            title: "Shaping",
            position: 2,
            is_preview: false,
            access: "locked",
            content_html: null,
            video_url: null,
            video_url_expires_at: null,
            available_at: null
          }
        ])
        const json = JSON.stringify(Schema.encodeSync(PublicCourse)(shown))
        assert.notInclude(json, "PAID-SHAPING-TEXT")
        assert.notInclude(json, "paid.mp4")
      }
    }).pipe(withCore))

  it.effect("a buyer sees everything; a revoked purchase and a preview switched off lock at once", () =>
    Effect.gen(function*() {
      const { course, preview } = yield* courseWithLessons
      const view = yield* PublicCourses
      const purchases = yield* Purchases
      yield* purchases.grant(course.id, buyer)
      const bought = yield* view.view(course.slug, signedInViewer(buyer))
      assert.isTrue(bought.purchased)
      assert.deepStrictEqual(bought.lessons.map((lesson) => [lesson.access, lesson.content_html]), [
        ["preview", "<p>FREE-STARTER-TEXT</p>"],
        ["purchased", "<p>PAID-SHAPING-TEXT</p>"]
      ])
      assert.strictEqual(bought.lessons[0]!.video_url, "https://cdn.example.com/media/free.mp4")
      // The buyer's URL of the private video is signed for this response.
      const signed = bought.lessons[1]!.video_url!
      assert.match(signed, /^memory:\/\/files\/private%2Fmedia%2Fpaid\.mp4\?expires=14400&signature=\d+$/)
      assert.strictEqual(DateTime.formatIso(bought.lessons[1]!.video_url_expires_at!), "1970-01-01T04:00:00.000Z")
      assert.deepStrictEqual(
        { id: bought.id, title: bought.title, slug: bought.slug, content_html: bought.content_html, thumbnail_url: bought.thumbnail_url },
        { id: course.id, title: "Sourdough", slug: "sourdough", content_html: "<p>About bread</p>", thumbnail_url: null }
      )
      yield* purchases.revoke(course.id, buyer)
      const revoked = yield* view.view(course.slug, signedInViewer(buyer))
      assert.isFalse(revoked.purchased)
      assert.deepStrictEqual(revoked.lessons.map((lesson) => lesson.access), ["preview", "locked"])
      // After the refund no URL of the private video is issued.
      assert.deepStrictEqual([revoked.lessons[1]!.video_url, revoked.lessons[1]!.video_url_expires_at], [null, null])
      // A preview with a public video cannot become paid: its video would stay public.
      const refused = yield* Effect.flip((yield* Lessons).update(course.id, preview.id, { is_preview: false }))
      assert.strictEqual(refused._tag, "PublicVideoOnPaidLesson")
      yield* (yield* Lessons).update(course.id, preview.id, { is_preview: false, video_key: yield* video("private/media/free.mp4") })
      const anonymous = yield* view.view(course.slug, anonymousViewer)
      assert.deepStrictEqual(anonymous.lessons.map((lesson) => [lesson.access, lesson.content_html]), [["locked", null], ["locked", null]])
      assert.notInclude(JSON.stringify(Schema.encodeSync(PublicCourse)(anonymous)), "FREE-STARTER-TEXT")
    }).pipe(withCore))

  it.effect("an unknown slug is CourseSlugNotFound; purchases of unknown courses are CourseNotFound", () =>
    Effect.gen(function*() {
      assert.strictEqual((yield* Effect.flip((yield* PublicCourses).view("no-such-course", anonymousViewer)))._tag, "CourseSlugNotFound")
      const purchases = yield* Purchases
      assert.strictEqual((yield* Effect.flip(purchases.grant(999 as CourseId, buyer)))._tag, "CourseNotFound")
      assert.strictEqual((yield* Effect.flip(purchases.revoke(999 as CourseId, buyer)))._tag, "CourseNotFound")
    }).pipe(withCore))
})

describe("PublicCourses.preview", () => {
  it.effect("a draft course as a visitor and as a buyer: the public page's access, drip from now, drafts in place and named", () =>
    Effect.gen(function*() {
      const { course, paid, preview } = yield* courseWithLessons
      yield* (yield* Courses).update(course.id, { status: "draft" })
      const lessons = yield* Lessons
      const drip = yield* lessons.create(course.id, { title: "Baking", content_html: "<p>DRIP-TEXT</p>", available_after_days: 3 })
      const draft = yield* lessons.create(course.id, { title: "Scoring", content_html: "<p>DRAFT-TEXT</p>", status: "draft" })
      const pages = yield* PublicCourses
      assert.strictEqual((yield* Effect.flip(pages.view(course.slug, anonymousViewer)))._tag, "CourseSlugNotFound")

      const visitor = yield* pages.preview(course.id, "visitor")
      assert.deepStrictEqual([visitor.as, visitor.public, visitor.status, visitor.course.purchased], ["visitor", false, "draft", false])
      assert.deepStrictEqual(visitor.course.lessons.map((lesson) => [lesson.id, lesson.position, lesson.access, lesson.content_html]), [
        [preview.id, 1, "preview", "<p>FREE-STARTER-TEXT</p>"],
        [paid.id, 2, "locked", null],
        [drip.id, 3, "locked", null],
        [draft.id, 4, "locked", null]
      ])
      assert.deepStrictEqual(visitor.not_public_lessons, [{ id: draft.id, status: "draft", publish_at: null }])
      const visitorJson = JSON.stringify(Schema.encodeSync(CoursePreview)(visitor))
      for (const locked of ["PAID-SHAPING-TEXT", "DRIP-TEXT", "DRAFT-TEXT", "private/media"]) assert.notInclude(visitorJson, locked)

      // The test clock stands at 1970-01-01: a buyer of now sees the drip lesson open on the 4th.
      const bought = yield* pages.preview(course.id, "buyer")
      assert.isTrue(bought.course.purchased)
      assert.deepStrictEqual(
        bought.course.lessons.map((lesson) => [lesson.access, lesson.content_html, lesson.available_at && DateTime.formatIso(lesson.available_at)]),
        [
          ["preview", "<p>FREE-STARTER-TEXT</p>", null],
          ["purchased", "<p>PAID-SHAPING-TEXT</p>", null],
          ["upcoming", null, "1970-01-04T00:00:00.000Z"],
          ["purchased", "<p>DRAFT-TEXT</p>", null]
        ]
      )
      assert.match(bought.course.lessons[1]!.video_url!, /^memory:\/\/files\/private%2Fmedia%2Fpaid\.mp4\?expires=14400&signature=\d+$/)
      assert.strictEqual((yield* Effect.flip(pages.preview(999 as CourseId, "visitor")))._tag, "CourseNotFound")
    }).pipe(withCore))

  it.effect("of a course whose lessons are all public, the page is exactly the public one: anonymous, and a buyer who bought it now", () =>
    Effect.gen(function*() {
      const { course } = yield* courseWithLessons
      yield* (yield* Lessons).create(course.id, { title: "Baking", content_html: "<p>DRIP-TEXT</p>", available_after_days: 3 })
      const pages = yield* PublicCourses
      const visitor = yield* pages.preview(course.id, "visitor")
      assert.isTrue(visitor.public)
      assert.deepStrictEqual(visitor.not_public_lessons, [])
      assert.deepStrictEqual(visitor.course, yield* pages.view(course.slug, anonymousViewer))
      assert.deepStrictEqual(visitor.course, yield* pages.view(course.slug, signedInViewer(stranger)))
      yield* (yield* Purchases).grant(course.id, buyer)
      assert.deepStrictEqual((yield* pages.preview(course.id, "buyer")).course, yield* pages.view(course.slug, signedInViewer(buyer)))
    }).pipe(withCore))
})
