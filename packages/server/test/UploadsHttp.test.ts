import { assert, describe, layer } from "@effect/vitest"
import { Effect } from "effect"
import { call, layerTestServer, TestServer } from "./TestServer.ts"
import { assertProblem, createCourse, fetchBytes, finalizeMedia, finalizeThumbnail, mediaUrl, putBytes, thumbnailUrl } from "./UploadCalls.ts"

// Both upload flows end to end on the standalone server with its defaults (PGlite, the
// local-disk store): real presigned URLs, real PUTs of bytes, real finalizes.

const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, ...Array.from({ length: 300 }, (_, i) => i % 256)])

describe("upload flows over HTTP (PGlite, local disk)", () => {
  // Real clocks: URLs are signed with the server's time and checked against it.
  layer(layerTestServer(), { timeout: 60_000, excludeTestServices: true })((it) => {
    it.effect("a thumbnail URL issued without size_bytes takes at most the thumbnail limit, not the media limit (413, nothing stored)", () =>
      Effect.gen(function*() {
        const id = yield* createCourse("Capped thumbnail")
        const issued = yield* thumbnailUrl(id, { file_name: "huge.png", content_type: "image/png" })
        const tooLarge = yield* putBytes(issued.body.upload_url, issued.body.headers, new Uint8Array(10 * 1024 * 1024 + 1))
        assert.strictEqual(tooLarge.status, 413, tooLarge.text)
        assertProblem(yield* finalizeThumbnail(id, issued.body.file_key), 409)
        const media = yield* mediaUrl({ filename: "clip.mp4", type: "video/mp4" })
        // The media limit (50 MiB here) still admits what a thumbnail may not.
        assert.strictEqual((yield* putBytes(media.body.upload_url, media.body.headers, new Uint8Array(10 * 1024 * 1024 + 1))).status, 200)
      }))

    it.effect("an uploaded file is not served before it is finalized: 404, then 200 once finalized", () =>
      Effect.gen(function*() {
        const { url } = yield* TestServer
        const id = yield* createCourse("Served once finalized")
        const issued = yield* thumbnailUrl(id, { file_name: "cover.png", content_type: "image/png" })
        assert.strictEqual((yield* putBytes(issued.body.upload_url, issued.body.headers, png)).status, 200)
        const fileUrl = `${url}/files/${issued.body.file_key}`
        const early = yield* fetchBytes(fileUrl)
        assert.strictEqual(early.status, 404)
        assert.notDeepEqual(early.body, png)
        const head = yield* Effect.promise(() => fetch(fileUrl, { method: "HEAD" }))
        assert.strictEqual(head.status, 404)
        const finalized = yield* finalizeThumbnail(id, issued.body.file_key)
        assert.strictEqual(finalized.body.thumbnail_url, fileUrl)
        const served = yield* fetchBytes(fileUrl)
        assert.strictEqual(served.status, 200)
        assert.deepStrictEqual(served.body, png)
        // The URL is still valid, but the file it took stays the one that was finalized.
        const replaced = yield* putBytes(issued.body.upload_url, issued.body.headers, new Uint8Array(5000).fill(1))
        assert.strictEqual(replaced.status, 409, replaced.text)
        assert.deepStrictEqual((yield* fetchBytes(fileUrl)).body, png)
        // A key the database cannot store is a 404 before the database is asked.
        assertProblem(yield* call("/files/a%00b"), 404)
        // Media too: a PUT alone publishes nothing.
        const media = yield* mediaUrl({ filename: "clip.mp4", type: "video/mp4" })
        assert.strictEqual((yield* putBytes(media.body.upload_url, media.body.headers, png)).status, 200)
        assert.strictEqual((yield* fetchBytes(`${url}/files/${media.body.file_key}`)).status, 404)
      }))

    it.effect("thumbnail: upload-url, PUT, finalize; thumbnail_url serves the bytes; finalize twice is the same", () =>
      Effect.gen(function*() {
        const id = yield* createCourse("Thumbnail flow")
        const issued = yield* thumbnailUrl(id, { file_name: "Cover.PNG", content_type: "image/png" })
        assert.strictEqual(issued.status, 200, issued.text)
        assert.match(issued.body.file_key, new RegExp(`^courses/${id}/[0-9a-f-]{36}\\.png$`))
        assert.deepStrictEqual(issued.body.headers, { "Content-Type": "image/png" })
        assert.isAbove(Date.parse(issued.body.expires_at) - Date.now(), 290_000)
        const stored = yield* putBytes(issued.body.upload_url, issued.body.headers, png)
        assert.strictEqual(stored.status, 200, stored.text)
        const finalized = yield* finalizeThumbnail(id, issued.body.file_key)
        assert.strictEqual(finalized.status, 200, finalized.text)
        assert.strictEqual(finalized.body.thumbnail_key, issued.body.file_key)
        assert.strictEqual(finalized.body.thumbnail_url, `${(yield* TestServer).url}/files/${issued.body.file_key}`)
        const served = yield* fetchBytes(finalized.body.thumbnail_url)
        assert.strictEqual(served.status, 200)
        assert.deepStrictEqual(served.body, png)
        assert.strictEqual(served.headers.get("content-type"), "image/png")
        assert.strictEqual(served.headers.get("x-content-type-options"), "nosniff")
        const again = yield* finalizeThumbnail(id, issued.body.file_key)
        assert.strictEqual(again.status, 200)
        assert.strictEqual(again.body.thumbnail_url, finalized.body.thumbnail_url)
        const read = yield* call(`/courses/${id}`)
        assert.strictEqual(read.body.thumbnail_url, finalized.body.thumbnail_url)
        const listed = yield* call(`/courses?cursor=${id}&limit=1`)
        assert.strictEqual(listed.body[0].thumbnail_url, finalized.body.thumbnail_url)
      }))

    it.effect("media: size from storage, 50 concurrent finalizes give one record, the library pages", () =>
      Effect.gen(function*() {
        const issued = yield* mediaUrl({ filename: "intro.mp4", type: "video/mp4", size_bytes: png.byteLength })
        assert.strictEqual(issued.status, 200, issued.text)
        assert.deepStrictEqual(issued.body.headers, { "Content-Type": "video/mp4", "Content-Length": String(png.byteLength) })
        assert.strictEqual((yield* putBytes(issued.body.upload_url, issued.body.headers, png)).status, 200)
        const results = yield* Effect.forEach(Array.from({ length: 50 }), () => finalizeMedia(issued.body.file_key), { concurrency: "unbounded" })
        assert.deepStrictEqual([...new Set(results.map((reply) => reply.status))], [200])
        assert.strictEqual(new Set(results.map((reply) => reply.body.id)).size, 1)
        const file = results[0]!.body
        assert.strictEqual(file.size_bytes, png.byteLength)
        assert.strictEqual(file.content_type, "video/mp4")
        assert.strictEqual(file.name, "intro.mp4")
        assert.deepStrictEqual((yield* fetchBytes(file.url)).body, png)
        const page = yield* call(`/admin/media?cursor=${file.id}&limit=1`, { admin: true })
        assert.strictEqual(page.status, 200)
        assert.deepStrictEqual(page.body.map((item: { file_key: string }) => item.file_key), [issued.body.file_key])
        assertProblem(yield* call("/admin/media"), 401)
      }))

    it.effect("finalize before the PUT is 409 and records nothing; a key of another course or a forged key is 404", () =>
      Effect.gen(function*() {
        const a = yield* createCourse("Course A")
        const b = yield* createCourse("Course B")
        const issued = yield* thumbnailUrl(a, { file_name: "a.jpg", content_type: "image/jpeg" })
        assertProblem(yield* finalizeThumbnail(a, issued.body.file_key), 409)
        assert.isNull((yield* call(`/courses/${a}`)).body.thumbnail_key)
        yield* putBytes(issued.body.upload_url, issued.body.headers, png)
        assertProblem(yield* finalizeThumbnail(b, issued.body.file_key), 404)
        assertProblem(yield* finalizeThumbnail(a, `courses/${a}/00000000-0000-4000-8000-000000000000.jpg`), 404)
        assertProblem(yield* finalizeMedia(issued.body.file_key), 404)
        assertProblem(yield* finalizeThumbnail(999_999, issued.body.file_key), 404)
        assert.strictEqual((yield* finalizeThumbnail(a, issued.body.file_key)).status, 200)
      }))

    it.effect("SVG is refused (415); a declared size over the limit is 413; a PUT of another type or size is refused by storage", () =>
      Effect.gen(function*() {
        const id = yield* createCourse("Refusals")
        assertProblem(yield* thumbnailUrl(id, { file_name: "x.svg", content_type: "image/svg+xml" }), 415)
        assertProblem(yield* mediaUrl({ filename: "x.svg", type: "image/svg+xml" }), 415)
        assertProblem(yield* thumbnailUrl(id, { file_name: "x.png", content_type: "image/png", size_bytes: 10 * 1024 * 1024 + 1 }), 413)
        const issued = yield* thumbnailUrl(id, { file_name: "x.png", content_type: "image/png", size_bytes: 10 })
        const wrongType = yield* putBytes(issued.body.upload_url, { "Content-Type": "image/svg+xml", "Content-Length": "10" }, png.slice(0, 10))
        assert.strictEqual(wrongType.status, 403, wrongType.text)
        assert.strictEqual(JSON.parse(wrongType.text).detail, "The Content-Type must be image/png, as signed.")
        const wrongSize = yield* putBytes(issued.body.upload_url, { "Content-Type": "image/png" }, png)
        assert.strictEqual(wrongSize.status, 413, wrongSize.text)
        assert.strictEqual(JSON.parse(wrongSize.text).detail, `The body must be 10 bytes, as signed; it is ${png.byteLength}.`)
        assertProblem(yield* finalizeThumbnail(id, issued.body.file_key), 409)
      }))

    it.effect("path-traversal file names never reach the key; the name kept is the last segment", () =>
      Effect.gen(function*() {
        for (const filename of ["../../etc/passwd.png", "..\\..\\boot.ini", "/abs/olute.gif", "a/b/../../c.webp"]) {
          const issued = yield* mediaUrl({ filename, type: "image/png" })
          assert.strictEqual(issued.status, 200, issued.text)
          assert.match(issued.body.file_key, /^media\/[0-9a-f-]{36}\.[a-z0-9]{1,10}$/, filename)
        }
        const issued = yield* mediaUrl({ filename: "../../etc/passwd.png", type: "image/png" })
        yield* putBytes(issued.body.upload_url, issued.body.headers, png)
        assert.strictEqual((yield* finalizeMedia(issued.body.file_key)).body.name, "passwd.png")
        // A traversal in the URL path: fetch resolves the dots, so the PUT lands outside the store's routes.
        const { url } = { url: new URL(issued.body.upload_url) }
        const traversal = yield* putBytes(`${url.origin}/storage/../../etc/x.png${url.search}`, issued.body.headers, png)
        assert.strictEqual(traversal.status, 404, traversal.text)
        assert.strictEqual(JSON.parse(traversal.text).detail, "No route for PUT /etc/x.png.")
        // With encoded slashes it reaches the store's route, which refuses the key outright.
        const encoded = yield* putBytes(`${url.origin}/storage/..%2F..%2Fetc%2Fx.png${url.search}`, issued.body.headers, png)
        assert.strictEqual(encoded.status, 400, encoded.text)
        assert.strictEqual(JSON.parse(encoded.text).detail, `Invalid storage key "../../etc/x.png": it has a ".." segment.`)
      }))

    it.effect("bodies are strict (unknown fields 400); every upload endpoint needs the admin token (401)", () =>
      Effect.gen(function*() {
        const id = yield* createCourse("Strict")
        assertProblem(yield* thumbnailUrl(id, { file_name: "x.png", content_type: "image/png", extra: 1 }), 400)
        assertProblem(yield* mediaUrl({ filename: "x.png", type: "image/png", file_name: "x" }), 400)
        assertProblem(yield* call("/admin/media/finalize-upload", { method: "POST", admin: true, json: { file_key: "k", x: 1 } }), 400)
        assertProblem(yield* mediaUrl({ filename: "", type: "image/png" }), 400)
        assertProblem(yield* mediaUrl({ filename: "x.png", type: "Image/PNG" }), 400)
        for (
          const [path, json] of [
            [`/courses/${id}/upload-url`, { file_name: "x.png", content_type: "image/png" }],
            [`/courses/${id}/finalize-upload`, { file_key: "k" }],
            ["/admin/media/upload-url", { filename: "x.png", type: "image/png" }],
            ["/admin/media/finalize-upload", { file_key: "k" }]
          ] as const
        ) {
          assertProblem(yield* call(path, { method: "POST", json }), 401)
        }
      }))

    it.effect("private media: a private/media/ key; finalize and the library answer a signed url with url_expires_at and visibility", () =>
      Effect.gen(function*() {
        const { url } = yield* TestServer
        const issued = yield* mediaUrl({ filename: "lecture.mp4", type: "video/mp4", visibility: "private" })
        assert.strictEqual(issued.status, 200, issued.text)
        assert.match(issued.body.file_key, /^private\/media\/[0-9a-f-]{36}\.mp4$/)
        assert.strictEqual((yield* putBytes(issued.body.upload_url, issued.body.headers, png)).status, 200)
        const finalized = yield* finalizeMedia(issued.body.file_key)
        assert.strictEqual(finalized.status, 200, finalized.text)
        assert.strictEqual(finalized.body.visibility, "private")
        const signed = new URL(finalized.body.url)
        assert.strictEqual(`${signed.origin}${signed.pathname}`, `${url}/files/${issued.body.file_key}`)
        assert.strictEqual(Number(signed.searchParams.get("expires")) * 1000, Date.parse(finalized.body.url_expires_at))
        const served = yield* fetchBytes(finalized.body.url)
        assert.deepStrictEqual([served.status, served.body], [200, png])
        assert.strictEqual((yield* fetchBytes(`${url}/files/${issued.body.file_key}`)).status, 403)
        const listed = (yield* call("/admin/media?limit=50", { admin: true })).body as Array<Record<string, unknown>>
        const entry = listed.find((file) => file.file_key === issued.body.file_key)!
        assert.strictEqual(entry.visibility, "private")
        assert.isString(entry.url_expires_at)
        // Public stays as the specification has it: a permanent URL, no expiry.
        const open = yield* mediaUrl({ filename: "trailer.mp4", type: "video/mp4" })
        assert.match(open.body.file_key, /^media\/[0-9a-f-]{36}\.mp4$/)
        yield* putBytes(open.body.upload_url, open.body.headers, png)
        const shown = (yield* finalizeMedia(open.body.file_key)).body
        assert.deepStrictEqual([shown.visibility, shown.url, shown.url_expires_at], ["public", `${url}/files/${open.body.file_key}`, null])
        assertProblem(yield* mediaUrl({ filename: "x.mp4", type: "video/mp4", visibility: "secret" }), 400)
      }))

    it.effect("GET /admin/media?kind=&visibility= lists only those files, limit of them a page, the Link keeping both; other values 400", () =>
      Effect.gen(function*() {
        const upload = (filename: string, type: string, visibility: string) =>
          Effect.gen(function*() {
            const issued = (yield* mediaUrl({ filename, type, visibility })).body
            yield* putBytes(issued.upload_url, issued.headers, png)
            return (yield* finalizeMedia(issued.file_key)).body as { id: number; file_key: string }
          })
        const first = yield* upload("filter-cover.png", "image/png", "public")
        yield* upload("filter-paid-1.mp4", "video/mp4", "private")
        yield* upload("filter-teaser.mp4", "video/mp4", "public")
        yield* upload("filter-handout.png", "image/png", "private")
        yield* upload("filter-paid-2.webm", "video/webm", "private")
        const names = (query: string) =>
          Effect.map(call(`/admin/media?cursor=${first.id}&limit=50${query}`, { admin: true }), (reply) => {
            assert.strictEqual(reply.status, 200, reply.text)
            return (reply.body as Array<{ name: string }>).map((file) => file.name).filter((name) => name.startsWith("filter-"))
          })
        assert.deepStrictEqual(yield* names(""), ["filter-cover.png", "filter-paid-1.mp4", "filter-teaser.mp4", "filter-handout.png", "filter-paid-2.webm"])
        assert.deepStrictEqual(yield* names("&kind=video"), ["filter-paid-1.mp4", "filter-teaser.mp4", "filter-paid-2.webm"])
        assert.deepStrictEqual(yield* names("&kind=image"), ["filter-cover.png", "filter-handout.png"])
        assert.deepStrictEqual(yield* names("&visibility=public"), ["filter-cover.png", "filter-teaser.mp4"])
        assert.deepStrictEqual(yield* names("&kind=video&visibility=private"), ["filter-paid-1.mp4", "filter-paid-2.webm"])
        // A page of one private video; its Link goes on to the next private video, keeping the filter.
        const page = yield* call(`/admin/media?cursor=${first.id}&limit=1&kind=video&visibility=private`, { admin: true })
        assert.deepStrictEqual((page.body as Array<{ name: string }>).map((file) => file.name), ["filter-paid-1.mp4"])
        const link = /<([^>]+)>; rel="next"/.exec(page.headers.get("link") ?? "")![1]!
        const next = new URL(link, "http://x")
        assert.deepStrictEqual([next.pathname, next.searchParams.get("kind"), next.searchParams.get("visibility"), next.searchParams.get("limit")], ["/admin/media", "video", "private", "1"])
        const second = yield* call(`${next.pathname}${next.search}`, { admin: true })
        assert.deepStrictEqual((second.body as Array<{ name: string }>).map((file) => file.name), ["filter-paid-2.webm"])
        assertProblem(yield* call("/admin/media?kind=audio", { admin: true }), 400)
        assertProblem(yield* call("/admin/media?visibility=secret", { admin: true }), 400)
        assertProblem(yield* call("/admin/media?kind=video"), 401)
      }))

    it.effect("GET /admin/media says per file what uses it (used_by), as DELETE's 409 names it", () =>
      Effect.gen(function*() {
        const upload = (visibility: "public" | "private") =>
          Effect.gen(function*() {
            const issued = yield* mediaUrl({ filename: "v.mp4", type: "video/mp4", visibility })
            yield* putBytes(issued.body.upload_url, issued.body.headers, png)
            return (yield* finalizeMedia(issued.body.file_key)).body as { id: number; file_key: string }
          })
        const played = yield* upload("private")
        const unused = yield* upload("public")
        const first = yield* createCourse("Plays the video")
        const second = yield* createCourse("Shows the thumbnail")
        const cover = yield* thumbnailUrl(second, { file_name: "cover.png", content_type: "image/png" })
        yield* putBytes(cover.body.upload_url, cover.body.headers, png)
        yield* finalizeThumbnail(second, cover.body.file_key)
        const lesson = (yield* call(`/courses/${first}/lessons`, { method: "POST", admin: true, json: { title: "A", video_key: played.file_key } })).body
        const other = (yield* call(`/courses/${second}/lessons`, { method: "POST", admin: true, json: { title: "B", video_key: played.file_key } })).body
        const usedBy = Effect.gen(function*() {
          const page = yield* call(`/admin/media?cursor=${played.id}&limit=50`, { admin: true })
          assert.strictEqual(page.status, 200, page.text)
          const byKey = new Map((page.body as Array<{ file_key: string; used_by: unknown }>).map((item) => [item.file_key, item.used_by]))
          return [played.file_key, unused.file_key, cover.body.file_key].map((key) => byKey.get(key))
        })
        assert.deepStrictEqual(yield* usedBy, [
          { lessons: [{ course_id: first, lesson_id: lesson.id }, { course_id: second, lesson_id: other.id }], thumbnail_of: null },
          { lessons: [], thumbnail_of: null },
          { lessons: [], thumbnail_of: second }
        ])
        const refused = yield* call(`/admin/media?file_key=${encodeURIComponent(played.file_key)}`, { method: "DELETE", admin: true })
        assertProblem(refused, 409)
        assert.deepStrictEqual({ lessons: refused.body.lessons, thumbnail_of: refused.body.thumbnail_of }, (yield* usedBy)[0])
        yield* call(`/courses/${first}/lessons/${lesson.id}`, { method: "DELETE", admin: true })
        // A new thumbnail replaces the old one: the old file shows nothing any more.
        const newCover = yield* thumbnailUrl(second, { file_name: "new.png", content_type: "image/png" })
        yield* putBytes(newCover.body.upload_url, newCover.body.headers, png)
        yield* finalizeThumbnail(second, newCover.body.file_key)
        assert.deepStrictEqual(yield* usedBy, [
          { lessons: [{ course_id: second, lesson_id: other.id }], thumbnail_of: null },
          { lessons: [], thumbnail_of: null },
          { lessons: [], thumbnail_of: null }
        ])
      }))

    it.effect("DELETE /admin/media: 404 unknown, 409 naming the lessons that play it, 204 and the file is gone", () =>
      Effect.gen(function*() {
        const remove = (fileKey: string) => call(`/admin/media?file_key=${encodeURIComponent(fileKey)}`, { method: "DELETE", admin: true })
        assertProblem(yield* remove("private/media/never.mp4"), 404)
        assertProblem(yield* call("/admin/media", { method: "DELETE", admin: true }), 400)
        assertProblem(yield* call(`/admin/media?file_key=${encodeURIComponent("private/media/x.mp4")}`, { method: "DELETE" }), 401)
        const issued = yield* mediaUrl({ filename: "v.mp4", type: "video/mp4", visibility: "private" })
        yield* putBytes(issued.body.upload_url, issued.body.headers, png)
        const signedUrl = (yield* finalizeMedia(issued.body.file_key)).body.url
        const id = yield* createCourse("Uses the video")
        const lesson = (yield* call(`/courses/${id}/lessons`, { method: "POST", admin: true, json: { title: "L", video_key: issued.body.file_key } })).body
        const inUse = yield* remove(issued.body.file_key)
        assertProblem(inUse, 409)
        assert.deepStrictEqual(inUse.body.lessons, [{ course_id: id, lesson_id: lesson.id }])
        assert.isNull(inUse.body.thumbnail_of)
        assert.include(inUse.body.detail, `lesson ${lesson.id} of course ${id}`)
        assert.strictEqual((yield* fetchBytes(signedUrl)).status, 200)
        yield* call(`/courses/${id}/lessons/${lesson.id}`, { method: "DELETE", admin: true })
        const removed = yield* remove(issued.body.file_key)
        assert.strictEqual(removed.status, 204, removed.text)
        assert.strictEqual((yield* fetchBytes(signedUrl)).status, 404)
        const listed = (yield* call("/admin/media?limit=50", { admin: true })).body as Array<{ file_key: string }>
        assert.isFalse(listed.some((file) => file.file_key === issued.body.file_key))
        assertProblem(yield* remove(issued.body.file_key), 404)
      }))

    it.effect("DELETE racing a repeated finalize of the same file: the file ends recorded and stored, or neither", () =>
      Effect.gen(function*() {
        const outcomes = new Set<string>()
        for (let round = 0; round < 12; round++) {
          const issued = yield* mediaUrl({ filename: "v.mp4", type: "video/mp4", visibility: "private" })
          yield* putBytes(issued.body.upload_url, issued.body.headers, png)
          const key = issued.body.file_key as string
          assert.strictEqual((yield* finalizeMedia(key)).status, 200)
          const [removed, finalized] = yield* Effect.all([
            call(`/admin/media?file_key=${encodeURIComponent(key)}`, { method: "DELETE", admin: true }),
            finalizeMedia(key)
          ], { concurrency: "unbounded" })
          assert.include([204], removed.status, removed.text)
          assert.include([200, 404], finalized.status, finalized.text)
          const listed = ((yield* call("/admin/media?limit=50", { admin: true })).body as Array<{ file_key: string; url: string }>)
            .find((file) => file.file_key === key)
          if (listed === undefined) {
            outcomes.add("gone")
          } else {
            // Still recorded: its object must still be there.
            assert.strictEqual((yield* fetchBytes(listed.url)).status, 200, `${key} is recorded but not stored`)
            outcomes.add("kept")
          }
          // Either way no record without its object, and a second delete settles it.
          if (listed !== undefined) assert.strictEqual((yield* call(`/admin/media?file_key=${encodeURIComponent(key)}`, { method: "DELETE", admin: true })).status, 204)
        }
      }))

    it.effect("deleting a course removes its thumbnail: the file is no longer served", () =>
      Effect.gen(function*() {
        const id = yield* createCourse("Thumbnail goes too")
        const issued = yield* thumbnailUrl(id, { file_name: "cover.png", content_type: "image/png" })
        yield* putBytes(issued.body.upload_url, issued.body.headers, png)
        const thumbnail = (yield* finalizeThumbnail(id, issued.body.file_key)).body.thumbnail_url
        assert.strictEqual((yield* fetchBytes(thumbnail)).status, 200)
        const refused = yield* call(`/admin/media?file_key=${encodeURIComponent(issued.body.file_key)}`, { method: "DELETE", admin: true })
        assertProblem(refused, 409)
        assert.strictEqual(refused.body.thumbnail_of, id)
        assert.strictEqual((yield* call(`/courses/${id}`, { method: "DELETE", admin: true })).status, 204)
        assert.strictEqual((yield* fetchBytes(thumbnail)).status, 404)
      }))

    it.effect("GET /health/ready checks the database and the storage", () =>
      Effect.gen(function*() {
        const reply = yield* call("/health/ready")
        assert.strictEqual(reply.status, 200)
        assert.deepStrictEqual(reply.body.checks.map((check: { name: string }) => check.name).sort(), ["database", "storage"])
      }))
  })
})
