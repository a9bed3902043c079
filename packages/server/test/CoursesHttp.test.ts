import { assert, describe, layer } from "@effect/vitest"
import { Effect } from "effect"
import { call, layerTestServer, type Reply } from "./TestServer.ts"

const problemType = "application/problem+json"

const assertProblem = (reply: { status: number; headers: Headers; body: any }, status: number) => {
  assert.strictEqual(reply.status, status, JSON.stringify(reply.body))
  assert.strictEqual(reply.headers.get("content-type"), problemType)
  assert.strictEqual(reply.body.status, status)
  assert.strictEqual(reply.body.type, "about:blank")
  assert.isString(reply.body.title)
  assert.isString(reply.body.detail)
  assert.isAbove(reply.body.detail.length, 0)
}

const createCourse = (title: string, content_html = "<p>Body</p>") =>
  call("/courses", { method: "POST", admin: true, json: { title, content_html } })

describe("standalone server over HTTP (PGlite)", () => {
  layer(layerTestServer(), { timeout: 60_000 })((it) => {
    it.effect("GET / answers the welcome message", () =>
      Effect.gen(function*() {
        const reply = yield* call("/")
        assert.strictEqual(reply.status, 200)
        assert.isString(reply.body.message)
        assert.match(reply.headers.get("x-request-id") ?? "", /^[0-9a-f-]{36}$/)
      }))

    it.effect("an incoming x-request-id is echoed; an unsafe one is replaced", () =>
      Effect.gen(function*() {
        const echoed = yield* call("/", { headers: { "x-request-id": "trace-42.a:b" } })
        assert.strictEqual(echoed.headers.get("x-request-id"), "trace-42.a:b")
        const replaced = yield* call("/", { headers: { "x-request-id": "bad id\twith spaces" } })
        assert.notStrictEqual(replaced.headers.get("x-request-id"), "bad id\twith spaces")
      }))

    it.effect("GET /health/ready reports the database and the storage up", () =>
      Effect.gen(function*() {
        const reply = yield* call("/health/ready")
        assert.strictEqual(reply.status, 200)
        assert.deepStrictEqual(reply.body, {
          status: "ready",
          checks: [{ name: "database", status: "up" }, { name: "storage", status: "up" }]
        })
      }))

    it.effect("GET /openapi.json is OpenAPI 3.1 with every catalogue operation", () =>
      Effect.gen(function*() {
        const reply = yield* call("/openapi.json")
        assert.strictEqual(reply.status, 200)
        assert.strictEqual(reply.body.openapi, "3.1.0")
        assert.hasAllKeys(reply.body.paths["/courses"], ["get", "post"])
        assert.hasAllKeys(reply.body.paths["/courses/{id}"], ["get", "patch", "delete"])
        assert.property(reply.body.paths, "/health/ready")
        assert.property(reply.body.paths["/courses"].post.responses, "401")
      }))

    it.effect("GET /docs serves the interactive explorer", () =>
      Effect.gen(function*() {
        const reply = yield* call("/docs")
        assert.strictEqual(reply.status, 200)
        assert.include(reply.headers.get("content-type") ?? "", "text/html")
        assert.include(reply.text, "openapi")
      }))

    it.effect("POST /courses needs an admin token: 401 with a challenge", () =>
      Effect.gen(function*() {
        const missing = yield* call("/courses", { method: "POST", json: { title: "t", content_html: "" } })
        assertProblem(missing, 401)
        assert.strictEqual(missing.body.detail, "This operation needs an admin token: Authorization: Bearer <token>.")
        assert.strictEqual(missing.headers.get("www-authenticate"), `Bearer realm="coursekit"`)
        const wrong = yield* call("/courses", {
          method: "POST",
          headers: { authorization: "Bearer nope" },
          json: { title: "t", content_html: "" }
        })
        assertProblem(wrong, 401)
        assert.strictEqual(wrong.body.detail, "The bearer token is not a valid admin token.")
        assert.strictEqual(wrong.headers.get("www-authenticate"), `Bearer realm="coursekit"`)
        for (const path of ["/courses/1"]) {
          assertProblem(yield* call(path, { method: "PATCH", json: { title: "x" } }), 401)
          assertProblem(yield* call(path, { method: "DELETE" }), 401)
        }
      }))

    it.effect("POST /courses creates: 201, Location, the spec's fields, a slug", () =>
      Effect.gen(function*() {
        const reply = yield* createCourse("  Crème Brûlée: the Basics  ", "<p>Eggs</p>")
        assert.strictEqual(reply.status, 201)
        const course = reply.body
        assert.hasAllKeys(course, [
          "id",
          "title",
          "slug",
          "content_html",
          "description",
          "thumbnail_key",
          "thumbnail_url",
          "status",
          "publish_at",
          "version",
          "created_at",
          "updated_at"
        ])
        assert.strictEqual(course.version, 1)
        assert.strictEqual(course.status, "published")
        assert.isNull(course.publish_at)
        assert.strictEqual(course.title, "Crème Brûlée: the Basics")
        assert.isNull(course.description)
        assert.match(course.slug, /^creme-brulee-the-basics(-\d+)?$/)
        assert.strictEqual(course.content_html, "<p>Eggs</p>")
        assert.isNull(course.thumbnail_key)
        assert.isNull(course.thumbnail_url)
        assert.strictEqual(reply.headers.get("location"), `/courses/${course.id}`)
        const fetched = yield* call(reply.headers.get("location")!)
        assert.deepStrictEqual(fetched.body, course)
      }))

    it.effect("bodies are strict: unknown fields, wrong types, bad JSON and non-objects are 400", () =>
      Effect.gen(function*() {
        const unknownField = yield* call("/courses", {
          method: "POST",
          admin: true,
          json: { title: "t", content_html: "", published: true }
        })
        assertProblem(unknownField, 400)
        assert.deepStrictEqual(unknownField.body.errors, [{ path: "body.published", message: "Expected no excess property" }])
        const wrongTypes = yield* call("/courses", { method: "POST", admin: true, json: { title: 5, content_html: null } })
        assertProblem(wrongTypes, 400)
        assert.sameMembers(wrongTypes.body.errors.map((error: any) => error.path), ["body.title", "body.content_html"])
        const missing = yield* call("/courses", { method: "POST", admin: true, json: { title: "only" } })
        assertProblem(missing, 400)
        assert.strictEqual(missing.body.errors[0].path, "body.content_html")
        const blank = yield* call("/courses", { method: "POST", admin: true, json: { title: "   ", content_html: "" } })
        assertProblem(blank, 400)
        assert.include(blank.body.detail, "title must not be empty")
        const long = yield* call("/courses", { method: "POST", admin: true, json: { title: "x".repeat(201), content_html: "" } })
        assertProblem(long, 400)
        for (const raw of ["{not json", "[1,2]", "\"text\"", "42", "null", ""]) {
          const reply = yield* call("/courses", {
            method: "POST",
            admin: true,
            headers: { "content-type": "application/json" },
            body: raw
          })
          assertProblem(reply, 400)
        }
        const patchExtra = yield* call("/courses/1", { method: "PATCH", admin: true, json: { slug: "mine" } })
        assertProblem(patchExtra, 400)
        assert.strictEqual(patchExtra.body.errors[0].path, "body.slug")
      }))

    it.effect("the API stores and returns sanitized HTML", () =>
      Effect.gen(function*() {
        const created = yield* createCourse("Dirty", "<h2 id=\"x\" style=\"color:red\">T</h2><img src=x onerror=alert(1)><script>alert(2)</script>")
        assert.strictEqual(created.status, 201)
        assert.strictEqual(created.body.content_html, "<h2>T</h2><img src=\"x\">")
        assert.strictEqual((yield* call(`/courses/${created.body.id}`)).body.content_html, "<h2>T</h2><img src=\"x\">")
      }))

    it.effect("text with a NUL character is a 400, not a failed write", () =>
      Effect.gen(function*() {
        const title = yield* call("/courses", { method: "POST", admin: true, json: { title: "a\u0000b", content_html: "" } })
        assertProblem(title, 400)
        assert.include(title.body.detail, "NUL")
        const body = yield* call("/courses", { method: "POST", admin: true, json: { title: "ok", content_html: "<p>\u0000</p>" } })
        assertProblem(body, 400)
      }))

    it.effect("a body over 2 MiB is a 413 problem", () =>
      Effect.gen(function*() {
        const reply = yield* call("/courses", {
          method: "POST",
          admin: true,
          json: { title: "big", content_html: "x".repeat(3 * 1024 * 1024) }
        })
        assertProblem(reply, 413)
      }))

    it.effect("a body that is not JSON is 415", () =>
      Effect.gen(function*() {
        const reply = yield* call("/courses", {
          method: "POST",
          admin: true,
          headers: { "content-type": "text/plain" },
          body: "title=x"
        })
        assertProblem(reply, 415)
      }))

    it.effect("bad cursor and limit values are 400", () =>
      Effect.gen(function*() {
        for (const query of ["cursor=abc", "cursor=0", "cursor=-3", "cursor=1.5", "limit=0", "limit=51", "limit=abc", "limit=2.5"]) {
          const reply = yield* call(`/courses?${query}`)
          assertProblem(reply, 400)
          assert.match(reply.body.errors[0].path, /^query\.(cursor|limit)$/, query)
        }
      }))

    it.effect("a bad or unknown id: 400 and 404", () =>
      Effect.gen(function*() {
        assertProblem(yield* call("/courses/abc"), 400)
        const missing = yield* call("/courses/987654")
        assertProblem(missing, 404)
        assert.strictEqual(missing.body.detail, "No course has id 987654.")
        assertProblem(yield* call("/courses/987654", { method: "PATCH", admin: true, json: { title: "x" } }), 404)
        assertProblem(yield* call("/courses/987654", { method: "DELETE", admin: true }), 404)
      }))

    it.effect("an unknown route is a 404 problem", () =>
      Effect.gen(function*() {
        const reply = yield* call("/nowhere")
        assertProblem(reply, 404)
        assert.include(reply.body.detail, "/nowhere")
      }))

    it.effect("a known path with another method is a 405 problem with Allow, also for the store's routes", () =>
      Effect.gen(function*() {
        for (
          const [method, path, allow] of [
            ["DELETE", "/", "GET, HEAD"],
            ["PUT", "/courses", "GET, HEAD, POST"],
            ["POST", "/courses/1", "GET, HEAD, PATCH, DELETE"],
            ["POST", "/courses/not-an-id", "GET, HEAD, PATCH, DELETE"],
            ["GET", "/admin/ai/generate", "POST"],
            ["POST", "/openapi.json", "GET, HEAD"],
            ["PATCH", "/docs", "GET, HEAD"],
            ["POST", "/files/x", "GET, HEAD"],
            ["DELETE", "/files/a/b.png", "GET, HEAD"],
            ["GET", "/storage/x", "PUT"]
          ] as const
        ) {
          const reply = yield* call(path, { method })
          assertProblem(reply, 405)
          assert.strictEqual(reply.body.title, "Method Not Allowed")
          assert.strictEqual(reply.headers.get("allow"), allow, `${method} ${path}`)
          assert.strictEqual(reply.body.detail, `${method} is not allowed on ${path}; it allows ${allow}.`)
        }
        const unknown = yield* call("/nope", { method: "POST" })
        assertProblem(unknown, 404)
        assert.isNull(unknown.headers.get("allow"))
      }))

    it.effect("PATCH changes title and body and keeps the slug; DELETE answers 204 then 404", () =>
      Effect.gen(function*() {
        const created = (yield* createCourse("Patch Me")).body
        const patched = yield* call(`/courses/${created.id}`, {
          method: "PATCH",
          admin: true,
          json: { title: "Patched", content_html: "<p>new</p>" }
        })
        assert.strictEqual(patched.status, 200)
        assert.strictEqual(patched.body.title, "Patched")
        assert.strictEqual(patched.body.content_html, "<p>new</p>")
        assert.strictEqual(patched.body.slug, created.slug)
        const deleted = yield* call(`/courses/${created.id}`, { method: "DELETE", admin: true })
        assert.strictEqual(deleted.status, 204)
        assert.strictEqual(deleted.text, "")
        assertProblem(yield* call(`/courses/${created.id}`), 404)
        assertProblem(yield* call(`/courses/${created.id}`, { method: "DELETE", admin: true }), 404)
      }))

    it.effect("version: 1 when created, one more per PATCH that changes something, the same after one that does not; not in the public's list or page", () =>
      Effect.gen(function*() {
        const created = (yield* createCourse("Versioned")).body
        assert.strictEqual(created.version, 1)
        const patch = (json: Record<string, unknown>) => call(`/courses/${created.id}`, { method: "PATCH", admin: true, json })
        assert.strictEqual((yield* patch({ content_html: "<p>two</p>" })).body.version, 2)
        assert.strictEqual((yield* patch({})).body.version, 2)
        assert.strictEqual((yield* patch({ content_html: "<p>two</p>" })).body.version, 2)
        assert.strictEqual((yield* patch({ title: "Versioned again" })).body.version, 3)
        assert.strictEqual((yield* call(`/courses/${created.id}`, { admin: true })).body.version, 3)
        const listed = (yield* call(`/courses?cursor=${created.id}&limit=1`, { admin: true })).body
        assert.strictEqual(listed[0].version, 3)
        // The course's representation carries it for everyone, as its other fields; the public's list and page do not.
        assert.strictEqual((yield* call(`/courses/${created.id}`)).body.version, 3)
        assert.notProperty((yield* call(`/courses?cursor=${created.id}&limit=1`)).body[0], "version")
        assert.notProperty((yield* call(`/public/courses/${created.slug}`)).body, "version")
      }))

    it.effect("description: plain text, trimmed, kept on create, changed and cleared by PATCH, shown by GET and the public course", () =>
      Effect.gen(function*() {
        const created = yield* call("/courses", {
          method: "POST",
          admin: true,
          json: { title: "Described", content_html: "<p>x</p>", description: "  Learn <b>bread</b> & butter.  " }
        })
        assert.strictEqual(created.status, 201)
        // Plain text: stored as written (trimmed), never sanitized as HTML.
        assert.strictEqual(created.body.description, "Learn <b>bread</b> & butter.")
        assert.strictEqual((yield* call(`/courses/${created.body.id}`)).body.description, "Learn <b>bread</b> & butter.")
        assert.strictEqual((yield* call(`/public/courses/${created.body.slug}`)).body.description, "Learn <b>bread</b> & butter.")
        const changed = yield* call(`/courses/${created.body.id}`, { method: "PATCH", admin: true, json: { description: "Sourdough." } })
        assert.strictEqual(changed.status, 200)
        assert.strictEqual(changed.body.description, "Sourdough.")
        assert.strictEqual(changed.body.title, "Described")
        const untouched = yield* call(`/courses/${created.body.id}`, { method: "PATCH", admin: true, json: { title: "Renamed" } })
        assert.strictEqual(untouched.body.description, "Sourdough.")
        const cleared = yield* call(`/courses/${created.body.id}`, { method: "PATCH", admin: true, json: { description: null } })
        assert.strictEqual(cleared.status, 200)
        assert.isNull(cleared.body.description)
        assert.isNull((yield* call(`/public/courses/${created.body.slug}`)).body.description)
      }))

    it.effect("description: 500 characters are accepted; 501, a NUL or a number are a 400 naming body.description, and nothing is written", () =>
      Effect.gen(function*() {
        const longest = yield* call("/courses", { method: "POST", admin: true, json: { title: "Longest", content_html: "", description: "d".repeat(500) } })
        assert.strictEqual(longest.status, 201)
        assert.strictEqual(longest.body.description.length, 500)
        for (const description of ["d".repeat(501), "a\u0000b", 42]) {
          const refused = yield* call("/courses", { method: "POST", admin: true, json: { title: "Refused description", content_html: "", description } })
          assertProblem(refused, 400)
          assert.strictEqual(refused.body.errors[0].path, "body.description")
          const patched = yield* call(`/courses/${longest.body.id}`, { method: "PATCH", admin: true, json: { description } })
          assertProblem(patched, 400)
          assert.strictEqual(patched.body.errors[0].path, "body.description")
        }
        assert.strictEqual((yield* call(`/courses/${longest.body.id}`)).body.description, "d".repeat(500))
      }))

    it.effect("description is in the OpenAPI document: Course, CourseCreate, CourseUpdate and PublicCourse", () =>
      Effect.gen(function*() {
        const schemas = (yield* call("/openapi.json")).body.components.schemas
        for (const name of ["Course", "CourseCreate", "CourseUpdate", "PublicCourse"]) {
          assert.property(schemas[name].properties, "description", name)
        }
        assert.include(schemas.Course.required, "description")
        assert.notInclude(schemas.CourseCreate.required ?? [], "description")
        assert.notProperty(schemas.CourseListItem.properties, "description")
      }))

    it.effect("the Link header walks every page in ascending order, then stops", () =>
      Effect.gen(function*() {
        const ids: Array<number> = []
        for (let i = 1; i <= 8; i++) ids.push((yield* createCourse(`Walk ${i}`)).body.id)
        const seen: Array<number> = []
        let next: string | undefined = `/courses?cursor=${ids[0]}&limit=3`
        let pages = 0
        while (next !== undefined) {
          const reply: Reply = yield* call(next)
          assert.strictEqual(reply.status, 200)
          for (const item of reply.body) assert.hasAllKeys(item, ["id", "title", "slug", "thumbnail_url"])
          seen.push(...reply.body.map((item: any) => item.id))
          const link: string | null = reply.headers.get("link")
          next = link === null ? undefined : /^<([^>]+)>; rel="next"$/.exec(link)![1]
          pages++
        }
        assert.deepStrictEqual(seen, ids)
        assert.strictEqual(pages, 3)
        const defaultPage = yield* call("/courses")
        assert.isAtMost(defaultPage.body.length, 10)
        const beyond = yield* call(`/courses?cursor=${ids.at(-1)! + 1000}`)
        assert.deepStrictEqual(beyond.body, [])
        assert.isNull(beyond.headers.get("link"))
      }))

    it.effect("20 concurrent creates of one title give 20 distinct slugs", () =>
      Effect.gen(function*() {
        const replies = yield* Effect.forEach(
          Array.from({ length: 20 }, () => "Concurrent Course"),
          (title) => createCourse(title),
          { concurrency: "unbounded" }
        )
        assert.deepStrictEqual(replies.map((reply) => reply.status), Array.from({ length: 20 }, () => 201))
        const slugs = new Set(replies.map((reply) => reply.body.slug))
        assert.strictEqual(slugs.size, 20)
        assert.sameMembers([...slugs], ["concurrent-course", ...Array.from({ length: 19 }, (_, index) => `concurrent-course-${index + 2}`)])
      }))

    it.effect("the cached list shows this server's own writes at once, with a new ETag", () =>
      Effect.gen(function*() {
        const first = yield* createCourse("Cache A")
        const url = `/courses?cursor=${first.body.id}&limit=5`
        const before = yield* call(url)
        const etag = before.headers.get("etag")!
        assert.strictEqual((yield* call(url, { headers: { "if-none-match": etag } })).status, 304)
        assert.strictEqual((yield* call(url, { headers: { "if-none-match": `W/${etag}, "other"` } })).status, 304)
        yield* createCourse("Cache B")
        const after = yield* call(url, { headers: { "if-none-match": etag } })
        assert.strictEqual(after.status, 200)
        assert.deepStrictEqual(after.body.map((item: any) => item.title), ["Cache A", "Cache B"])
        assert.notStrictEqual(after.headers.get("etag"), etag)
        yield* call(`/courses/${first.body.id}`, { method: "PATCH", admin: true, json: { title: "Cache A2" } })
        assert.strictEqual((yield* call(url)).body[0].title, "Cache A2")
        yield* call(`/courses/${first.body.id}`, { method: "DELETE", admin: true })
        assert.deepStrictEqual((yield* call(url)).body.map((item: any) => item.title), ["Cache B"])
      }))
  })
})
