/**
 * The conformance suite of a `PublicCourseRows` reader, run next to the course, lesson,
 * purchase and media repositories and the `Entitlements` it reads purchases as (for an
 * adapter's reader, the same store's): what `read` returns is what the
 * ports' read (`readFromPorts`) returns on the same rows, for every kind of viewer, and
 * a locked lesson comes without its body or video. Each test makes its own courses, so
 * adapters can share one database.
 *
 * @since 0.2.0
 */
import { assert, describe, layer } from "@effect/vitest"
import { DateTime, Effect, type Layer, Schema } from "effect"
import { CourseRepo } from "../../catalogue/CourseRepo.ts"
import { Entitlements } from "../../lessons/Entitlements.ts"
import type { ViewerLesson } from "../../lessons/Lesson.ts"
import { LessonRepo } from "../../lessons/LessonRepo.ts"
import { MediaRepo } from "../../media/MediaRepo.ts"
import { type PublicCourseRead, PublicCourseRow, PublicCourseRows, readFromPorts } from "../../lessons/PublicCourseRows.ts"
import { publishedNow } from "../../catalogue/Publishing.ts"
import { PurchaseRepo } from "../../lessons/PurchaseRepo.ts"
import * as RecordVariants from "../../shared/RecordVariants.ts"
import { anonymousViewer, signedInViewer, UserId, type Viewer } from "../../shared/Viewer.ts"
import { newLesson as lesson } from "./LessonFixtures.ts"

type Services = PublicCourseRows | CourseRepo | LessonRepo | PurchaseRepo | Entitlements | MediaRepo

const unique = () => Math.random().toString(36).slice(2, 10)
const user = (name: string) => Schema.decodeSync(UserId)(`${name}-${unique()}`)


/** A published course with an outline that has every case the read must get right. */
const outlineCourse = Effect.gen(function*() {
  const courses = yield* CourseRepo
  const lessons = yield* LessonRepo
  const media = yield* MediaRepo
  const name = unique()
  const course = yield* courses.insert({
    ...publishedNow,
    title: `Rows ${name}`,
    slugBase: `rows-${name}`,
    content_html: "<p>course body</p>",
    description: "what it teaches"
  })
  const video = (label: string) =>
    Effect.as(media.upsert({ key: `private/media/${label}-${name}.mp4`, name: `${label}.mp4`, size_bytes: 1, content_type: "video/mp4" }), `private/media/${label}-${name}.mp4`)
  const paidVideo = yield* video("paid")
  const previewVideo = yield* video("preview")
  // The store's clock decides visibility: a lesson's creation instant is read by it.
  const clock = yield* lessons.insert(course.id, lesson("clock"))
  yield* lessons.delete(course.id, clock.id)
  const now = clock.created_at
  // Sections made out of order: the second made comes first.
  const later = yield* lessons.insertSection(course.id, { title: "Later" })
  const first = yield* lessons.insertSection(course.id, { title: "First", position: 1 })
  yield* lessons.insert(course.id, lesson("loose preview", { is_preview: true, video_key: previewVideo }))
  yield* lessons.insert(course.id, lesson("loose paid", { video_key: paidVideo }))
  yield* lessons.insert(course.id, lesson("draft", { status: "draft", is_preview: true }))
  yield* lessons.insert(course.id, lesson("scheduled", { publish_at: DateTime.add(now, { days: 1 }), is_preview: true }))
  yield* lessons.insert(course.id, lesson("later paid", { section_id: later.id }))
  yield* lessons.insert(course.id, lesson("first preview", { section_id: first.id, is_preview: true }))
  yield* lessons.insert(course.id, lesson("first paid", { section_id: first.id }))
  return course
})

/** The fields of the public row (`PublicCourseRow`), and no others. */
const publicRow = RecordVariants.pick(PublicCourseRow)

/** The read as plain data: the course's public fields, the purchase, the lessons. */
const plain = (read: PublicCourseRead) => ({
  course: publicRow(read.course),
  purchased: read.purchased,
  lessons: read.lessons.map((row: ViewerLesson) => ({ ...row }))
})

const both = (slug: string, viewer: Viewer) =>
  Effect.gen(function*() {
    const rows = yield* PublicCourseRows
    const ports = readFromPorts(yield* CourseRepo, yield* LessonRepo, yield* Entitlements)
    return { adapter: plain(yield* rows.read(slug, viewer)), ports: plain(yield* ports(slug, viewer)) }
  })

export const publicCourseRowsSuite = <E>(name: string, services: Layer.Layer<Services, E>) => {
  describe(`PublicCourseRows: ${name}`, () => {
    layer(services, { timeout: 60_000 })((it) => {
      it.effect("anonymous: the ports' rows; previews open, paid lessons without body or video, hidden lessons left out", () =>
        Effect.gen(function*() {
          const course = yield* outlineCourse
          const { adapter, ports } = yield* both(course.slug, anonymousViewer)
          assert.deepStrictEqual(adapter, ports)
          // The course's fields the public row declares, as stored.
          assert.deepStrictEqual(adapter.course, publicRow(course))
          assert.strictEqual(adapter.course.content_html, "<p>course body</p>")
          assert.strictEqual(adapter.course.description, "what it teaches")
          assert.isFalse(adapter.purchased)
          assert.deepStrictEqual(
            adapter.lessons.map((row) => [row.section_title, row.title, row.content_html, row.video_key !== null]),
            [
              [null, "loose preview", "<p>loose preview body</p>", true],
              [null, "loose paid", null, false],
              ["First", "first preview", "<p>first preview body</p>", false],
              ["First", "first paid", null, false],
              ["Later", "later paid", null, false]
            ]
          )
          assert.deepStrictEqual(adapter.lessons.map((row) => row.section_position), [null, null, 1, 1, 2])
        }))

      it.effect("a signed-in viewer who did not buy reads what anonymous reads; a buyer every body and video", () =>
        Effect.gen(function*() {
          const course = yield* outlineCourse
          const buyer = user("buyer")
          yield* (yield* PurchaseRepo).grant(course.id, buyer)
          const anonymous = yield* both(course.slug, anonymousViewer)
          const nonBuyer = yield* both(course.slug, signedInViewer(user("other")))
          assert.deepStrictEqual(nonBuyer.adapter, nonBuyer.ports)
          assert.deepStrictEqual(nonBuyer.adapter, anonymous.adapter)
          const bought = yield* both(course.slug, signedInViewer(buyer))
          assert.deepStrictEqual(bought.adapter, bought.ports)
          assert.isTrue(bought.adapter.purchased)
          const paid = bought.adapter.lessons.filter((row) => !row.is_preview)
          assert.deepStrictEqual(paid.map((row) => row.content_html), paid.map((row) => `<p>${row.title} body</p>`))
          assert.isNotNull(paid.find((row) => row.title === "loose paid")!.video_key)
        }))

      it.effect("a purchase and its removal count on the next read", () =>
        Effect.gen(function*() {
          const course = yield* outlineCourse
          const buyer = user("buyer")
          const purchases = yield* PurchaseRepo
          const read = (yield* PublicCourseRows).read
          assert.isFalse((yield* read(course.slug, signedInViewer(buyer))).purchased)
          yield* purchases.grant(course.id, buyer)
          assert.isTrue((yield* read(course.slug, signedInViewer(buyer))).purchased)
          yield* purchases.revoke(course.id, buyer)
          const after = yield* read(course.slug, signedInViewer(buyer))
          assert.isFalse(after.purchased)
          assert.isNull(after.lessons.find((row) => row.title === "loose paid")!.content_html)
        }))

      it.effect("a course with no lesson shown: the course and no rows", () =>
        Effect.gen(function*() {
          const courses = yield* CourseRepo
          const name = unique()
          const course = yield* courses.insert({ ...publishedNow, title: `Empty ${name}`, slugBase: `empty-${name}`, content_html: "" })
          yield* (yield* LessonRepo).insert(course.id, lesson("draft", { status: "draft" }))
          const { adapter, ports } = yield* both(course.slug, anonymousViewer)
          assert.deepStrictEqual(adapter, ports)
          assert.deepStrictEqual(adapter.lessons, [])
        }))

      it.effect("an unknown slug, a draft and a scheduled course are CourseSlugNotFound", () =>
        Effect.gen(function*() {
          const courses = yield* CourseRepo
          const read = (yield* PublicCourseRows).read
          const name = unique()
          const draft = yield* courses.insert({ status: "draft", publish_at: null, title: `Draft ${name}`, slugBase: `draft-${name}`, content_html: "" })
          const scheduled = yield* courses.insert({
            status: "published",
            publish_at: DateTime.add(draft.created_at, { days: 1 }),
            title: `Soon ${name}`,
            slugBase: `soon-${name}`,
            content_html: ""
          })
          for (const slug of [`missing-${name}`, draft.slug, scheduled.slug]) {
            for (const viewer of [anonymousViewer, signedInViewer(user("someone"))]) {
              const error = yield* Effect.flip(read(slug, viewer))
              assert.deepStrictEqual([error._tag, error._tag === "CourseSlugNotFound" ? error.slug : ""], ["CourseSlugNotFound", slug])
            }
          }
        }))
    })
  })
}
