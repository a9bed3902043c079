/**
 * Learners over HTTP: progress, completion, drip and the lists, on a standalone server
 * built by the caller (PGlite, PostgreSQL).
 */
import { assert, describe, layer } from "@effect/vitest"
import { Effect, type Layer } from "effect"
import { SignJWT } from "jose"
import type { TestServer } from "./TestServer.ts"
import { call, jwtSecret } from "./TestServer.ts"

const tag = () => Math.random().toString(36).slice(2, 10)
const tokenOf = (userId: string) =>
  Effect.promise(() =>
    new SignJWT({}).setProtectedHeader({ alg: "HS256" }).setSubject(userId).setIssuedAt().setExpirationTime("10m")
      .sign(new TextEncoder().encode(jwtSecret))
  )
const as = (token: string) => ({ authorization: `Bearer ${token}` })

/** A published course with `lessons` (bodies, extras), as the admin API makes it. */
const courseWith = (...lessons: ReadonlyArray<Record<string, unknown>>) =>
  Effect.gen(function*() {
    const course = yield* call("/courses", { method: "POST", admin: true, json: { title: `Learn ${tag()}`, content_html: "" } })
    const ids: Array<number> = []
    for (const lesson of lessons) {
      const created = yield* call(`/courses/${course.body.id}/lessons`, { method: "POST", admin: true, json: { content_html: `<p>${lesson.title} body</p>`, ...lesson } })
      assert.strictEqual(created.status, 201, JSON.stringify(created.body))
      ids.push(created.body.id)
    }
    return { id: course.body.id as number, slug: course.body.slug as string, lessons: ids }
  })

export const learningHttpSuite = <E>(name: string, server: Layer.Layer<TestServer, E>) =>
  describe(`learners over HTTP (${name})`, () => {
    layer(server, { timeout: 60_000 })((it) => {
      it.effect("progress is a signed-in learner's: anonymous is 401 on every /me endpoint", () =>
        Effect.gen(function*() {
          const course = yield* courseWith({ title: "free", is_preview: true })
          for (const [method, path] of [["PUT", `/me/lessons/${course.lessons[0]}/progress`], ["GET", `/me/courses/${course.id}/progress`], ["GET", "/me/courses"]] as const) {
            const reply = yield* call(path, { method, ...(method === "PUT" ? { json: { completed: true } } : {}) })
            assert.strictEqual(reply.status, 401, `${method} ${path}`)
          }
        }))

      it.effect("a learner marks lessons and saves positions; locked, upcoming and hidden lessons are refused; the last completion completes the course", () =>
        Effect.gen(function*() {
          const user = `user-${tag()}`
          const token = yield* tokenOf(user)
          const course = yield* courseWith(
            { title: "intro", is_preview: true },
            { title: "paid" },
            { title: "week 2", available_after_days: 14 },
            { title: "draft", status: "draft" }
          )
          const [intro, paid, week2, draft] = course.lessons
          const saved = yield* call(`/me/lessons/${intro}/progress`, { method: "PUT", headers: as(token), json: { position_seconds: 12.5 } })
          assert.strictEqual(saved.status, 200, JSON.stringify(saved.body))
          assert.deepStrictEqual([saved.body.lesson_id, saved.body.course_id, saved.body.completed, saved.body.completed_at, saved.body.position_seconds], [intro, course.id, false, null, 12.5])
          const locked = yield* call(`/me/lessons/${paid}/progress`, { method: "PUT", headers: as(token), json: { completed: true } })
          assert.deepStrictEqual([locked.status, locked.body.available_at], [403, null])
          assert.strictEqual((yield* call(`/me/lessons/${draft}/progress`, { method: "PUT", headers: as(token), json: { completed: true } })).status, 404)
          for (const bad of [{}, { position_seconds: -1 }, { position_seconds: 604801 }, { completed: "yes" }, { position_seconds: 1, extra: 1 }]) {
            assert.strictEqual((yield* call(`/me/lessons/${intro}/progress`, { method: "PUT", headers: as(token), json: bad })).status, 400, JSON.stringify(bad))
          }
          const purchase = yield* call(`/admin/courses/${course.id}/purchases/${user}`, { method: "PUT", admin: true })
          const upcoming = yield* call(`/me/lessons/${week2}/progress`, { method: "PUT", headers: as(token), json: { completed: true } })
          assert.strictEqual(upcoming.status, 403)
          assert.strictEqual(Date.parse(upcoming.body.available_at), Date.parse(purchase.body.purchased_at) + 14 * 86_400_000)
          // The public course shows it upcoming, without its body.
          const publicView = yield* call(`/public/courses/${course.slug}`, { headers: as(token) })
          const shown = publicView.body.lessons.find((lesson: any) => lesson.id === week2)
          assert.deepStrictEqual([shown.access, shown.content_html, shown.available_at], ["upcoming", null, upcoming.body.available_at])
          assert.notInclude(publicView.text, "week 2 body")
          yield* call(`/me/lessons/${intro}/progress`, { method: "PUT", headers: as(token), json: { completed: true } })
          const first = yield* call(`/me/lessons/${paid}/progress`, { method: "PUT", headers: as(token), json: { completed: true } })
          assert.strictEqual(first.status, 200)
          const again = yield* call(`/me/lessons/${paid}/progress`, { method: "PUT", headers: as(token), json: { completed: true } })
          assert.strictEqual(again.body.completed_at, first.body.completed_at)
          const progress = (yield* call(`/me/courses/${course.id}/progress`, { headers: as(token) })).body
          assert.deepStrictEqual(
            [progress.purchased, progress.lessons_total, progress.lessons_completed, progress.percent, progress.completed_at, progress.next_lesson_id],
            [true, 3, 2, 66, null, null]
          )
          assert.deepStrictEqual(progress.lessons.map((lesson: any) => lesson.lesson_id), [intro, paid, week2])
          assert.strictEqual(progress.lessons[2].available_at, upcoming.body.available_at)
          // Drip set back to none: the last lesson opens, and completing it completes the course.
          yield* call(`/courses/${course.id}/lessons/${week2}`, { method: "PATCH", admin: true, json: { available_after_days: null } })
          yield* call(`/me/lessons/${week2}/progress`, { method: "PUT", headers: as(token), json: { completed: true } })
          const done = (yield* call(`/me/courses/${course.id}/progress`, { headers: as(token) })).body
          assert.deepStrictEqual([done.percent, done.next_lesson_id], [100, null])
          assert.isString(done.completed_at)
          assert.strictEqual((yield* call(`/me/courses/999999999/progress`, { headers: as(token) })).status, 404)
        }))

      it.effect("the learner's courses and a course's learners are paged with Link; a revoked purchase leaves the learner's list", () =>
        Effect.gen(function*() {
          const users = [`a-${tag()}`, `b-${tag()}`, `c-${tag()}`].sort()
          const token = yield* tokenOf(users[0]!)
          const courses = [yield* courseWith({ title: "one" }), yield* courseWith({ title: "two" })]
          for (const course of courses) for (const user of users) yield* call(`/admin/courses/${course.id}/purchases/${user}`, { method: "PUT", admin: true })
          yield* call(`/me/lessons/${courses[0]!.lessons[0]}/progress`, { method: "PUT", headers: as(token), json: { completed: true } })
          const page = yield* call("/me/courses?limit=1", { headers: as(token) })
          assert.strictEqual(page.status, 200, JSON.stringify(page.body))
          assert.deepStrictEqual(page.body.map((item: any) => [item.course.id, item.percent, item.lessons_completed]), [[courses[0]!.id, 100, 1]])
          assert.notProperty(page.body[0].course, "status", "the public's list item")
          const link = page.headers.get("link") ?? ""
          assert.match(link, /^<\/me\/courses\?cursor=[A-Za-z0-9_-]+&limit=1>; rel="next"$/)
          const next = yield* call(link.slice(1, link.indexOf(">")), { headers: as(token) })
          assert.deepStrictEqual(next.body.map((item: any) => item.course.id), [courses[1]!.id])
          assert.strictEqual((yield* call("/me/courses?cursor=not-ours", { headers: as(token) })).status, 400)
          const learners = yield* call(`/admin/courses/${courses[0]!.id}/learners?limit=2`, { admin: true })
          assert.deepStrictEqual(learners.body.map((row: any) => [row.user_id, row.lessons_completed, row.percent]), [[users[0], 1, 100], [users[1], 0, 0]])
          const rest = learners.headers.get("link") ?? ""
          assert.match(rest, new RegExp(`cursor=${users[1]}&limit=2>; rel="next"$`))
          assert.deepStrictEqual((yield* call(rest.slice(1, rest.indexOf(">")), { admin: true })).body.map((row: any) => row.user_id), [users[2]])
          assert.strictEqual((yield* call(`/admin/courses/${courses[0]!.id}/learners`, { headers: as(token) })).status, 403)
          yield* call(`/admin/courses/${courses[0]!.id}/purchases/${users[0]}`, { method: "DELETE", admin: true })
          assert.deepStrictEqual((yield* call("/me/courses", { headers: as(token) })).body.map((item: any) => item.course.id), [courses[1]!.id])
        }))

      it.effect("available_after_days is an admin field with its limits, kept in revisions", () =>
        Effect.gen(function*() {
          const course = yield* courseWith({ title: "dripped", available_after_days: 3 })
          const path = `/courses/${course.id}/lessons/${course.lessons[0]}`
          for (const bad of [-1, 3651, 1.5, "3"]) {
            assert.strictEqual((yield* call(path, { method: "PATCH", admin: true, json: { available_after_days: bad } })).status, 400, String(bad))
          }
          const changed = yield* call(path, { method: "PATCH", admin: true, json: { available_after_days: 7 } })
          assert.strictEqual(changed.body.available_after_days, 7)
          const [newest] = (yield* call(`${path}/revisions`, { admin: true })).body
          assert.deepStrictEqual(newest.changed, ["available_after_days"])
        }))
    })
  })
