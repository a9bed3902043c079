import { assert, describe, layer } from "@effect/vitest"
import { Effect } from "effect"
import { call, layerTestServer, type Reply, TestServer } from "./TestServer.ts"

// The admin lesson endpoints over HTTP on the standalone server (PGlite).

const assertProblem = (reply: Reply, status: number) => {
  assert.strictEqual(reply.status, status, reply.text)
  assert.strictEqual(reply.headers.get("content-type"), "application/problem+json")
  assert.strictEqual(reply.body.status, status)
  assert.isString(reply.body.detail)
}

const newCourse = (title: string) =>
  Effect.map(call("/courses", { method: "POST", admin: true, json: { title, content_html: "" } }), (reply) => reply.body.id as number)
const create = (courseId: number, json: unknown) => call(`/courses/${courseId}/lessons`, { method: "POST", admin: true, json })
const patch = (courseId: number, lessonId: number, json: unknown) =>
  call(`/courses/${courseId}/lessons/${lessonId}`, { method: "PATCH", admin: true, json })
/** A media upload URL of `visibility`. */
const mediaUploadUrl = (visibility: "public" | "private") =>
  call("/admin/media/upload-url", { method: "POST", admin: true, json: { filename: "v.mp4", type: "video/mp4", visibility } })
/** PUTs `body` to the issued URL and finalizes it. */
const finalizeMedia = (issued: Reply, body: string) =>
  Effect.gen(function*() {
    const put = yield* Effect.promise(() => fetch(issued.body.upload_url, { method: "PUT", headers: issued.body.headers, body }))
    assert.strictEqual(put.status, 200)
    const finalized = yield* call("/admin/media/finalize-upload", { method: "POST", admin: true, json: { file_key: issued.body.file_key } })
    assert.strictEqual(finalized.status, 200, finalized.text)
    return finalized.body
  })
const titles = (courseId: number) =>
  Effect.map(call(`/courses/${courseId}/lessons`, { admin: true }), (reply) => {
    assert.strictEqual(reply.status, 200, reply.text)
    const lessons = reply.body as Array<{ title: string; position: number }>
    assert.deepStrictEqual(lessons.map((lesson) => lesson.position), lessons.map((_, i) => i + 1))
    return lessons.map((lesson) => lesson.title)
  })

describe("lessons over HTTP (PGlite)", () => {
  layer(layerTestServer(), { timeout: 60_000, excludeTestServices: true })((it) => {
    it.effect("create (201, sanitized), list in order, move, delete (204); positions stay 1…n", () =>
      Effect.gen(function*() {
        const id = yield* newCourse("Lesson CRUD")
        const first = yield* create(id, { title: "  One  ", content_html: `<p onclick="steal()">Hello<script>alert(1)</script></p>` })
        assert.strictEqual(first.status, 201, first.text)
        assert.deepStrictEqual(
          [first.body.title, first.body.content_html, first.body.position, first.body.is_preview, first.body.video_key, first.body.video_url],
          ["One", "<p>Hello</p>", 1, false, null, null]
        )
        assert.strictEqual(first.body.course_id, id)
        const two = (yield* create(id, { title: "Two" })).body
        const zero = (yield* create(id, { title: "Zero", position: 1, is_preview: true })).body
        assert.deepStrictEqual(yield* titles(id), ["Zero", "One", "Two"])
        const moved = yield* patch(id, zero.id, { position: 3, title: "Zero!" })
        assert.strictEqual(moved.status, 200, moved.text)
        assert.strictEqual(moved.body.position, 3)
        assert.deepStrictEqual(yield* titles(id), ["One", "Two", "Zero!"])
        yield* patch(id, zero.id, { position: 1000 })
        assert.deepStrictEqual(yield* titles(id), ["One", "Two", "Zero!"])
        const deleted = yield* call(`/courses/${id}/lessons/${two.id}`, { method: "DELETE", admin: true })
        assert.strictEqual(deleted.status, 204)
        assert.deepStrictEqual(yield* titles(id), ["One", "Zero!"])
        assertProblem(yield* call(`/courses/${id}/lessons/${two.id}`, { method: "DELETE", admin: true }), 404)
      }))

    it.effect("20 concurrent moves keep a dense, unique order", () =>
      Effect.gen(function*() {
        const id = yield* newCourse("Concurrent moves")
        const lessons: Array<number> = []
        for (let i = 0; i < 8; i++) lessons.push((yield* create(id, { title: `L${i}` })).body.id)
        const replies = yield* Effect.forEach(
          Array.from({ length: 20 }, (_, i) => i),
          (i) => patch(id, lessons[(i * 5) % 8]!, { position: 1 + ((i * 3) % 8) }),
          { concurrency: "unbounded" }
        )
        assert.deepStrictEqual([...new Set(replies.map((reply) => reply.status))], [200])
        const order = yield* titles(id)
        assert.strictEqual(new Set(order).size, 8)
      }))

    it.effect("video_key must name a finalized media file (422); a finalized one gives video_url", () =>
      Effect.gen(function*() {
        const id = yield* newCourse("Lesson video")
        const refused = yield* create(id, { title: "V", video_key: "media/never-uploaded.mp4" })
        assertProblem(refused, 422)
        assert.deepStrictEqual(refused.body.errors.map((error: { path: string }) => error.path), ["body.video_key"])
        // Issued but never finalized is not enough either.
        const issued = yield* mediaUploadUrl("private")
        assertProblem(yield* create(id, { title: "V", video_key: issued.body.file_key }), 422)
        yield* finalizeMedia(issued, "bytes")
        const created = yield* create(id, { title: "V", video_key: issued.body.file_key })
        assert.strictEqual(created.status, 201, created.text)
        // A private video: a URL signed for this response, under the file route.
        const signed = new URL(created.body.video_url)
        assert.strictEqual(`${signed.origin}${signed.pathname}`, `${(yield* TestServer).url}/files/${issued.body.file_key}`)
        assert.strictEqual(Number(signed.searchParams.get("expires")) * 1000, Date.parse(created.body.video_url_expires_at))
        const served = yield* Effect.promise(() => fetch(created.body.video_url).then((response) => response.text()))
        assert.strictEqual(served, "bytes")
        const listed = (yield* call(`/courses/${id}/lessons`, { admin: true })).body[0]
        assert.isString(listed.video_url_expires_at)
        assertProblem(yield* patch(id, created.body.id, { video_key: "media/nope.mp4" }), 422)
        const cleared = (yield* patch(id, created.body.id, { video_key: null })).body
        assert.deepStrictEqual([cleared.video_url, cleared.video_url_expires_at], [null, null])
      }))

    it.effect("a lesson that is not a preview may not use a public video: 422 on create and on either change, nothing changed", () =>
      Effect.gen(function*() {
        const id = yield* newCourse("Public video rule")
        const publicVideo = yield* mediaUploadUrl("public")
        yield* finalizeMedia(publicVideo, "trailer")
        const privateVideo = yield* mediaUploadUrl("private")
        yield* finalizeMedia(privateVideo, "lecture")
        const refused = yield* create(id, { title: "Paid", video_key: publicVideo.body.file_key })
        assertProblem(refused, 422)
        assert.include(refused.body.detail, "only a preview lesson may use it")
        assert.deepStrictEqual(refused.body.errors.map((error: { path: string }) => error.path), ["body.video_key"])
        const preview = yield* create(id, { title: "Trailer", video_key: publicVideo.body.file_key, is_preview: true })
        assert.strictEqual(preview.status, 201, preview.text)
        assert.deepStrictEqual(
          [preview.body.video_url, preview.body.video_url_expires_at],
          [`${(yield* TestServer).url}/files/${publicVideo.body.file_key}`, null]
        )
        const paid = yield* create(id, { title: "Lecture", video_key: privateVideo.body.file_key })
        assert.strictEqual(paid.status, 201, paid.text)
        assertProblem(yield* patch(id, preview.body.id, { is_preview: false }), 422)
        assertProblem(yield* patch(id, paid.body.id, { video_key: publicVideo.body.file_key, title: "Renamed" }), 422)
        const lessons = (yield* call(`/courses/${id}/lessons`, { admin: true })).body as Array<Record<string, unknown>>
        assert.deepStrictEqual(lessons.map((lesson) => [lesson.title, lesson.is_preview, lesson.video_key]), [
          ["Trailer", true, publicVideo.body.file_key],
          ["Lecture", false, privateVideo.body.file_key]
        ])
        // A preview may use a private video too.
        const swapped = yield* patch(id, preview.body.id, { video_key: privateVideo.body.file_key })
        assert.strictEqual(swapped.status, 200, swapped.text)
        assert.strictEqual((yield* patch(id, preview.body.id, { is_preview: false })).status, 200)
      }))

    it.effect("bad input is 400; unknown course or lesson 404; every lesson and purchase endpoint needs an admin", () =>
      Effect.gen(function*() {
        const id = yield* newCourse("Lesson errors")
        const lesson = (yield* create(id, { title: "x" })).body
        const other = yield* newCourse("Other course")
        for (const json of [{}, { title: "" }, { title: "x", extra: 1 }, { title: "x", position: 0 }, { title: "x", is_preview: "yes" }]) {
          assertProblem(yield* create(id, json), 400)
        }
        assertProblem(yield* patch(id, lesson.id, { position: -1 }), 400)
        assertProblem(yield* create(999_999, { title: "x" }), 404)
        assertProblem(yield* call("/courses/999999/lessons", { admin: true }), 404)
        assertProblem(yield* patch(other, lesson.id, { title: "moved across courses?" }), 404)
        assertProblem(yield* call(`/admin/courses/999999/purchases/u1`, { method: "PUT", admin: true }), 404)
        for (
          const [method, path] of [
            ["POST", `/courses/${id}/lessons`],
            ["GET", `/courses/${id}/lessons`],
            ["PATCH", `/courses/${id}/lessons/${lesson.id}`],
            ["DELETE", `/courses/${id}/lessons/${lesson.id}`],
            ["PUT", `/admin/courses/${id}/purchases/u1`],
            ["DELETE", `/admin/courses/${id}/purchases/u1`]
          ] as const
        ) {
          assertProblem(yield* call(path, { method, ...(method === "POST" || method === "PATCH" ? { json: { title: "t" } } : {}) }), 401)
        }
      }))

    it.effect("deleting a course deletes its lessons and purchases", () =>
      Effect.gen(function*() {
        const id = yield* newCourse("Cascade")
        yield* create(id, { title: "gone" })
        yield* call(`/admin/courses/${id}/purchases/u1`, { method: "PUT", admin: true })
        assert.strictEqual((yield* call(`/courses/${id}`, { method: "DELETE", admin: true })).status, 204)
        assertProblem(yield* call(`/courses/${id}/lessons`, { admin: true }), 404)
      }))
  })
})
