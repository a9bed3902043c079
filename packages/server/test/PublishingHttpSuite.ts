/**
 * Drafts and scheduled releases over HTTP, for the three kinds of caller: anonymous, a
 * signed-in viewer (and buyer), and an admin. Registered for the standalone server on
 * PGlite and on PostgreSQL. Every course and lesson here is the suite's own, so it can
 * share a database with other suites.
 */
import { assert, describe, layer } from "@effect/vitest"
import { Duration, Effect, type Layer } from "effect"
import { bearer, call, type Reply, TestServer, viewerToken } from "./TestServer.ts"

const unique = (label: string) => `${label} ${Math.random().toString(36).slice(2, 10)}`
const inDays = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString()

const assertProblem = (reply: Reply, status: number, detail?: RegExp) => {
  assert.strictEqual(reply.status, status, reply.text)
  assert.strictEqual(reply.headers.get("content-type"), "application/problem+json")
  if (detail !== undefined) assert.match(JSON.stringify(reply.body), detail)
}

const createCourse = (json: Record<string, unknown>) =>
  Effect.gen(function*() {
    const created = yield* call("/courses", { method: "POST", admin: true, json: { title: unique("Course"), content_html: "<p>c</p>", ...json } })
    assert.strictEqual(created.status, 201, created.text)
    return created.body
  })

/** Which of `ids` the list shows to a caller sending `headers`, in order (one page from the smallest). */
const listed = (ids: ReadonlyArray<number>, headers: Record<string, string> = {}) =>
  Effect.gen(function*() {
    const reply = yield* call(`/courses?cursor=${Math.min(...ids)}&limit=50`, { headers })
    assert.strictEqual(reply.status, 200, reply.text)
    return { ids: (reply.body as Array<{ id: number }>).map((item) => item.id).filter((id) => ids.includes(id)), reply }
  })

/** Registers the publishing tests against the standalone server `serverLayer`. */
export const publishingHttpSuite = <E>(name: string, serverLayer: Layer.Layer<TestServer, E>) =>
  describe(`publishing over HTTP: drafts, scheduled releases and sections (${name})`, () => {
    layer(serverLayer, { timeout: 60_000, excludeTestServices: true })((it) => {
      it.effect("a course created without status is published at once, as the specification's flow expects", () =>
        Effect.gen(function*() {
          const course = yield* createCourse({})
          assert.strictEqual(course.status, "published")
          assert.isNull(course.publish_at)
          assert.strictEqual((yield* call(`/courses/${course.id}`)).status, 200)
          assert.strictEqual((yield* call(`/public/courses/${course.slug}`)).status, 200)
          const { ids, reply } = yield* listed([course.id])
          assert.deepStrictEqual(ids, [course.id])
          // The public's list items are as before: no publishing fields.
          assert.deepStrictEqual(Object.keys(reply.body[0]).sort(), ["id", "slug", "thumbnail_url", "title"])
        }))

      it.effect("drafts and scheduled courses are hidden from anonymous callers and viewers, shown to admins", () =>
        Effect.gen(function*() {
          const viewer = bearer(yield* viewerToken("reader-1"))
          const draft = yield* createCourse({ status: "draft" })
          const scheduled = yield* createCourse({ publish_at: inDays(1) })
          const released = yield* createCourse({ publish_at: inDays(-1) })
          const draftDated = yield* createCourse({ status: "draft", publish_at: inDays(-1) })
          assert.strictEqual(draft.status, "draft")
          assert.strictEqual(scheduled.status, "published")
          assert.strictEqual(new Date(scheduled.publish_at).getTime() > Date.now(), true)
          const all = [draft.id, scheduled.id, released.id, draftDated.id]
          for (const headers of [{}, viewer]) {
            assert.deepStrictEqual((yield* listed(all, headers)).ids, [released.id])
            for (const hidden of [draft, scheduled, draftDated]) {
              const missing = yield* call(`/courses/${hidden.id}`, { headers })
              assertProblem(missing, 404)
              // The answer depends on who asks, and changes when the course is published: no shared cache may keep it.
              assert.strictEqual(missing.headers.get("cache-control"), "no-cache")
              assert.include(missing.headers.get("vary") ?? "", "authorization")
              assertProblem(yield* call(`/public/courses/${hidden.slug}`, { headers }), 404)
            }
            assert.strictEqual((yield* call(`/courses/${released.id}`, { headers })).status, 200)
            assert.strictEqual((yield* call(`/public/courses/${released.slug}`, { headers })).status, 200)
          }
          const admin = yield* call(`/courses?cursor=${draft.id}&limit=50`, { admin: true })
          assert.strictEqual(admin.status, 200)
          const adminItems = (admin.body as Array<any>).filter((item) => all.includes(item.id))
          assert.deepStrictEqual(adminItems.map((item) => item.id), all)
          assert.deepStrictEqual(adminItems.map((item) => item.status), ["draft", "published", "published", "draft"])
          assert.strictEqual(adminItems[1].publish_at, scheduled.publish_at)
          assert.isNull(adminItems[0].publish_at)
          assert.strictEqual(admin.headers.get("cache-control"), "private, no-store")
          assert.isNull(admin.headers.get("etag"))
          const publicList = yield* call(`/courses?cursor=${draft.id}&limit=50`)
          assert.strictEqual(publicList.headers.get("cache-control"), "no-cache")
          assert.include(publicList.headers.get("vary") ?? "", "authorization")
          const got = yield* call(`/courses/${draft.id}`, { admin: true })
          assert.strictEqual(got.status, 200)
          assert.strictEqual(got.body.status, "draft")
          assert.strictEqual(got.headers.get("cache-control"), "private, no-store")
          // The public course is the students' view: admins see drafts through the admin endpoints.
          assertProblem(yield* call(`/public/courses/${draft.slug}`, { admin: true }), 401)
        }))

      it.effect("admins filter by status; the filter is refused to anyone else; the next link keeps it", () =>
        Effect.gen(function*() {
          const draft = yield* createCourse({ status: "draft" })
          const scheduled = yield* createCourse({ publish_at: inDays(3) })
          const published = yield* createCourse({})
          const alsoPublished = yield* createCourse({})
          const all = [draft.id, scheduled.id, published.id, alsoPublished.id]
          const filtered = (status: string) =>
            call(`/courses?cursor=${draft.id}&limit=50&status=${status}`, { admin: true }).pipe(
              Effect.map((reply) => (reply.body as Array<{ id: number }>).map((item) => item.id).filter((id) => all.includes(id)))
            )
          assert.deepStrictEqual(yield* filtered("draft"), [draft.id])
          assert.deepStrictEqual(yield* filtered("scheduled"), [scheduled.id])
          assert.deepStrictEqual(yield* filtered("published"), [published.id, alsoPublished.id])
          const paged = yield* call(`/courses?cursor=${draft.id}&limit=1&status=published`, { admin: true })
          assert.match(paged.headers.get("link") ?? "", /^<\/courses\?status=published&cursor=\d+&limit=1>; rel="next"$/)
          assertProblem(yield* call("/courses?status=draft"), 401)
          assertProblem(yield* call("/courses?status=draft", { headers: bearer(yield* viewerToken("reader-2")) }), 403)
          assertProblem(yield* call("/courses?status=hidden", { admin: true }), 400)
          assertProblem(yield* call("/courses?status=draft%00", { admin: true }), 400)
        }))

      it.effect("credentials that are neither an admin's nor a viewer's are a 401 on catalogue reads", () =>
        Effect.gen(function*() {
          const course = yield* createCourse({})
          assertProblem(yield* call("/courses", { headers: bearer("not-a-token") }), 401)
          assertProblem(yield* call(`/courses/${course.id}`, { headers: bearer("not-a-token") }), 401)
          assertProblem(yield* call("/courses", { headers: { authorization: "Basic eDp5" } }), 401)
        }))

      it.effect("PATCH publishes a draft, schedules it and takes it back; publish_at must be RFC 3339 with an offset", () =>
        Effect.gen(function*() {
          const draft = yield* createCourse({ status: "draft" })
          const twin = yield* call("/courses", { method: "POST", admin: true, json: { title: draft.title, content_html: "" } })
          assert.strictEqual(twin.body.slug, `${draft.slug}-2`, "slugs are unique across drafts and published courses")
          const scheduled = yield* call(`/courses/${draft.id}`, { method: "PATCH", admin: true, json: { status: "published", publish_at: "2099-01-01T10:00:00+02:00" } })
          assert.strictEqual(scheduled.status, 200, scheduled.text)
          assert.strictEqual(scheduled.body.publish_at, "2099-01-01T08:00:00.000Z")
          assertProblem(yield* call(`/courses/${draft.id}`), 404)
          const now = yield* call(`/courses/${draft.id}`, { method: "PATCH", admin: true, json: { publish_at: null } })
          assert.isNull(now.body.publish_at)
          assert.strictEqual((yield* call(`/courses/${draft.id}`)).status, 200)
          assert.strictEqual((yield* call(`/courses/${draft.id}`, { method: "PATCH", admin: true, json: { status: "draft" } })).body.status, "draft")
          assertProblem(yield* call(`/courses/${draft.id}`), 404)
          for (const publishAt of ["tomorrow", "2026-12-01", "2026-12-01T09:00:00", "2026-02-30T09:00:00Z", "1969-12-31T23:00:00Z", "1970-01-01T00:30:00+01:00", "9999-12-31T23:59:59-23:59", "2026-12-01T24:00:00Z", 1764576000000, "x".repeat(100_000)]) {
            assertProblem(yield* call(`/courses/${draft.id}`, { method: "PATCH", admin: true, json: { publish_at: publishAt } }), 400, /publish_at/)
            assertProblem(yield* call("/courses", { method: "POST", admin: true, json: { title: "Bad date", content_html: "", publish_at: publishAt } }), 400, /publish_at/)
          }
          for (const status of ["scheduled", "Published", "", "draft\u0000"]) {
            assertProblem(yield* call(`/courses/${draft.id}`, { method: "PATCH", admin: true, json: { status } }), 400, /status/)
          }
        }))

      it.effect("the public course leaves out draft and scheduled lessons entirely, for every viewer; admins list them all", () =>
        Effect.gen(function*() {
          const course = yield* createCourse({})
          const secret = "HIDDEN-LESSON-BODY-4d1e"
          const add = (json: Record<string, unknown>) =>
            Effect.gen(function*() {
              const reply = yield* call(`/courses/${course.id}/lessons`, { method: "POST", admin: true, json: { content_html: `<p>${secret}</p>`, ...json } })
              assert.strictEqual(reply.status, 201, reply.text)
              return reply.body
            })
          yield* add({ title: "Welcome", is_preview: true, content_html: "<p>hello</p>" })
          yield* add({ title: "Draft preview", status: "draft", is_preview: true })
          yield* add({ title: "Next week", publish_at: inDays(7), is_preview: true })
          yield* add({ title: "Paid", content_html: "<p>paid</p>" })
          const released = yield* add({ title: "Released", publish_at: inDays(-1), is_preview: true, content_html: "<p>out</p>" })
          assert.strictEqual(released.status, "published")
          const buyer = "buyer-publishing"
          assert.strictEqual((yield* call(`/admin/courses/${course.id}/purchases/${buyer}`, { method: "PUT", admin: true })).status, 200)
          for (const headers of [{}, bearer(yield* viewerToken("reader-3")), bearer(yield* viewerToken(buyer))]) {
            const view = yield* call(`/public/courses/${course.slug}`, { headers })
            assert.strictEqual(view.status, 200, view.text)
            assert.deepStrictEqual(view.body.lessons.map((lesson: any) => [lesson.title, lesson.position]), [
              ["Welcome", 1],
              ["Paid", 2],
              ["Released", 3]
            ])
            assert.notInclude(view.text, secret)
            assert.notInclude(view.text, "Draft preview")
            assert.notInclude(view.text, "Next week")
          }
          const admin = yield* call(`/courses/${course.id}/lessons`, { admin: true })
          assert.deepStrictEqual(admin.body.map((lesson: any) => [lesson.title, lesson.status, lesson.position]), [
            ["Welcome", "published", 1],
            ["Draft preview", "draft", 2],
            ["Next week", "published", 3],
            ["Paid", "published", 4],
            ["Released", "published", 5]
          ])
        }))

      it.effect("sections: created, listed, moved and renamed; lessons placed and moved between them; the public course grouped", () =>
        Effect.gen(function*() {
          const course = yield* createCourse({})
          const base = `/courses/${course.id}`
          const section = (json: Record<string, unknown>) =>
            Effect.gen(function*() {
              const reply = yield* call(`${base}/sections`, { method: "POST", admin: true, json })
              assert.strictEqual(reply.status, 201, reply.text)
              return reply.body
            })
          const week1 = yield* section({ title: "Week 1" })
          const week2 = yield* section({ title: "Week 2" })
          const intro = yield* section({ title: "  Intro  ", position: 1 })
          assert.strictEqual(intro.title, "Intro")
          assert.deepStrictEqual(Object.keys(intro).sort(), ["course_id", "created_at", "id", "position", "title", "updated_at", "version"])
          assert.strictEqual(intro.version, 1)
          const lesson = (json: Record<string, unknown>) =>
            Effect.gen(function*() {
              const reply = yield* call(`${base}/lessons`, { method: "POST", admin: true, json: { content_html: "", is_preview: true, ...json } })
              assert.strictEqual(reply.status, 201, reply.text)
              return reply.body
            })
          yield* lesson({ title: "Loose" })
          const a = yield* lesson({ title: "A", section_id: week1.id })
          yield* lesson({ title: "B", section_id: week1.id })
          yield* lesson({ title: "Hello", section_id: intro.id })
          yield* lesson({ title: "Later", section_id: week2.id, publish_at: inDays(2) })
          assert.strictEqual(a.section_id, week1.id)
          assert.strictEqual(a.position, 1)
          const adminList = () =>
            call(`${base}/lessons`, { admin: true }).pipe(
              Effect.map((reply) => reply.body.map((item: any) => [item.title, item.section_id, item.position]))
            )
          assert.deepStrictEqual(yield* adminList(), [
            ["Loose", null, 1],
            ["Hello", intro.id, 1],
            ["A", week1.id, 1],
            ["B", week1.id, 2],
            ["Later", week2.id, 1]
          ])
          // One PATCH: to another section, at a position.
          const moved = yield* call(`${base}/lessons/${a.id}`, { method: "PATCH", admin: true, json: { section_id: intro.id, position: 1 } })
          assert.strictEqual(moved.status, 200, moved.text)
          assert.deepStrictEqual([moved.body.section_id, moved.body.position], [intro.id, 1])
          assert.deepStrictEqual(yield* adminList(), [
            ["Loose", null, 1],
            ["A", intro.id, 1],
            ["Hello", intro.id, 2],
            ["B", week1.id, 1],
            ["Later", week2.id, 1]
          ])
          const renamed = yield* call(`${base}/sections/${week1.id}`, { method: "PATCH", admin: true, json: { title: "Week one", position: 1 } })
          assert.deepStrictEqual([renamed.status, renamed.body.title, renamed.body.position], [200, "Week one", 1])
          const sections = yield* call(`${base}/sections`, { admin: true })
          assert.deepStrictEqual(sections.body.map((item: any) => [item.title, item.position]), [["Week one", 1], ["Intro", 2], ["Week 2", 3]])
          const view = yield* call(`/public/courses/${course.slug}`)
          assert.deepStrictEqual(view.body.lessons.map((item: any) => [item.title, item.position]), [["Loose", 1]])
          // Week 2 holds only a scheduled lesson: it is left out, and the others are numbered 1…n.
          assert.deepStrictEqual(
            view.body.sections.map((item: any) => [item.title, item.position, item.lessons.map((inner: any) => [inner.title, inner.position, inner.access])]),
            [
              ["Week one", 1, [["B", 1, "preview"]]],
              ["Intro", 2, [["A", 1, "preview"], ["Hello", 2, "preview"]]]
            ]
          )
          assert.notInclude(view.text, "Later")
          assert.notInclude(view.text, "Week 2")
        }))

      it.effect("sections refuse what is not theirs: 404, 409 unless detached, 422 for a foreign section, 400 for bad input", () =>
        Effect.gen(function*() {
          const course = yield* createCourse({})
          const other = yield* createCourse({})
          const base = `/courses/${course.id}`
          const section = (yield* call(`${base}/sections`, { method: "POST", admin: true, json: { title: "Full" } })).body
          const foreign = (yield* call(`/courses/${other.id}/sections`, { method: "POST", admin: true, json: { title: "Theirs" } })).body
          const x = (yield* call(`${base}/lessons`, { method: "POST", admin: true, json: { title: "x", section_id: section.id } })).body
          yield* call(`${base}/lessons`, { method: "POST", admin: true, json: { title: "y", section_id: section.id } })
          yield* call(`${base}/lessons`, { method: "POST", admin: true, json: { title: "loose" } })
          assertProblem(yield* call(`${base}/lessons`, { method: "POST", admin: true, json: { title: "z", section_id: foreign.id } }), 422, /body\.section_id/)
          assertProblem(yield* call(`${base}/lessons/${x.id}`, { method: "PATCH", admin: true, json: { section_id: foreign.id } }), 422, /body\.section_id/)
          assertProblem(yield* call(`${base}/sections/${foreign.id}`, { method: "PATCH", admin: true, json: { title: "mine" } }), 404)
          assertProblem(yield* call(`${base}/sections/${foreign.id}`, { method: "DELETE", admin: true }), 404)
          assertProblem(yield* call("/courses/2000000000/sections", { method: "POST", admin: true, json: { title: "x" } }), 404)
          assertProblem(yield* call("/courses/2000000000/sections", { admin: true }), 404)
          const refused = yield* call(`${base}/sections/${section.id}`, { method: "DELETE", admin: true })
          assertProblem(refused, 409, /lessons=detach/)
          assert.match(refused.body.detail, /still has 2 lessons/)
          assertProblem(yield* call(`${base}/sections/${section.id}?lessons=keep`, { method: "DELETE", admin: true }), 400)
          assertProblem(yield* call(`${base}/sections`, { method: "POST", admin: true, json: { title: "   " } }), 400, /title/)
          assertProblem(yield* call(`${base}/sections`, { method: "POST", admin: true, json: { title: "x", position: 0 } }), 400, /position/)
          assertProblem(yield* call(`${base}/sections`, { method: "POST", json: { title: "x" } }), 401)
          assertProblem(yield* call(`${base}/sections`), 401)
          const detached = yield* call(`${base}/sections/${section.id}?lessons=detach`, { method: "DELETE", admin: true })
          assert.strictEqual(detached.status, 204, detached.text)
          const lessons = yield* call(`${base}/lessons`, { admin: true })
          assert.deepStrictEqual(lessons.body.map((item: any) => [item.title, item.section_id, item.position]), [
            ["loose", null, 1],
            ["x", null, 2],
            ["y", null, 3]
          ])
          assertProblem(yield* call(`${base}/sections/${section.id}`, { method: "DELETE", admin: true }), 404)
        }))

      it.effect("concurrent PATCHes moving lessons between sections keep every section's positions 1…n", () =>
        Effect.gen(function*() {
          const course = yield* createCourse({})
          const base = `/courses/${course.id}`
          const groups = [null]
          for (const title of ["S1", "S2"]) groups.push((yield* call(`${base}/sections`, { method: "POST", admin: true, json: { title } })).body.id)
          const ids: Array<number> = []
          for (let i = 0; i < 9; i++) {
            ids.push((yield* call(`${base}/lessons`, { method: "POST", admin: true, json: { title: `l${i}`, section_id: groups[i % 3] } })).body.id)
          }
          const replies = yield* Effect.forEach(
            Array.from({ length: 30 }, (_, i) => i),
            (i) => call(`${base}/lessons/${ids[(i * 7) % 9]}`, { method: "PATCH", admin: true, json: { section_id: groups[(i * 5) % 3], position: (i % 4) + 1 } }),
            { concurrency: "unbounded" }
          )
          assert.deepStrictEqual([...new Set(replies.map((reply) => reply.status))], [200])
          const lessons = (yield* call(`${base}/lessons`, { admin: true })).body as Array<{ title: string; section_id: number | null; position: number }>
          assert.strictEqual(lessons.length, 9)
          for (const group of groups) {
            const positions = lessons.filter((item) => item.section_id === group).map((item) => item.position)
            assert.deepStrictEqual(positions, positions.map((_, i) => i + 1), `group ${group}`)
          }
        }))

      it.effect("the public's ETags do not reveal when a scheduled course goes live", () =>
        Effect.gen(function*() {
          // Sooner than any other scheduled course of this suite: it is the next release.
          const at = new Date(Math.floor(Date.now() / 1000) * 1000 + 30_000)
          yield* createCourse({ publish_at: at.toISOString() })
          const etag = (yield* call("/courses")).headers.get("etag")!
          assert.match(etag, /^"[0-9a-f]{32}\.0\.10"$/)
          for (const digits of [at.getTime() / 1000, at.getTime(), at.getTime() * 1000].map(String)) assert.notInclude(etag, digits)
        }))

      it.effect("a scheduled course appears in the very next list response once its publish_at passes, with no write", () =>
        Effect.gen(function*() {
          const before = yield* createCourse({})
          // 5 s ahead: the reads "before" must all happen before it, on a loaded machine too.
          const opensAt = Date.now() + 5_000
          const soon = yield* createCourse({ publish_at: new Date(opensAt).toISOString() })
          const lesson = yield* call(`/courses/${soon.id}/lessons`, {
            method: "POST",
            admin: true,
            json: { title: "Opens with the course", is_preview: true, publish_at: new Date(opensAt).toISOString() }
          })
          assert.strictEqual(lesson.status, 201, lesson.text)
          const ids = [before.id, soon.id]
          // Read (and cached) twice before the instant.
          const first = yield* listed(ids)
          assert.deepStrictEqual(first.ids, [before.id])
          assert.deepStrictEqual((yield* listed(ids)).ids, [before.id])
          const etag = first.reply.headers.get("etag")!
          assertProblem(yield* call(`/public/courses/${soon.slug}`), 404)
          yield* Effect.sleep(Duration.millis(Math.max(0, opensAt - Date.now()) + 300))
          const revalidated = yield* call(`/courses?cursor=${before.id}&limit=50`, { headers: { "if-none-match": etag } })
          assert.strictEqual(revalidated.status, 200)
          assert.notStrictEqual(revalidated.headers.get("etag"), etag)
          assert.deepStrictEqual((yield* listed(ids)).ids, ids)
          const opened = yield* call(`/public/courses/${soon.slug}`)
          assert.strictEqual(opened.status, 200)
          assert.deepStrictEqual(opened.body.lessons.map((item: any) => item.title), ["Opens with the course"])
        }))
    })
  })
