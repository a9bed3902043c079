/**
 * The typed client against the real standalone server (PGlite, files on local disk behind
 * HMAC-signed PUT URLs): the Effect client, the Promise client and its three-step uploads
 * with real PUTs of bytes.
 */
import { assert, describe, it, layer } from "@effect/vitest"
import { CourseId, UserId } from "@coursekit/core"
import { DateTime, Effect } from "effect"
import { FetchHttpClient } from "effect/http"
import { SignJWT } from "jose"
import { adminToken, jwtSecret, layerTestServer, TestServer } from "../../server/test/TestServer.ts"
import { CoursekitClient, CoursekitError, createClient, nextCursor, PreconditionFailedError, withWriteOptions } from "../src/index.ts"
import { recordingProxy } from "./RecordingProxy.ts"

const rejection = (promise: Promise<unknown>) =>
  Effect.promise(() => promise.then(() => assert.fail("expected a rejection"), (error: unknown) => error))

describe("@coursekit/client against the standalone server", () => {
  layer(layerTestServer({ uploadLimits: { thumbnailMaxBytes: 64 * 1024, mediaMaxBytes: 1024 * 1024 } }), {
    timeout: 60_000,
    excludeTestServices: true
  })((it) => {
    it.effect("the Effect client: typed calls, typed problems", () =>
      Effect.gen(function*() {
        const { url } = yield* TestServer
        yield* Effect.gen(function*() {
          const client = yield* CoursekitClient
          const { body: created, headers } = yield* client.courses.create({ payload: { title: "Typed client", content_html: "<p>Hi<script>x()</script></p>" } })
          assert.strictEqual(headers.location, `/courses/${created.id}`)
          assert.strictEqual(created.content_html, "<p>Hi</p>")
          const fetched = yield* client.courses.get({ params: { id: created.id } })
          assert.strictEqual(fetched.slug, created.slug)
          const updated = yield* client.courses.update({ params: { id: created.id }, payload: { title: "Typed client, renamed" } })
          assert.strictEqual(updated.title, "Typed client, renamed")
          const missing = yield* Effect.flip(client.courses.get({ params: { id: CourseId.make(created.id + 1000) } }))
          assert.strictEqual(missing._tag, "NotFound")
          assert.strictEqual(missing.message, `No course has id ${created.id + 1000}.`)
        }).pipe(Effect.provide(CoursekitClient.layer({ baseUrl: url, adminToken })), Effect.provide(FetchHttpClient.layer))
        const anonymous = yield* Effect.gen(function*() {
          const client = yield* CoursekitClient
          return yield* Effect.flip(client.courses.create({ payload: { title: "No token", content_html: "" } }))
        }).pipe(Effect.provide(CoursekitClient.layerFetch({ baseUrl: url })))
        assert.strictEqual(anonymous._tag, "Unauthorized")
      }))

    it.effect("writes name the version they apply to: a stale one is a typed 412 carrying the course as it is now", () =>
      Effect.gen(function*() {
        const { url } = yield* TestServer
        yield* Effect.gen(function*() {
          const client = yield* CoursekitClient
          const { body: created } = yield* client.courses.create({ payload: { title: "Versioned", content_html: "" } })
          const first = yield* client.courses.update({ params: { id: created.id }, payload: { title: "Mine" } }).pipe(withWriteOptions({ ifMatch: created.version }))
          assert.strictEqual(first.version, 2)
          const refused = yield* Effect.flip(
            client.courses.update({ params: { id: created.id }, payload: { title: "Theirs" } }).pipe(withWriteOptions({ ifMatch: created.version }))
          )
          assert.strictEqual(refused._tag, "CoursePreconditionFailed")
          if (refused._tag !== "CoursePreconditionFailed") return
          assert.strictEqual(refused.current_version, 2)
          assert.strictEqual(refused.current.title, "Mine")
          const saved = yield* client.courses.update({ params: { id: created.id }, payload: { content_html: "<p>typing</p>" } }).pipe(
            withWriteOptions({ ifMatch: "*", autosave: true })
          )
          assert.strictEqual(saved.version, 3)
          const revisions = yield* client.courses.revisions({ params: { id: created.id }, query: {} })
          assert.deepStrictEqual(revisions.body.map((revision) => [revision.version, revision.autosave]), [[3, true], [2, false], [1, false]])
        }).pipe(Effect.provide(CoursekitClient.layer({ baseUrl: url, adminToken })), Effect.provide(FetchHttpClient.layer))

        const kit = createClient({ baseUrl: url, adminToken })
        const { body: course } = yield* Effect.promise(() => kit.courses.create({ payload: { title: "Promised", content_html: "" } }))
        yield* Effect.promise(() => kit.courses.update({ params: { id: course.id }, payload: { title: "Promised 2" } }, { ifMatch: course.version }))
        const error = yield* rejection(kit.courses.update({ params: { id: course.id }, payload: { title: "Lost" } }, { ifMatch: course.version }))
        assert.instanceOf(error, PreconditionFailedError)
        assert.instanceOf(error, CoursekitError)
        const failed = error as PreconditionFailedError<{ readonly title: string }>
        assert.strictEqual(failed.status, 412)
        assert.strictEqual(failed.currentVersion, 2)
        assert.strictEqual(failed.current.title, "Promised 2")
        yield* Effect.promise(() => kit.dispose())
      }))

    it.effect("a learner's progress through the client: recordProgress, courseProgress, myCourses; learners for admins", () =>
      Effect.gen(function*() {
        const { url } = yield* TestServer
        const admin = createClient({ baseUrl: url, adminToken })
        const viewerToken = yield* Effect.promise(() =>
          new SignJWT({}).setProtectedHeader({ alg: "HS256" }).setSubject("client-learner").setIssuedAt().setExpirationTime("5m")
            .sign(new TextEncoder().encode(jwtSecret))
        )
        const learner = createClient({ baseUrl: url, viewerToken })
        const { body: course } = yield* Effect.promise(() => admin.courses.create({ payload: { title: "Client learning", content_html: "" } }))
        const lesson = yield* Effect.promise(() => admin.lessons.create({ params: { id: course.id }, payload: { title: "Only lesson", is_preview: true } }))
        yield* Effect.promise(() => admin.purchases.grant({ params: { id: course.id, user_id: UserId.make("client-learner") } }))
        const saved = yield* Effect.promise(() => learner.learning.recordProgress({ params: { lesson_id: lesson.id }, payload: { completed: true, position_seconds: 7 } }))
        assert.deepStrictEqual([saved.completed, saved.position_seconds], [true, 7])
        const progress = yield* Effect.promise(() => learner.learning.courseProgress({ params: { id: course.id } }))
        assert.deepStrictEqual([progress.percent, progress.lessons_completed], [100, 1])
        assert.isTrue(progress.completed_at !== null && DateTime.isDateTime(progress.completed_at))
        const mine = yield* Effect.promise(() => learner.learning.myCourses({ query: {} }))
        assert.include(mine.body.map((item) => item.course.id), course.id)
        const learners = yield* Effect.promise(() => admin.learning.learners({ params: { id: course.id }, query: {} }))
        assert.deepStrictEqual(learners.body.map((row) => [row.user_id, row.percent]), [["client-learner", 100]])
        const anonymous = yield* rejection(createClient({ baseUrl: url }).learning.courseProgress({ params: { id: course.id } }))
        assert.strictEqual((anonymous as CoursekitError).status, 401)
        yield* Effect.promise(() => Promise.all([admin.dispose(), learner.dispose()]))
      }))

    it.effect("drafts, schedules and sections through the client: an admin client reads drafts, others do not", () =>
      Effect.gen(function*() {
        const { url } = yield* TestServer
        const admin = createClient({ baseUrl: url, adminToken })
        const anonymous = createClient({ baseUrl: url })
        const { body: draft } = yield* Effect.promise(() =>
          admin.courses.create({ payload: { title: "Client draft", content_html: "", status: "draft" } })
        )
        assert.strictEqual(draft.status, "draft")
        const { body: scheduled } = yield* Effect.promise(() =>
          admin.courses.create({ payload: { title: "Client scheduled", content_html: "", publish_at: DateTime.makeUnsafe("2099-06-01T08:00:00Z") } })
        )
        assert.strictEqual(DateTime.formatIso(scheduled.publish_at!), "2099-06-01T08:00:00.000Z")
        const drafts = yield* Effect.promise(() => admin.courses.list({ query: { cursor: String(draft.id), limit: 50, status: "draft" } }))
        assert.deepStrictEqual(drafts.body.map((item) => [item.id, item.status]), [[draft.id, "draft"]])
        const publicPage = yield* Effect.promise(() => anonymous.courses.list({ query: { cursor: String(draft.id), limit: 50 } }))
        assert.notInclude(publicPage.body.map((item) => item.id), draft.id)
        assert.notInclude(publicPage.body.map((item) => item.id), scheduled.id)
        assert.strictEqual(((yield* rejection(anonymous.courses.get({ params: { id: draft.id } }))) as CoursekitError).status, 404)
        assert.strictEqual((yield* Effect.promise(() => admin.courses.get({ params: { id: draft.id } }))).status, "draft")

        const section = yield* Effect.promise(() => admin.sections.create({ params: { id: draft.id }, payload: { title: "Week 1" } }))
        const lesson = yield* Effect.promise(() =>
          admin.lessons.create({ params: { id: draft.id }, payload: { title: "First", section_id: section.id } })
        )
        assert.strictEqual(lesson.section_id, section.id)
        const refused = yield* rejection(admin.sections.delete({ params: { id: draft.id, section_id: section.id }, query: {} }))
        assert.strictEqual((refused as CoursekitError).status, 409)
        yield* Effect.promise(() => admin.sections.delete({ params: { id: draft.id, section_id: section.id }, query: { lessons: "detach" } }))
        assert.deepStrictEqual((yield* Effect.promise(() => admin.sections.list({ params: { id: draft.id } }))), [])
        yield* Effect.promise(() => Promise.all([admin.dispose(), anonymous.dispose()]))
      }))

    it.effect("publish_at goes out with the offset it was written with, and the server stores and shows that instant in UTC", () =>
      Effect.scoped(Effect.gen(function*() {
        const { url } = yield* TestServer
        const proxy = yield* recordingProxy(url)
        const hours = (n: number) => n * 60 * 60 * 1000
        const sent = (method: string, path: string) =>
          proxy.requests.filter((request) => request.method === method && request.path === path).map((request) => JSON.parse(request.body).publish_at)

        // The Effect client: an instant in a zone of +01:00.
        const course = yield* Effect.gen(function*() {
          const client = yield* CoursekitClient
          const { body } = yield* client.courses.create({
            payload: {
              title: "Offsets on the wire",
              content_html: "",
              status: "draft",
              publish_at: DateTime.makeZonedUnsafe(Date.UTC(2099, 11, 1, 9), { timeZone: DateTime.zoneMakeOffset(hours(1)) })
            }
          })
          return body
        }).pipe(Effect.provide(CoursekitClient.layerFetch({ baseUrl: proxy.url, adminToken })))
        assert.deepStrictEqual(sent("POST", "/courses"), ["2099-12-01T10:00:00.000+01:00"])
        assert.isTrue(DateTime.isUtc(course.publish_at!))
        assert.strictEqual(DateTime.formatIso(course.publish_at!), "2099-12-01T09:00:00.000Z")

        // The Promise client: -05:30 on a PATCH, a named zone (its offset at that instant), UTC as Z.
        const admin = createClient({ baseUrl: proxy.url, adminToken })
        const updated = yield* Effect.promise(() =>
          admin.courses.update({
            params: { id: course.id },
            payload: { publish_at: DateTime.makeZonedUnsafe(Date.UTC(2099, 11, 1, 15, 30), { timeZone: DateTime.zoneMakeOffset(-hours(5.5)) }) }
          })
        )
        assert.deepStrictEqual(sent("PATCH", `/courses/${course.id}`), ["2099-12-01T10:00:00.000-05:30"])
        assert.strictEqual(DateTime.formatIso(updated.publish_at!), "2099-12-01T15:30:00.000Z")
        const lesson = yield* Effect.promise(() =>
          admin.lessons.create({
            params: { id: course.id },
            payload: { title: "Summer", publish_at: DateTime.makeZonedUnsafe(Date.UTC(2099, 6, 1, 8), { timeZone: "Europe/Paris" }) }
          })
        )
        assert.deepStrictEqual(sent("POST", `/courses/${course.id}/lessons`), ["2099-07-01T10:00:00.000+02:00"])
        assert.strictEqual(DateTime.formatIso(lesson.publish_at!), "2099-07-01T08:00:00.000Z")
        yield* Effect.promise(() =>
          admin.lessons.update({ params: { id: course.id, lesson_id: lesson.id }, payload: { publish_at: DateTime.makeUnsafe(Date.UTC(2099, 6, 1, 9)) } })
        )
        assert.deepStrictEqual(sent("PATCH", `/courses/${course.id}/lessons/${lesson.id}`), ["2099-07-01T09:00:00.000Z"])

        // What the server stores and shows, read past the client: UTC.
        const shown = (path: string) =>
          Effect.promise(() => fetch(`${url}${path}`, { headers: { authorization: `Bearer ${adminToken}` } }).then((response) => response.json()))
        assert.strictEqual((yield* shown(`/courses/${course.id}`)).publish_at, "2099-12-01T15:30:00.000Z")
        assert.deepStrictEqual((yield* shown(`/courses/${course.id}/lessons`)).map((row: { publish_at: string }) => row.publish_at), ["2099-07-01T09:00:00.000Z"])
        yield* Effect.promise(() => admin.dispose())
      })))

    it.effect("the Promise client: every endpoint as a Promise; failures are CoursekitErrors with the problem", () =>
      Effect.gen(function*() {
        const { url } = yield* TestServer
        const kit = createClient({ baseUrl: url, adminToken })
        const { body: course } = yield* Effect.promise(() => kit.courses.create({ payload: { title: "Promise client", content_html: "<h2>One</h2>" } }))
        assert.strictEqual(course.title, "Promise client")
        const { body: page } = yield* Effect.promise(() => kit.courses.list({ query: { limit: 50 } }))
        assert.include(page.map((item) => item.id), course.id)

        const notFound = yield* rejection(kit.courses.get({ params: { id: CourseId.make(course.id + 1000) } }))
        assert.instanceOf(notFound, CoursekitError)
        assert.strictEqual((notFound as CoursekitError).status, 404)
        assert.strictEqual((notFound as CoursekitError).problem.detail, `No course has id ${course.id + 1000}.`)
        assert.strictEqual((notFound as CoursekitError).message, `No course has id ${course.id + 1000}.`)

        // What the contract already rules out is refused before anything is sent.
        for (const call of [() => kit.courses.create({ payload: { title: "", content_html: "" } }), () => kit.courses.list({ query: { limit: 51 } })]) {
          const local = yield* rejection(call())
          assert.strictEqual((local as CoursekitError).status, 0)
          assert.strictEqual((local as CoursekitError).problem.title, "Invalid request")
        }

        const anonymous = createClient({ baseUrl: url })
        const unauthorized = yield* rejection(anonymous.courses.create({ payload: { title: "x", content_html: "" } }))
        assert.strictEqual((unauthorized as CoursekitError).status, 401)

        const unreachable = createClient({ baseUrl: "http://127.0.0.1:9", adminToken })
        const down = yield* rejection(unreachable.courses.get({ params: { id: course.id } }))
        assert.strictEqual((down as CoursekitError).status, 0)
        yield* Effect.promise(() => Promise.all([kit.dispose(), anonymous.dispose(), unreachable.dispose()]))
      }))

    it.effect("search: the Effect and Promise clients page by the Link header's cursor; a bad cursor is a typed 400", () =>
      Effect.gen(function*() {
        const { url } = yield* TestServer
        const kit = createClient({ baseUrl: url, adminToken })
        const ids: Array<number> = []
        for (let i = 0; i < 5; i++) {
          ids.push((yield* Effect.promise(() => kit.courses.create({ payload: { title: `Crème brûlée client ${i}`, content_html: "" } }))).body.id)
        }
        yield* Effect.promise(() => kit.courses.create({ payload: { title: "Crème brûlée client draft", content_html: "", status: "draft" } }))
        const seen: Array<number> = []
        let cursor: string | undefined
        do {
          const { body, headers } = yield* Effect.promise(() => kit.courses.search({ query: { q: "creme brulee client", limit: 2, ...(cursor === undefined ? {} : { cursor }) } }))
          seen.push(...body.map((item) => item.id))
          cursor = nextCursor(headers.link)
        } while (cursor !== undefined)
        assert.deepStrictEqual(seen, ids)
        // An admin's status makes it the authors' search: the draft too, with its status.
        const authored = yield* Effect.promise(() => kit.courses.search({ query: { q: "creme brulee client draft", status: "all" } }))
        assert.deepStrictEqual(authored.body.map((item) => [item.title, item.status]), [["Crème brûlée client draft", "draft"]])
        const students = yield* Effect.promise(() => kit.courses.search({ query: { q: "creme brulee client draft" } }))
        assert.deepStrictEqual(students.body, [])
        const anonymous = createClient({ baseUrl: url })
        const refused = yield* rejection(anonymous.courses.search({ query: { q: "creme", status: "all" } }))
        assert.strictEqual((refused as CoursekitError).status, 401)
        yield* Effect.promise(() => anonymous.dispose())
        const bad = yield* rejection(kit.courses.search({ query: { q: "creme", cursor: "forged" } }))
        assert.strictEqual((bad as CoursekitError).status, 400)
        const problem = (bad as CoursekitError).problem as { readonly errors?: ReadonlyArray<{ readonly path: string }> }
        assert.deepStrictEqual(problem.errors?.map((error) => error.path), ["query.cursor"])
        const local = yield* rejection(kit.courses.search({ query: { q: "   " } }))
        assert.strictEqual((local as CoursekitError).status, 0)

        const found = yield* Effect.gen(function*() {
          const client = yield* CoursekitClient
          return yield* client.courses.search({ query: { q: "CRÈME BRÛLÉE CLIENT 3" } })
        }).pipe(Effect.provide(CoursekitClient.layerFetch({ baseUrl: url })))
        assert.deepStrictEqual(found.body.map((item) => item.id), [ids[3]])
        assert.isUndefined(found.headers.link)
        yield* Effect.promise(() => kit.dispose())
      }))

    it.effect("every paged call takes the cursor nextCursor hands out: courses, search, both revisions, media, my courses, learners", () =>
      Effect.gen(function*() {
        const { url } = yield* TestServer
        const kit = createClient({ baseUrl: url, adminToken })
        const tokenOf = (sub: string) =>
          new SignJWT({}).setProtectedHeader({ alg: "HS256" }).setSubject(sub).setIssuedAt().setExpirationTime("5m").sign(new TextEncoder().encode(jwtSecret))
        /** Every item of every page, one item a page, each next page asked with `nextCursor`'s cursor as it is. */
        const everyPage = async <T>(page: (cursor: string | undefined) => Promise<{ readonly body: ReadonlyArray<T>; readonly headers: { readonly link?: string | undefined } }>) => {
          const seen: Array<T> = []
          let cursor: string | undefined
          do {
            const { body, headers } = await page(cursor)
            assert.isAtMost(body.length, 1)
            seen.push(...body)
            cursor = nextCursor(headers.link)
          } while (cursor !== undefined)
          return seen
        }
        const at = (cursor: string | undefined) => (cursor === undefined ? {} : { cursor })
        const ids = yield* Effect.promise(async () => {
          const courses = []
          for (const n of [1, 2, 3]) courses.push((await kit.courses.create({ payload: { title: `Quokka paging ${n}`, content_html: "" } })).body)
          const ids = courses.map((course) => course.id)
          const listed = await everyPage((cursor) => kit.courses.list({ query: { limit: 1, ...(cursor === undefined ? { cursor: String(ids[0]) } : { cursor }) } }))
          assert.deepStrictEqual(listed.map((course) => course.id).filter((id) => ids.includes(id)), ids)
          const found = await everyPage((cursor) => kit.courses.search({ query: { q: "quokka paging", limit: 1, ...at(cursor) } }))
          assert.deepStrictEqual(found.map((course) => course.id), ids)

          const course = courses[0]!
          await kit.courses.update({ params: { id: course.id }, payload: { title: "Quokka paging, renamed" } })
          await kit.courses.update({ params: { id: course.id }, payload: { description: "Twice changed" } })
          const courseRevisions = await everyPage((cursor) => kit.courses.revisions({ params: { id: course.id }, query: { limit: 1, ...at(cursor) } }))
          assert.strictEqual(courseRevisions.length, 3)
          const lesson = await kit.lessons.create({ params: { id: course.id }, payload: { title: "Paged lesson" } })
          await kit.lessons.update({ params: { id: course.id, lesson_id: lesson.id }, payload: { title: "Paged lesson, renamed" } })
          const lessonRevisions = await everyPage((cursor) => kit.lessons.revisions({ params: { id: course.id, lesson_id: lesson.id }, query: { limit: 1, ...at(cursor) } }))
          assert.strictEqual(lessonRevisions.length, 2)

          const uploaded: Array<{ readonly id: number }> = []
          for (const n of [1, 2, 3]) uploaded.push(await kit.uploadMedia(new File([new Uint8Array(100).fill(n)], `paged-${n}.png`, { type: "image/png" })))
          const media = await everyPage((cursor) => kit.media.list({ query: { limit: 1, ...at(cursor) } }))
          assert.deepStrictEqual(media.map((file) => file.id).filter((id) => uploaded.some((file) => file.id === id)), uploaded.map((file) => file.id))

          const learners = ["paging-ann", "paging-bob", "paging-cy"]
          for (const user of learners) await kit.purchases.grant({ params: { id: course.id, user_id: UserId.make(user) } })
          const listedLearners = await everyPage((cursor) => kit.learning.learners({ params: { id: course.id }, query: { limit: 1, ...at(cursor) } }))
          assert.deepStrictEqual(listedLearners.map((row) => row.user_id).sort(), learners)
          for (const other of courses.slice(1)) await kit.purchases.grant({ params: { id: other.id, user_id: UserId.make("paging-ann") } })
          const ann = createClient({ baseUrl: url, viewerToken: await tokenOf("paging-ann") })
          const mine = await everyPage((cursor) => ann.learning.myCourses({ query: { limit: 1, ...at(cursor) } }))
          assert.deepStrictEqual(mine.map((item) => item.course.id).sort((a, b) => a - b), ids)
          await ann.dispose()
          return ids
        })
        // The Effect client takes the same text.
        const listed = yield* Effect.gen(function*() {
          const client = yield* CoursekitClient
          const seen: Array<CourseId> = []
          let cursor: string | undefined = String(ids[0])
          while (cursor !== undefined) {
            const { body, headers } = yield* client.courses.list({ query: { limit: 1, cursor } })
            seen.push(...body.map((course) => course.id))
            cursor = nextCursor(headers.link)
          }
          return seen
        }).pipe(Effect.provide(CoursekitClient.layerFetch({ baseUrl: url })))
        assert.deepStrictEqual(listed.filter((id) => ids.some((own) => own === id)), ids)
        yield* Effect.promise(() => kit.dispose())
      }))

    it.effect("uploadThumbnail: URL, PUT of the bytes with progress, finalize; a file without a type goes as image/jpeg", () =>
      Effect.gen(function*() {
        const { url } = yield* TestServer
        const kit = createClient({ baseUrl: url, adminToken })
        const { body: course } = yield* Effect.promise(() => kit.courses.create({ payload: { title: "With a thumbnail", content_html: "" } }))
        const bytes = new Uint8Array(40 * 1024).map((_, index) => index % 251)
        const progress: Array<{ loaded: number; total: number }> = []
        const updated = yield* Effect.promise(() =>
          kit.uploadThumbnail(course.id, new Blob([bytes]), { onProgress: (event) => progress.push(event) })
        )
        assert.isString(updated.thumbnail_url)
        assert.match(updated.thumbnail_key!, new RegExp(`^courses/${course.id}/[0-9a-f-]+\\.jpg$`))
        assert.isAbove(progress.length, 0)
        assert.deepStrictEqual(progress.at(-1), { loaded: bytes.byteLength, total: bytes.byteLength })
        // Never backwards.
        assert.deepStrictEqual(progress.map((event) => event.loaded), progress.map((event) => event.loaded).sort((a, b) => a - b))
        const served = yield* Effect.promise(() => fetch(updated.thumbnail_url!))
        assert.strictEqual(served.headers.get("content-type"), "image/jpeg")
        assert.deepStrictEqual(new Uint8Array(yield* Effect.promise(() => served.arrayBuffer())), bytes)
        yield* Effect.promise(() => kit.dispose())
      }))

    it.effect("uploadMedia: a named file keeps its type and size; a refused PUT rejects before finalize", () =>
      Effect.gen(function*() {
        const { url } = yield* TestServer
        const kit = createClient({ baseUrl: url, adminToken })
        const clip = new File([new Uint8Array(3000).fill(1)], "intro.mp4", { type: "video/mp4" })
        const media = yield* Effect.promise(() => kit.uploadMedia(clip))
        assert.strictEqual(media.size_bytes, 3000)
        assert.strictEqual(media.content_type, "video/mp4")
        assert.match(media.file_key, /^media\/[0-9a-f-]+\.mp4$/)

        // A PUT whose content type differs from the signed one is refused by the storage.
        let finalizes = 0
        const tampering = createClient({
          baseUrl: url,
          adminToken,
          fetch: (input, init) => {
            const target = input instanceof Request ? input.url : String(input)
            if (target.includes("finalize-upload")) finalizes += 1
            if (init?.method === "PUT") return fetch(input, { ...init, headers: { ...(init.headers as Record<string, string>), "content-type": "text/html" } })
            return fetch(input, init)
          }
        })
        const refused = yield* rejection(tampering.uploadMedia(new File(["not really a video"], "clip.webm", { type: "video/webm" })))
        assert.instanceOf(refused, CoursekitError)
        assert.strictEqual((refused as CoursekitError).status, 403)
        assert.deepStrictEqual((refused as CoursekitError).problem, {
          title: "Upload refused by storage",
          status: 403,
          detail: `The storage answered the PUT with HTTP 403: {"type":"about:blank","title":"Forbidden","status":403,"detail":"The Content-Type must be video/webm, as signed."}`
        })
        assert.strictEqual(finalizes, 0)

        // Too large for a thumbnail: refused at the first step, nothing is PUT.
        const { body: course } = yield* Effect.promise(() => kit.courses.create({ payload: { title: "Too large", content_html: "" } }))
        const tooLarge = yield* rejection(kit.uploadThumbnail(course.id, new Blob([new Uint8Array(65 * 1024)], { type: "image/png" })))
        assert.strictEqual((tooLarge as CoursekitError).status, 413)
        yield* Effect.promise(() => Promise.all([kit.dispose(), tampering.dispose()]))
      }))

    it.effect("uploadMedia with visibility private: a signed url that plays and expires; media.delete removes it (204, then 404)", () =>
      Effect.gen(function*() {
        const { url } = yield* TestServer
        const kit = createClient({ baseUrl: url, adminToken })
        const lecture = new File([new Uint8Array(2000).fill(3)], "lecture.mp4", { type: "video/mp4" })
        const media = yield* Effect.promise(() => kit.uploadMedia(lecture, { visibility: "private" }))
        assert.strictEqual(media.visibility, "private")
        assert.match(media.file_key, /^private\/media\/[0-9a-f-]+\.mp4$/)
        assert.isNotNull(media.url_expires_at)
        const played = yield* Effect.promise(() => fetch(media.url))
        assert.strictEqual(played.status, 200)
        assert.strictEqual((yield* Effect.promise(() => played.arrayBuffer())).byteLength, 2000)
        yield* Effect.promise(() => kit.media.delete({ query: { file_key: media.file_key } }))
        assert.strictEqual((yield* Effect.promise(() => fetch(media.url))).status, 404)
        const again = yield* rejection(kit.media.delete({ query: { file_key: media.file_key } }))
        assert.strictEqual((again as CoursekitError).status, 404)
        yield* Effect.promise(() => kit.dispose())
      }))

    it.effect("a viewer token reaches the public course", () =>
      Effect.gen(function*() {
        const { url } = yield* TestServer
        const kit = createClient({ baseUrl: url, adminToken })
        const { body: course } = yield* Effect.promise(() => kit.courses.create({ payload: { title: "For buyers", content_html: "" } }))
        yield* Effect.promise(() =>
          kit.lessons.create({ params: { id: course.id }, payload: { title: "Paid", content_html: "<p>Paid text</p>", is_preview: false } })
        )
        yield* Effect.promise(() => kit.purchases.grant({ params: { id: course.id, user_id: "reader-1" as never } }))
        const token = yield* Effect.promise(() =>
          new SignJWT({}).setProtectedHeader({ alg: "HS256" }).setSubject("reader-1").setIssuedAt().setExpirationTime("5m")
            .sign(new TextEncoder().encode(jwtSecret))
        )
        const reader = createClient({ baseUrl: url, viewerToken: () => token })
        const view = yield* Effect.promise(() => reader.public.course({ params: { slug: course.slug } }))
        assert.isTrue(view.purchased)
        assert.strictEqual(view.lessons[0]!.content_html, "<p>Paid text</p>")
        const stranger = createClient({ baseUrl: url })
        const anonymousView = yield* Effect.promise(() => stranger.public.course({ params: { slug: course.slug } }))
        assert.isNull(anonymousView.lessons[0]!.content_html)
        yield* Effect.promise(() => Promise.all([kit.dispose(), reader.dispose(), stranger.dispose()]))
      }))

    it.effect("the Studio's sign-in: session.signIn answers the author, the browser's cookie stands in for the token, session.signOut ends it", () =>
      Effect.gen(function*() {
        const { url } = yield* TestServer
        // What a browser on the server's own pages does: it keeps the cookie and sends its Origin.
        let jar: string | undefined
        const browserFetch: typeof globalThis.fetch = async (input, init) => {
          const request = new Request(input, init)
          request.headers.set("origin", url)
          if (jar !== undefined) request.headers.set("cookie", jar)
          const response = await fetch(request)
          const setCookie = response.headers.getSetCookie()[0]
          if (setCookie !== undefined) jar = /Max-Age=0/.test(setCookie) ? undefined : setCookie.split(";")[0]
          return response
        }
        const studio = createClient({ baseUrl: url, fetch: browserFetch })
        const wrong = yield* rejection(studio.session.signIn({ payload: { token: "not-a-token" } }))
        assert.instanceOf(wrong, CoursekitError)
        assert.strictEqual((wrong as CoursekitError).status, 401)
        assert.strictEqual((wrong as CoursekitError).message, "The token is not a valid admin token.")
        assert.isUndefined(jar)

        const signedIn = yield* Effect.promise(() => studio.session.signIn({ payload: { token: adminToken } }))
        assert.match(signedIn.author, /^admin-[0-9a-f]{8}$/)
        assert.isDefined(jar)
        const { body: created } = yield* Effect.promise(() => studio.courses.create({ payload: { title: "By the Studio", content_html: "", status: "draft" } }))
        const drafts = yield* Effect.promise(() => studio.courses.list({ query: { status: "draft" } }))
        assert.include(drafts.body.map((course) => course.id), created.id)
        const revisions = yield* Effect.promise(() => studio.courses.revisions({ params: { id: created.id }, query: {} }))
        assert.strictEqual(revisions.body[0]!.author, signedIn.author)

        yield* Effect.promise(() => studio.session.signOut({}))
        assert.isUndefined(jar)
        const after = yield* rejection(studio.courses.create({ payload: { title: "After sign-out", content_html: "" } }))
        assert.strictEqual((after as CoursekitError).status, 401)
        yield* Effect.promise(() => studio.dispose())
      }))
  })
})

describe("nextCursor", () => {
  it("reads the cursor of a Link header's next page", () => {
    assert.strictEqual(nextCursor(`</courses/search?q=creme+brulee&cursor=NS4xMg&limit=5>; rel="next"`), "NS4xMg")
    assert.strictEqual(nextCursor(`</api/courses?cursor=42&limit=10>; rel="next"`), "42")
    assert.isUndefined(nextCursor(undefined))
    assert.isUndefined(nextCursor(null))
    assert.isUndefined(nextCursor(`</courses?cursor=42>; rel="prev"`))
    assert.isUndefined(nextCursor(`</courses>; rel="next"`))
  })
})
