/**
 * Preview as learner over HTTP (`GET /admin/courses/{id}/preview?as=visitor|buyer`, issue
 * #35): admins only; a draft course previewable; the page the public endpoint answers,
 * for a visitor and for a buyer who bought the course now (drip from this instant);
 * drafts and scheduled lessons in their places and named. Registered for the standalone
 * server on PGlite and on PostgreSQL; every course here is the suite's own.
 */
import { assert, describe, layer } from "@effect/vitest"
import { Effect, type Layer } from "effect"
import { bearer, call, TestServer, viewerToken } from "./TestServer.ts"

const unique = (label: string) => `${label} ${Math.random().toString(36).slice(2, 10)}`
const inDays = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString()

const created = (path: string, json: Record<string, unknown>) =>
  Effect.gen(function*() {
    const reply = yield* call(path, { method: "POST", admin: true, json })
    assert.strictEqual(reply.status, 201, reply.text)
    return reply.body
  })

/** A course with a free preview, a paid lesson, a drip lesson (7 days), a draft and a scheduled lesson. */
const storedCourse = (status: "draft" | "published") =>
  Effect.gen(function*() {
    const course = yield* created("/courses", { title: unique("Preview"), content_html: "<p>About</p>", status })
    const section = yield* created(`/courses/${course.id}/sections`, { title: "Week 1" })
    const lessons = `/courses/${course.id}/lessons`
    const free = yield* created(lessons, { title: "Free", content_html: "<p>free-text</p>", is_preview: true })
    const paid = yield* created(lessons, { title: "Paid", content_html: "<p>paid-text</p>", section_id: section.id })
    const drip = yield* created(lessons, { title: "Drip", content_html: "<p>drip-text</p>", section_id: section.id, available_after_days: 7 })
    const draft = yield* created(lessons, { title: "Draft", content_html: "<p>draft-text</p>", section_id: section.id, status: "draft" })
    const scheduled = yield* created(lessons, { title: "Later", content_html: "<p>later-text</p>", publish_at: inDays(3) })
    return { course, free, paid, drip, draft, scheduled }
  })

type Lesson = { readonly id: number; readonly access: string; readonly content_html: string | null; readonly available_at: string | null }
const lessonsOf = (page: { readonly lessons: ReadonlyArray<Lesson>; readonly sections: ReadonlyArray<{ readonly lessons: ReadonlyArray<Lesson> }> }) =>
  [...page.lessons, ...page.sections.flatMap((section) => section.lessons)]
const accessById = (page: Parameters<typeof lessonsOf>[0]) => Object.fromEntries(lessonsOf(page).map((lesson) => [lesson.id, lesson.access]))

/** Registers the preview tests against the standalone server `serverLayer`. */
export const coursePreviewHttpSuite = <E>(name: string, serverLayer: Layer.Layer<TestServer, E>) =>
  describe(`Preview as learner over HTTP (${name})`, () => {
    layer(serverLayer, { timeout: 60_000, excludeTestServices: true })((it) => {
      it.effect("is for admins: anonymous 401, a viewer 403, a bad or missing `as` 400, an unknown course 404", () =>
        Effect.gen(function*() {
          const { course } = yield* storedCourse("published")
          const path = `/admin/courses/${course.id}/preview?as=visitor`
          assert.strictEqual((yield* call(path)).status, 401)
          assert.strictEqual((yield* call(path, { headers: bearer(yield* viewerToken("preview-viewer")) })).status, 403)
          for (const query of ["?as=admin", "?as=", ""]) {
            const reply = yield* call(`/admin/courses/${course.id}/preview${query}`, { admin: true })
            assert.strictEqual(reply.status, 400, `${query}: ${reply.text}`)
            assert.strictEqual(reply.headers.get("content-type"), "application/problem+json")
          }
          assert.strictEqual((yield* call(`/admin/courses/999999999/preview?as=visitor`, { admin: true })).status, 404)
          const ok = yield* call(path, { admin: true })
          assert.strictEqual(ok.status, 200, ok.text)
          // An admin's view of drafts: no cache keeps it.
          assert.strictEqual(ok.headers.get("cache-control"), "private, no-store")
        }))

      it.effect("a draft course is previewable; as a visitor, lessons are as the public sees them, drafts and scheduled ones named", () =>
        Effect.gen(function*() {
          const { course, draft, drip, free, paid, scheduled } = yield* storedCourse("draft")
          assert.strictEqual((yield* call(`/public/courses/${course.slug}`)).status, 404)
          const reply = yield* call(`/admin/courses/${course.id}/preview?as=visitor`, { admin: true })
          assert.strictEqual(reply.status, 200, reply.text)
          const preview = reply.body
          assert.strictEqual(preview.as, "visitor")
          assert.strictEqual(preview.public, false)
          assert.strictEqual(preview.status, "draft")
          assert.strictEqual(preview.course.purchased, false)
          assert.deepStrictEqual(accessById(preview.course), {
            [free.id]: "preview",
            [scheduled.id]: "locked",
            [paid.id]: "locked",
            [drip.id]: "locked",
            [draft.id]: "locked"
          })
          assert.deepStrictEqual(
            preview.not_public_lessons.map((lesson: { id: number; status: string }) => [lesson.id, lesson.status]).sort(),
            [[draft.id, "draft"], [scheduled.id, "published"]].sort()
          )
          // Locked bodies are not in the answer, as on the public page.
          for (const text of ["paid-text", "drip-text", "draft-text", "later-text"]) assert.notInclude(reply.text, text)
          assert.include(reply.text, "free-text")
        }))

      it.effect("as a buyer, paid lessons open and drip lessons are upcoming, counted from now", () =>
        Effect.gen(function*() {
          const { course, drip, paid } = yield* storedCourse("draft")
          const before = Date.now()
          const reply = yield* call(`/admin/courses/${course.id}/preview?as=buyer`, { admin: true })
          assert.strictEqual(reply.status, 200, reply.text)
          const lessons = lessonsOf(reply.body.course)
          assert.strictEqual(reply.body.course.purchased, true)
          const paidShown = lessons.find((lesson) => lesson.id === paid.id)!
          assert.strictEqual(paidShown.access, "purchased")
          assert.strictEqual(paidShown.content_html, "<p>paid-text</p>")
          const dripShown = lessons.find((lesson) => lesson.id === drip.id)!
          assert.strictEqual(dripShown.access, "upcoming")
          assert.isNull(dripShown.content_html)
          assert.notInclude(reply.text, "drip-text")
          const opens = Date.parse(dripShown.available_at!)
          assert.isAtLeast(opens, before + 7 * 86_400_000 - 1_000)
          assert.isAtMost(opens, Date.now() + 7 * 86_400_000 + 1_000)
        }))

      it.effect("of a course whose lessons are all public, the preview's page is the public endpoint's, for a visitor and a buyer", () =>
        Effect.gen(function*() {
          const course = yield* created("/courses", { title: unique("Same"), content_html: "<p>About</p>" })
          const section = yield* created(`/courses/${course.id}/sections`, { title: "Week 1" })
          yield* created(`/courses/${course.id}/lessons`, { title: "Free", content_html: "<p>free</p>", is_preview: true })
          yield* created(`/courses/${course.id}/lessons`, { title: "Paid", content_html: "<p>paid</p>", section_id: section.id })
          yield* created(`/courses/${course.id}/lessons`, { title: "Drip", content_html: "<p>drip</p>", section_id: section.id, available_after_days: 2 })
          const anonymous = yield* call(`/public/courses/${course.slug}`)
          const asVisitor = yield* call(`/admin/courses/${course.id}/preview?as=visitor`, { admin: true })
          assert.deepStrictEqual(asVisitor.body.course, anonymous.body)
          assert.strictEqual(asVisitor.body.public, true)
          assert.deepStrictEqual(asVisitor.body.not_public_lessons, [])
          const buyer = "preview-buyer-" + Math.random().toString(36).slice(2, 8)
          assert.strictEqual((yield* call(`/admin/courses/${course.id}/purchases/${buyer}`, { method: "PUT", admin: true })).status, 200)
          const bought = yield* call(`/public/courses/${course.slug}`, { headers: bearer(yield* viewerToken(buyer)) })
          const asBuyer = yield* call(`/admin/courses/${course.id}/preview?as=buyer`, { admin: true })
          // The same page, but for the instant drip counts from (the purchase a moment ago, the preview's now).
          const withoutWhen = (page: any) => JSON.parse(JSON.stringify(page).replace(/"available_at":"[^"]+"/g, '"available_at":"…"'))
          assert.deepStrictEqual(withoutWhen(asBuyer.body.course), withoutWhen(bought.body))
          assert.deepStrictEqual(accessById(asBuyer.body.course), accessById(bought.body))
        }))
    })
  })
