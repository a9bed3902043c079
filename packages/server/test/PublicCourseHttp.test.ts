import { assert, describe, layer } from "@effect/vitest"
import { Duration, Effect } from "effect"
import { SignJWT } from "jose"
import { call, jwtSecret, layerTestServer, type Reply, TestServer } from "./TestServer.ts"

// The public course over HTTP on the standalone server (PGlite), for the four personas
// of DECISIONS §5: anonymous, a signed-in non-buyer, a buyer, and a forged or expired
// token. The locked lesson's text must not appear anywhere in the bytes of a response
// that must not show it.

const lockedText = "LOCKED-LESSON-BODY-7f3a"
const previewText = "PREVIEW-LESSON-BODY-91c2"

const secret = new TextEncoder().encode(jwtSecret)
const viewerToken = (sub: string, options: { readonly expiresIn?: string | number; readonly key?: Uint8Array } = {}) =>
  Effect.promise(() =>
    new SignJWT({})
      .setProtectedHeader({ alg: "HS256" })
      .setSubject(sub)
      .setIssuedAt()
      .setExpirationTime(options.expiresIn ?? "10m")
      .sign(options.key ?? secret)
  )
const bearer = (token: string) => ({ authorization: `Bearer ${token}` })

const assertProblem = (reply: Reply, status: number) => {
  assert.strictEqual(reply.status, status, reply.text)
  assert.strictEqual(reply.headers.get("content-type"), "application/problem+json")
  assert.strictEqual(reply.body.status, status)
}

/** Every byte of the response: status line, headers and body. */
const allBytes = (reply: Reply) => `${reply.status}\n${[...reply.headers].map(([name, value]) => `${name}: ${value}`).join("\n")}\n\n${reply.text}`

/** A course with a preview lesson and a locked one whose video is a finalized private media file. */
const setUp = (title: string) =>
  Effect.gen(function*() {
    const course = (yield* call("/courses", { method: "POST", admin: true, json: { title, content_html: "<p>Intro</p>" } })).body
    // The locked lesson's video: a finalized private media file (uploaded through the real flow).
    const issued = yield* call("/admin/media/upload-url", {
      method: "POST",
      admin: true,
      json: { filename: "v.mp4", type: "video/mp4", visibility: "private" }
    })
    assert.match(issued.body.file_key, /^private\/media\/[0-9a-f-]{36}\.mp4$/)
    yield* Effect.promise(() => fetch(issued.body.upload_url, { method: "PUT", headers: issued.body.headers, body: "video-bytes" }))
    const video = yield* call("/admin/media/finalize-upload", { method: "POST", admin: true, json: { file_key: issued.body.file_key } })
    assert.strictEqual(video.status, 200, video.text)
    const preview = yield* call(`/courses/${course.id}/lessons`, {
      method: "POST",
      admin: true,
      json: { title: "Free lesson", content_html: `<p>${previewText}</p>`, is_preview: true }
    })
    assert.strictEqual(preview.status, 201, preview.text)
    const locked = yield* call(`/courses/${course.id}/lessons`, {
      method: "POST",
      admin: true,
      json: { title: "Paid lesson", content_html: `<p>${lockedText}</p>`, video_key: issued.body.file_key }
    })
    assert.strictEqual(locked.status, 201, locked.text)
    return { course, preview: preview.body, locked: locked.body, videoKey: issued.body.file_key as string }
  })

const publicCourse = (slug: string, headers: Record<string, string> = {}) => call(`/public/courses/${slug}`, { headers })

/** A GET of a file URL: status, body as text, and the headers the tests look at. */
const fetchText = (url: string, headers: Record<string, string> = {}) =>
  Effect.promise(async () => {
    const response = await fetch(url, { headers })
    return {
      status: response.status,
      text: await response.text(),
      cacheControl: response.headers.get("cache-control"),
      contentRange: response.headers.get("content-range")
    }
  })

describe("the public course over HTTP (PGlite)", () => {
  layer(layerTestServer(), { timeout: 60_000, excludeTestServices: true })((it) => {
    it.effect("anonymous and a signed-in non-buyer see the previews only; the locked body is in no byte", () =>
      Effect.gen(function*() {
        const { course, preview, locked, videoKey } = yield* setUp("Personas one")
        const stranger = yield* viewerToken("user-stranger")
        for (const headers of [{}, bearer(stranger)]) {
          const reply = yield* publicCourse(course.slug, headers)
          assert.strictEqual(reply.status, 200, reply.text)
          assert.isFalse(reply.body.purchased)
          assert.deepStrictEqual(
            { id: reply.body.id, title: reply.body.title, slug: reply.body.slug, content_html: reply.body.content_html, thumbnail_url: reply.body.thumbnail_url },
            { id: course.id, title: "Personas one", slug: course.slug, content_html: "<p>Intro</p>", thumbnail_url: null }
          )
          assert.deepStrictEqual(reply.body.lessons, [
            {
              id: preview.id,
              title: "Free lesson",
              position: 1,
              is_preview: true,
              access: "preview",
              content_html: `<p>${previewText}</p>`,
              video_url: null,
              video_url_expires_at: null,
              available_at: null
            },
            {
              id: locked.id,
              title: "Paid lesson",
              position: 2,
              is_preview: false,
              access: "locked",
              content_html: null,
              video_url: null,
              video_url_expires_at: null,
              available_at: null
            }
          ])
          const bytes = allBytes(reply)
          assert.notInclude(bytes, lockedText)
          assert.notInclude(bytes, videoKey)
          assert.notInclude(bytes, "locked-video")
        }
      }))

    it.effect("a buyer sees every lesson; purchases are idempotent; a revoked purchase locks at once", () =>
      Effect.gen(function*() {
        const { course, locked, videoKey } = yield* setUp("Personas buyer")
        const token = yield* viewerToken("auth0|buyer-1")
        const path = `/admin/courses/${course.id}/purchases/${encodeURIComponent("auth0|buyer-1")}`
        const granted = yield* call(path, { method: "PUT", admin: true })
        assert.strictEqual(granted.status, 200, granted.text)
        assert.deepStrictEqual([granted.body.course_id, granted.body.user_id], [course.id, "auth0|buyer-1"])
        const again = yield* call(path, { method: "PUT", admin: true })
        assert.deepStrictEqual(again.body, granted.body)
        const bought = yield* publicCourse(course.slug, bearer(token))
        assert.strictEqual(bought.status, 200, bought.text)
        assert.isTrue(bought.body.purchased)
        const paid = bought.body.lessons.find((lesson: { id: number }) => lesson.id === locked.id)
        assert.strictEqual(paid.access, "purchased")
        assert.strictEqual(paid.content_html, `<p>${lockedText}</p>`)
        // A URL signed for this response, under the file route, valid for MEDIA_URL_TTL (4 hours here).
        const signed = new URL(paid.video_url)
        assert.strictEqual(`${signed.origin}${signed.pathname}`, `${(yield* TestServer).url}/files/${videoKey}`)
        assert.deepStrictEqual([...signed.searchParams.keys()], ["expires", "signature"])
        const expiresAt = Date.parse(paid.video_url_expires_at)
        assert.strictEqual(Number(signed.searchParams.get("expires")) * 1000, expiresAt)
        // Handed out for a 15-minute window (MediaUrls.reuseWindow): 3¾ to 4 hours left.
        assert.isAtMost(expiresAt - Date.now(), 4 * 3600_000)
        assert.isAbove(expiresAt - Date.now(), 3.75 * 3600_000 - 5_000)
        assert.strictEqual(bought.headers.get("cache-control"), "private, no-cache")
        // The same URL on a later read (not a new signature every second), so the page revalidates: 304.
        yield* Effect.sleep("1100 millis")
        const reread = yield* publicCourse(course.slug, { ...bearer(token), "if-none-match": bought.headers.get("etag")! })
        assert.strictEqual(reread.status, 304, reread.text)
        const played = yield* fetchText(paid.video_url)
        assert.deepStrictEqual([played.status, played.text], [200, "video-bytes"])
        assert.match(played.cacheControl!, /^private, max-age=\d+$/)
        const ranged = yield* fetchText(paid.video_url, { range: "bytes=6-10" })
        assert.deepStrictEqual([ranged.status, ranged.text, ranged.contentRange], [206, "bytes", "bytes 6-10/11"])
        assert.strictEqual((yield* call(path, { method: "DELETE", admin: true })).status, 204)
        assert.strictEqual((yield* call(path, { method: "DELETE", admin: true })).status, 204)
        const revoked = yield* publicCourse(course.slug, bearer(token))
        assert.isFalse(revoked.body.purchased)
        assert.notInclude(allBytes(revoked), lockedText)
        // After the refund no new URL is issued; one already issued works until it expires.
        assert.notInclude(allBytes(revoked), videoKey)
        assert.strictEqual((yield* fetchText(paid.video_url)).status, 200)
        // The same ETag a buyer's cache holds does not revalidate the locked page.
        const revalidated = yield* publicCourse(course.slug, { ...bearer(token), "if-none-match": bought.headers.get("etag")! })
        assert.strictEqual(revalidated.status, 200)
        assert.notInclude(allBytes(revalidated), lockedText)
      }))

    it.effect("a forged, expired, malformed or wrongly signed token is 401 with no content at all", () =>
      Effect.gen(function*() {
        const { course } = yield* setUp("Personas forged")
        const valid = yield* viewerToken("auth0|forger")
        yield* call(`/admin/courses/${course.id}/purchases/${encodeURIComponent("auth0|forger")}`, { method: "PUT", admin: true })
        const [header, payload] = valid.split(".")
        const forgedPayload = Buffer.from(JSON.stringify({ sub: "auth0|forger", exp: 9999999999 })).toString("base64url")
        const cases = [
          yield* viewerToken("auth0|forger", { expiresIn: Math.floor(Date.now() / 1000) - 60 }),
          yield* viewerToken("auth0|forger", { key: new TextEncoder().encode("another-secret-of-sufficient-length!!") }),
          `${header}.${forgedPayload}.${valid.split(".")[2]}`,
          `${header}.${payload}.`,
          "not-a-jwt",
          `eyJhbGciOiJub25lIn0.${forgedPayload}.`
        ]
        for (const token of cases) {
          const reply = yield* publicCourse(course.slug, bearer(token))
          assertProblem(reply, 401)
          assert.strictEqual(reply.headers.get("www-authenticate"), `Bearer realm="coursekit"`)
          assert.notInclude(allBytes(reply), lockedText)
          assert.notInclude(allBytes(reply), previewText)
        }
        assert.include((yield* publicCourse(course.slug, bearer(cases[0]!))).body.detail, "expired")
        assertProblem(yield* publicCourse(course.slug, { authorization: "Basic dXNlcjpwYXNz" }), 401)
      }))

    it.effect("a lesson switched from preview to locked is locked on the very next request, ETags and all", () =>
      Effect.gen(function*() {
        const { course, preview } = yield* setUp("Preview switch")
        const first = yield* publicCourse(course.slug)
        assert.strictEqual(first.headers.get("cache-control"), "public, no-cache")
        assert.strictEqual(first.headers.get("vary"), "authorization")
        const etag = first.headers.get("etag")!
        assert.match(etag, /^"[\w-]{27}"$/)
        const notModified = yield* publicCourse(course.slug, { "if-none-match": etag })
        assert.strictEqual(notModified.status, 304)
        assert.strictEqual(notModified.text, "")
        const switched = yield* call(`/courses/${course.id}/lessons/${preview.id}`, { method: "PATCH", admin: true, json: { is_preview: false } })
        assert.strictEqual(switched.status, 200, switched.text)
        const after = yield* publicCourse(course.slug, { "if-none-match": etag })
        assert.strictEqual(after.status, 200)
        assert.notStrictEqual(after.headers.get("etag"), etag)
        assert.notInclude(allBytes(after), previewText)
        assert.deepStrictEqual(after.body.lessons.map((lesson: { access: string }) => lesson.access), ["locked", "locked"])
      }))

    it.effect("a signed video URL with its path, expiry or signature changed is 403; unsigned or under the public prefix it is not served", () =>
      Effect.gen(function*() {
        const { course, videoKey } = yield* setUp("Tampered video URLs")
        const token = yield* viewerToken("auth0|buyer-tamper")
        yield* call(`/admin/courses/${course.id}/purchases/${encodeURIComponent("auth0|buyer-tamper")}`, { method: "PUT", admin: true })
        const other = yield* setUp("Tampered other")
        const url = new URL(
          (yield* publicCourse(course.slug, bearer(token))).body.lessons.find((lesson: { access: string }) => lesson.access === "purchased")
            .video_url
        )
        assert.strictEqual((yield* fetchText(url.href)).status, 200)
        const expires = url.searchParams.get("expires")!
        const signature = url.searchParams.get("signature")!
        const { url: base } = yield* TestServer
        const flip = (hex: string) => `${hex.slice(0, -1)}${hex.endsWith("0") ? "1" : "0"}`
        const tampered = [
          `${base}/files/${other.videoKey}?${url.searchParams}`,
          `${base}/files/${videoKey}?expires=${Number(expires) + 3600}&signature=${signature}`,
          `${base}/files/${videoKey}?expires=${expires}&signature=${flip(signature)}`,
          `${base}/files/${videoKey}?expires=${expires}`,
          `${base}/files/${videoKey}`
        ]
        for (const forged of tampered) {
          const reply = yield* fetchText(forged)
          assert.strictEqual(reply.status, 403, forged)
          assert.notInclude(reply.text, "video-bytes")
        }
        // The private object's uuid under the public prefix names no file.
        const underPublic = yield* fetchText(`${base}/files/${videoKey.replace(/^private\//, "")}?${url.searchParams}`)
        assert.strictEqual(underPublic.status, 403)
        assert.strictEqual((yield* fetchText(`${base}/files/${videoKey.replace(/^private\//, "")}`)).status, 404)
      }))

    it.effect("an unknown slug is 404; a viewer token on an admin route is 403, no token 401", () =>
      Effect.gen(function*() {
        assertProblem(yield* publicCourse("no-such-course"), 404)
        const token = yield* viewerToken("auth0|student")
        const viewerOnAdmin = yield* call("/courses", { method: "POST", headers: bearer(token), json: { title: "x", content_html: "" } })
        assertProblem(viewerOnAdmin, 403)
        // The standalone server words refusals in terms of its tokens.
        assert.strictEqual(viewerOnAdmin.body.detail, "A viewer token cannot be used for admin operations; use an admin token.")
        assertProblem(yield* call("/admin/media", { headers: bearer(token) }), 403)
        assertProblem(yield* call("/courses/1/lessons", { headers: bearer(token) }), 403)
        assertProblem(yield* call("/courses", { method: "POST", json: { title: "x", content_html: "" } }), 401)
        const expired = yield* viewerToken("auth0|student", { expiresIn: Math.floor(Date.now() / 1000) - 60 })
        assertProblem(yield* call("/admin/media", { headers: bearer(expired) }), 401)
      }))
  })
})

describe("signed video URLs expire (MEDIA_URL_TTL of 3 seconds)", () => {
  // Expiry is signed in whole seconds, rounded down: a URL of 3 s lasts 2 to 3, time enough
  // on a loaded machine for the fetch that follows the read.
  layer(layerTestServer({ mediaUrlTtl: Duration.seconds(3) }), { timeout: 60_000, excludeTestServices: true })((it) => {
    it.effect("a URL past its expiry is 403; the next read of the course signs a new one that plays", () =>
      Effect.gen(function*() {
        const { course } = yield* setUp("Short-lived video")
        const token = yield* viewerToken("auth0|buyer-ttl")
        yield* call(`/admin/courses/${course.id}/purchases/${encodeURIComponent("auth0|buyer-ttl")}`, { method: "PUT", admin: true })
        const videoOf = (reply: Reply) => reply.body.lessons.find((lesson: { access: string }) => lesson.access === "purchased")
        const first = videoOf(yield* publicCourse(course.slug, bearer(token)))
        const expiresAt = Date.parse(first.video_url_expires_at)
        assert.isAtMost(expiresAt - Date.now(), 3_000)
        yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, Math.max(0, expiresAt - Date.now()) + 100)))
        const expired = yield* fetchText(first.video_url)
        assert.strictEqual(expired.status, 403)
        assert.notInclude(expired.text, "video-bytes")
        const next = videoOf(yield* publicCourse(course.slug, bearer(token)))
        assert.isAbove(Date.parse(next.video_url_expires_at), expiresAt)
        assert.strictEqual((yield* fetchText(next.video_url)).status, 200)
      }))
  })
})
