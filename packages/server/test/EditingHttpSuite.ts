/**
 * Versions, `If-Match`, autosave and revisions over HTTP, on a standalone server built by
 * the caller (PGlite, PostgreSQL) with the admin tokens {@link editingTokens}.
 */
import { assert, describe, layer } from "@effect/vitest"
import { Effect, type Layer, Redacted } from "effect"
import { createHash } from "node:crypto"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import type { TestServer } from "./TestServer.ts"
import { adminToken, call } from "./TestServer.ts"

/** Ada's named token, and the test server's bare one. */
const adaToken = "ada-token-0123456789abcdef"
export const editingTokens = [Redacted.make(adminToken), Redacted.make(`ada=${adaToken}`)]
const bareAuthor = `admin-${createHash("sha256").update(adminToken).digest("hex").slice(0, 8)}`

const asAda = (extra: Record<string, string> = {}) => ({ authorization: `Bearer ${adaToken}`, ...extra })
const unique = (label: string) => `${label} ${Math.random().toString(36).slice(2, 10)}`

const assertPreconditionFailed = (reply: { status: number; headers: Headers; body: any }, current: Record<string, unknown>) => {
  assert.strictEqual(reply.status, 412, JSON.stringify(reply.body))
  assert.strictEqual(reply.headers.get("content-type"), "application/problem+json")
  assert.strictEqual(reply.body.title, "Precondition Failed")
  assert.strictEqual(reply.body.current_version, current.version)
  assert.deepStrictEqual(reply.body.current, current)
}

export const editingHttpSuite = <E>(name: string, server: Layer.Layer<TestServer, E>) =>
  describe(`editing over HTTP (${name})`, () => {
    layer(server, { timeout: 60_000 })((it) => {
      it.effect("an admin's answers of one record carry the strong ETag of its version; the public's GET does not", () =>
        Effect.gen(function*() {
          const created = yield* call("/courses", { method: "POST", admin: true, json: { title: unique("Tagged"), content_html: "" } })
          assert.strictEqual(created.status, 201)
          assert.strictEqual(created.headers.get("etag"), "\"1\"")
          assert.strictEqual(created.body.version, 1)
          const id = created.body.id
          assert.strictEqual((yield* call(`/courses/${id}`, { admin: true })).headers.get("etag"), "\"1\"")
          assert.isNull((yield* call(`/courses/${id}`)).headers.get("etag"))
          const patched = yield* call(`/courses/${id}`, { method: "PATCH", admin: true, json: { description: "d" } })
          assert.strictEqual(patched.headers.get("etag"), "\"2\"")
          const lesson = yield* call(`/courses/${id}/lessons`, { method: "POST", admin: true, json: { title: "L" } })
          assert.strictEqual(lesson.headers.get("etag"), "\"1\"")
          const section = yield* call(`/courses/${id}/sections`, { method: "POST", admin: true, json: { title: "S" } })
          assert.strictEqual(section.headers.get("etag"), "\"1\"")
          const renamed = yield* call(`/courses/${id}/sections/${section.body.id}`, { method: "PATCH", admin: true, json: { title: "S2" } })
          assert.strictEqual(renamed.headers.get("etag"), "\"2\"")
        }))

      it.effect("a stale If-Match is a 412 holding the record as it is now, and nothing is written; * and a list naming the version match", () =>
        Effect.gen(function*() {
          const created = yield* call("/courses", { method: "POST", admin: true, json: { title: unique("Raced"), content_html: "" } })
          const path = `/courses/${created.body.id}`
          const first = yield* call(path, { method: "PATCH", admin: true, headers: { "if-match": "\"1\"" }, json: { title: "First" } })
          assert.strictEqual(first.status, 200)
          const stale = yield* call(path, { method: "PATCH", admin: true, headers: { "if-match": "\"1\"" }, json: { title: "Lost" } })
          assertPreconditionFailed(stale, first.body)
          for (const tag of ["W/\"2\"", "\"coursekit-2\"", "\"02\""]) {
            assertPreconditionFailed(yield* call(path, { method: "PATCH", admin: true, headers: { "if-match": tag }, json: { title: "Lost" } }), first.body)
          }
          assert.strictEqual((yield* call(path, { admin: true })).body.title, "First")
          assert.strictEqual((yield* call(path, { method: "PATCH", admin: true, headers: { "if-match": "\"7\", \"2\"" }, json: { title: "Second" } })).status, 200)
          assert.strictEqual((yield* call(path, { method: "PATCH", admin: true, headers: { "if-match": "*" }, json: { title: "Third" } })).status, 200)
          const staleDelete = yield* call(path, { method: "DELETE", admin: true, headers: { "if-match": "\"1\"" } })
          assert.strictEqual(staleDelete.status, 412)
          assert.strictEqual((yield* call(path, { admin: true })).status, 200)
          assert.strictEqual((yield* call(path, { method: "DELETE", admin: true, headers: { "if-match": "\"4\"" } })).status, 204)
          assert.strictEqual((yield* call(path, { method: "PATCH", admin: true, headers: { "if-match": "*" }, json: { title: "x" } })).status, 404)
        }))

      it.effect("lessons and sections answer a stale If-Match with 412 and their current state", () =>
        Effect.gen(function*() {
          const course = yield* call("/courses", { method: "POST", admin: true, json: { title: unique("Outline"), content_html: "" } })
          const lesson = yield* call(`/courses/${course.body.id}/lessons`, { method: "POST", admin: true, json: { title: "L" } })
          const lessonPath = `/courses/${course.body.id}/lessons/${lesson.body.id}`
          const changed = yield* call(lessonPath, { method: "PATCH", admin: true, headers: { "if-match": "\"1\"" }, json: { title: "L2" } })
          assert.strictEqual(changed.headers.get("etag"), "\"2\"")
          assertPreconditionFailed(yield* call(lessonPath, { method: "PATCH", admin: true, headers: { "if-match": "\"1\"" }, json: { title: "no" } }), changed.body)
          assertPreconditionFailed(yield* call(lessonPath, { method: "DELETE", admin: true, headers: { "if-match": "\"1\"" } }), changed.body)
          const section = yield* call(`/courses/${course.body.id}/sections`, { method: "POST", admin: true, json: { title: "S" } })
          const sectionPath = `/courses/${course.body.id}/sections/${section.body.id}`
          const renamed = yield* call(sectionPath, { method: "PATCH", admin: true, headers: { "if-match": "\"1\"" }, json: { title: "S2" } })
          assertPreconditionFailed(yield* call(sectionPath, { method: "PATCH", admin: true, headers: { "if-match": "\"1\"" }, json: { title: "no" } }), renamed.body)
          assertPreconditionFailed(yield* call(sectionPath, { method: "DELETE", admin: true, headers: { "if-match": "\"1\"" } }), renamed.body)
          assert.strictEqual((yield* call(sectionPath, { method: "DELETE", admin: true, headers: { "if-match": "\"2\"" } })).status, 204)
        }))

      it.effect("a malformed If-Match or Coursekit-Autosave is a 400 naming the header, and nothing is written", () =>
        Effect.gen(function*() {
          const created = yield* call("/courses", { method: "POST", admin: true, json: { title: unique("Headers"), content_html: "" } })
          const path = `/courses/${created.body.id}`
          for (const bad of ["1", "\"1", "W/1", "\"a\"b\"", "\"1\" \"2\"", "x".repeat(8000)]) {
            const reply = yield* call(path, { method: "PATCH", admin: true, headers: { "if-match": bad }, json: { title: "no" } })
            assert.strictEqual(reply.status, 400, bad)
            assert.strictEqual(reply.body.errors[0].path, "headers.if-match")
          }
          const autosave = yield* call(path, { method: "PATCH", admin: true, headers: { "coursekit-autosave": "yes" }, json: { title: "no" } })
          assert.strictEqual(autosave.status, 400)
          assert.strictEqual(autosave.body.errors[0].path, "headers.coursekit-autosave")
          assert.strictEqual((yield* call(path, { admin: true })).body.version, 1)
        }))

      it.effect("of 20 concurrent PATCHes carrying one If-Match exactly one is 200; the others are 412 and none of their fields is stored", () =>
        Effect.gen(function*() {
          const created = yield* call("/courses", { method: "POST", admin: true, json: { title: unique("Crowd"), content_html: "" } })
          const path = `/courses/${created.body.id}`
          const replies = yield* Effect.forEach(
            Array.from({ length: 20 }, (_, i) => i),
            (i) => call(path, { method: "PATCH", admin: true, headers: { "if-match": "\"1\"" }, json: { title: `Writer ${i}`, description: `from ${i}`, content_html: `<p>${i}</p>` } }),
            { concurrency: "unbounded" }
          )
          assert.deepStrictEqual(replies.map((reply) => reply.status).sort(), [200, ...Array.from({ length: 19 }, () => 412)])
          const stored = (yield* call(path, { admin: true })).body
          const writer = stored.title.slice("Writer ".length)
          assert.deepStrictEqual([stored.description, stored.content_html, stored.version], [`from ${writer}`, `<p>${writer}</p>`, 2])
          const revisions = yield* call(`${path}/revisions`, { admin: true })
          assert.deepStrictEqual(revisions.body.map((revision: any) => revision.version), [2, 1])
        }))

      it.effect("revisions name their authors; autosaves coalesce; pages follow Link; a revision shows its record; restore writes it back as a new version", () =>
        Effect.gen(function*() {
          const created = yield* call("/courses", { method: "POST", headers: asAda(), json: { title: unique("History"), content_html: "<p>one</p>" } })
          const path = `/courses/${created.body.id}`
          for (const n of [2, 3, 4]) {
            const saved = yield* call(path, { method: "PATCH", headers: asAda({ "coursekit-autosave": "1" }), json: { content_html: `<p>${n}</p>` } })
            assert.strictEqual(saved.status, 200)
          }
          yield* call(path, { method: "PATCH", admin: true, json: { title: "Retitled" } })
          const all = yield* call(`${path}/revisions`, { admin: true })
          assert.deepStrictEqual(all.body.map((revision: any) => [revision.version, revision.author, revision.autosave, revision.changed]), [
            [5, bareAuthor, false, ["title"]],
            [4, "ada", true, ["content_html"]],
            [1, "ada", false, ["title", "description", "content_html", "status", "publish_at", "thumbnail_key"]]
          ])
          const page = yield* call(`${path}/revisions?limit=2`, { admin: true })
          assert.strictEqual(page.body.length, 2)
          const link = page.headers.get("link") ?? ""
          assert.match(link, new RegExp(`^<${path}/revisions\\?cursor=${all.body[2].revision_id}&limit=2>; rel="next"$`))
          const next = yield* call(link.slice(1, link.indexOf(">")), { admin: true })
          assert.deepStrictEqual(next.body.map((revision: any) => revision.version), [1])
          const one = yield* call(`${path}/revisions/${all.body[2].revision_id}`, { admin: true })
          assert.strictEqual(one.body.record.content_html, "<p>one</p>")
          const restored = yield* call(`${path}/revisions/${all.body[2].revision_id}/restore`, { method: "POST", headers: asAda({ "if-match": "\"5\"" }) })
          assert.strictEqual(restored.status, 200)
          assert.strictEqual(restored.headers.get("etag"), "\"6\"")
          assert.deepStrictEqual([restored.body.title, restored.body.content_html, restored.body.version], [created.body.title, "<p>one</p>", 6])
          const newest = (yield* call(`${path}/revisions?limit=1`, { admin: true })).body[0]
          assert.deepStrictEqual([newest.version, newest.author, newest.note, newest.changed], [6, "ada", `Restored from revision ${all.body[2].revision_id}.`, ["title", "content_html"]])
          const staleRestore = yield* call(`${path}/revisions/${all.body[2].revision_id}/restore`, { method: "POST", headers: asAda({ "if-match": "\"5\"" }) })
          assert.strictEqual(staleRestore.status, 412)
          assert.strictEqual((yield* call(`${path}/revisions/999999999`, { admin: true })).status, 404)
          assert.strictEqual((yield* call(`/courses/999999999/revisions`, { admin: true })).status, 404)
          assert.strictEqual((yield* call(`${path}/revisions`)).status, 401)
        }))

      it.effect("a new thumbnail is a change of the course: a revision by the admin who finalized it, naming thumbnail_key", () =>
        Effect.gen(function*() {
          const course = yield* call("/courses", { method: "POST", admin: true, json: { title: unique("Pictured"), content_html: "" } })
          const path = `/courses/${course.body.id}`
          const png = readFileSync(join(import.meta.dirname, "../../../docs/images/cover.png"))
          const issued = yield* call(`${path}/upload-url`, { method: "POST", headers: asAda(), json: { file_name: "cover.png", content_type: "image/png" } })
          const put = yield* Effect.promise(() => fetch(issued.body.upload_url, { method: "PUT", headers: issued.body.headers, body: png }))
          assert.strictEqual(put.status, 200)
          const finalized = yield* call(`${path}/finalize-upload`, { method: "POST", headers: asAda(), json: { file_key: issued.body.file_key } })
          assert.strictEqual(finalized.status, 200)
          assert.strictEqual(finalized.body.version, 2)
          const [newest] = (yield* call(`${path}/revisions`, { admin: true })).body
          assert.deepStrictEqual([newest.version, newest.author, newest.changed], [2, "ada", ["thumbnail_key"]])
        }))

      it.effect("a restore keeps the current thumbnail when the revision's was deleted from the library, and says so", () =>
        Effect.gen(function*() {
          const course = yield* call("/courses", { method: "POST", admin: true, json: { title: unique("Repictured"), content_html: "" } })
          const path = `/courses/${course.body.id}`
          const png = readFileSync(join(import.meta.dirname, "../../../docs/images/cover.png"))
          const thumbnail = Effect.gen(function*() {
            const issued = yield* call(`${path}/upload-url`, { method: "POST", admin: true, json: { file_name: "cover.png", content_type: "image/png" } })
            yield* Effect.promise(() => fetch(issued.body.upload_url, { method: "PUT", headers: issued.body.headers, body: png }))
            return (yield* call(`${path}/finalize-upload`, { method: "POST", admin: true, json: { file_key: issued.body.file_key } })).body
          })
          const first = yield* thumbnail
          yield* call(path, { method: "PATCH", admin: true, json: { title: `${course.body.title}, renamed` } })
          const second = yield* thumbnail
          assert.notStrictEqual(second.thumbnail_key, first.thumbnail_key)
          assert.strictEqual((yield* call(`/admin/media?file_key=${encodeURIComponent(first.thumbnail_key)}`, { method: "DELETE", admin: true })).status, 204)
          const withFirst = (yield* call(`${path}/revisions`, { admin: true })).body.find((revision: any) => revision.version === first.version)
          const restored = yield* call(`${path}/revisions/${withFirst.revision_id}/restore`, { method: "POST", admin: true })
          assert.strictEqual(restored.status, 200, JSON.stringify(restored.body))
          assert.deepStrictEqual([restored.body.title, restored.body.thumbnail_key], [course.body.title, second.thumbnail_key])
          const newest = (yield* call(`${path}/revisions?limit=1`, { admin: true })).body[0]
          assert.strictEqual(
            newest.note,
            `Restored from revision ${withFirst.revision_id}. Its thumbnail ${first.thumbnail_key} no longer exists: the current one was kept.`
          )
        }))

      it.effect("a lesson restored into a section that no longer exists comes back among the loose lessons, and its revision says so", () =>
        Effect.gen(function*() {
          const course = yield* call("/courses", { method: "POST", admin: true, json: { title: unique("Moved"), content_html: "" } })
          const base = `/courses/${course.body.id}`
          const section = yield* call(`${base}/sections`, { method: "POST", admin: true, json: { title: "Week 1" } })
          const lesson = yield* call(`${base}/lessons`, { method: "POST", admin: true, json: { title: "In week 1", section_id: section.body.id, content_html: "<p>first</p>" } })
          const lessonPath = `${base}/lessons/${lesson.body.id}`
          yield* call(lessonPath, { method: "PATCH", admin: true, json: { content_html: "<p>second</p>" } })
          assert.strictEqual((yield* call(`${base}/sections/${section.body.id}?lessons=detach`, { method: "DELETE", admin: true })).status, 204)
          const revisions = (yield* call(`${lessonPath}/revisions`, { admin: true })).body
          assert.deepStrictEqual(revisions.map((revision: any) => revision.changed), [["section_id"], ["content_html"], ["title", "content_html", "is_preview", "video_key", "status", "publish_at", "section_id", "available_after_days"]])
          const first = revisions[2]
          assert.strictEqual((yield* call(`${lessonPath}/revisions/${first.revision_id}`, { admin: true })).body.record.section_id, section.body.id)
          const restored = yield* call(`${lessonPath}/revisions/${first.revision_id}/restore`, { method: "POST", admin: true })
          assert.strictEqual(restored.status, 200, JSON.stringify(restored.body))
          assert.deepStrictEqual([restored.body.section_id, restored.body.content_html], [null, "<p>first</p>"])
          const newest = (yield* call(`${lessonPath}/revisions?limit=1`, { admin: true })).body[0]
          assert.strictEqual(
            newest.note,
            `Restored from revision ${first.revision_id}. Its section ${section.body.id} no longer exists: it was restored among the loose lessons.`
          )
          assert.deepStrictEqual(newest.changed, ["content_html"])
        }))
    })
  })
