/**
 * `GET /courses/search` end to end on the standalone server, for PGlite and PostgreSQL:
 * the rules of the search, its paging by the `Link` header, who sees what (everyone the
 * same without `status`; with it, an admin's search of drafts and scheduled courses too),
 * and the 4xx answers to every malformed or hostile request. The server's
 * database is shared by the tests, so each marks its courses with a word of its own.
 */
import { assert, describe, layer } from "@effect/vitest"
import { Effect, type Layer } from "effect"
import { SignJWT } from "jose"
import { call, jwtSecret, type Reply, type TestServer } from "./TestServer.ts"

const newTag = () => `t${Math.random().toString(36).slice(2, 12)}`

const viewerToken = Effect.promise(() =>
  new SignJWT({}).setProtectedHeader({ alg: "HS256" }).setSubject("student-1").setIssuedAt().setExpirationTime("10m")
    .sign(new TextEncoder().encode(jwtSecret))
)

const create = (course: Record<string, unknown>) =>
  Effect.gen(function*() {
    const reply = yield* call("/courses", { method: "POST", admin: true, json: { content_html: "", ...course } })
    assert.strictEqual(reply.status, 201, reply.text)
    return reply.body.id as number
  })

const search = (query: string, init: Parameters<typeof call>[1] = {}) => call(`/courses/search?${query}`, init)

const q = (text: string) => `q=${encodeURIComponent(text)}`

const ids = (reply: Reply) => {
  assert.strictEqual(reply.status, 200, reply.text)
  return (reply.body as Array<{ id: number }>).map((item) => item.id)
}

const assertBadRequest = (reply: Reply, path: string, what: string) => {
  assert.strictEqual(reply.status, 400, `${what}: ${reply.text}`)
  assert.strictEqual(reply.headers.get("content-type"), "application/problem+json", what)
  assert.strictEqual(reply.body.status, 400, what)
  assert.strictEqual(reply.body.title, "Bad Request", what)
  assert.include(reply.body.errors.map((error: { path: string }) => error.path), path, what)
}

/** Registers the HTTP tests of search against the server of `server`. */
export const courseSearchHttpSuite = <E>(name: string, server: Layer.Layer<TestServer, E>) => {
  describe(`GET /courses/search (${name})`, () => {
    layer(server, { timeout: 60_000 })((it) => {
      it.effect("finds by words whatever their case and diacritics, best first, as list items; anonymous, viewer and admin alike", () =>
        Effect.gen(function*() {
          const tag = newTag()
          const inBody = yield* create({ title: "Desserts", content_html: `<p>Crème brûlée, ${tag}</p>` })
          const inTitle = yield* create({ title: `Crème Brûlée ${tag}`, description: "The classic" })
          yield* create({ title: `Crème brûlée draft ${tag}`, status: "draft" })
          yield* create({ title: `Crème brûlée soon ${tag}`, publish_at: "2999-01-01T00:00:00Z" })
          const anonymous = yield* search(`${q(`creme brulee ${tag}`)}`)
          assert.deepStrictEqual(ids(anonymous), [inTitle, inBody])
          for (const item of anonymous.body) assert.hasAllKeys(item, ["id", "title", "slug", "thumbnail_url"])
          assert.isNull(anonymous.headers.get("link"))
          const token = yield* viewerToken
          const viewer = yield* search(q(`creme brulee ${tag}`), { headers: { authorization: `Bearer ${token}` } })
          const admin = yield* search(q(`creme brulee ${tag}`), { admin: true })
          assert.deepStrictEqual(viewer.body, anonymous.body)
          assert.deepStrictEqual(admin.body, anonymous.body)
          // An admin's catalogue reads are never stored by a shared cache.
          assert.strictEqual(admin.headers.get("cache-control"), "private, no-store")
          for (const text of ["CRÈME BRÛLÉE", "creme brul", "crème, brûlée!", "'creme' & 'brulee':* | !x"]) {
            const found = ids(yield* search(q(`${tag} ${text}`)))
            assert.deepStrictEqual(found, text.endsWith("!x") ? [] : [inTitle, inBody], text)
          }
          assert.deepStrictEqual(ids(yield* search(q(`${tag} classic`))), [inTitle])
        }))

      it.effect("the Link header walks every result once, then stops; the limit is kept", () =>
        Effect.gen(function*() {
          const tag = newTag()
          const created: Array<number> = []
          for (let i = 0; i < 12; i++) {
            created.push(yield* create({
              title: i % 3 === 0 ? `Walk ${tag} ${i}` : `Walk ${i}`,
              description: i % 3 === 1 ? `About ${tag}` : null,
              content_html: `<p>${tag}</p>`
            }))
          }
          const all = ids(yield* search(`${q(tag)}&limit=50`))
          assert.sameMembers(all, created)
          assert.deepStrictEqual(all.slice(0, 4), created.filter((_, i) => i % 3 === 0))
          const seen: Array<number> = []
          let next: string | undefined = `/courses/search?${q(tag)}&limit=5`
          let pages = 0
          while (next !== undefined) {
            const reply: Reply = yield* call(next)
            seen.push(...ids(reply))
            const link = reply.headers.get("link")
            if (link === null) {
              next = undefined
            } else {
              const match = /^<(\/courses\/search\?q=([^&]+)&cursor=([A-Za-z0-9_-]+)&limit=5)>; rel="next"$/.exec(link)
              assert.isNotNull(match, link)
              assert.strictEqual(match![2], tag)
              next = match![1]
            }
            pages++
          }
          assert.deepStrictEqual(seen, all)
          assert.strictEqual(pages, 3)
          const defaultPage = yield* search(q(tag))
          assert.deepStrictEqual(ids(defaultPage), all.slice(0, 10))
          assert.match(defaultPage.headers.get("link") ?? "", /&limit=10>; rel="next"$/)
        }))

      it.effect("a course is found by its new words as soon as it changes: search is not cached", () =>
        Effect.gen(function*() {
          const tag = newTag()
          const id = yield* create({ title: `Before ${tag}` })
          assert.deepStrictEqual(ids(yield* search(q(`${tag} before`))), [id])
          const patched = yield* call(`/courses/${id}`, { method: "PATCH", admin: true, json: { title: `After ${tag}` } })
          assert.strictEqual(patched.status, 200)
          assert.deepStrictEqual(ids(yield* search(q(`${tag} before`))), [])
          assert.deepStrictEqual(ids(yield* search(q(`${tag} after`))), [id])
          yield* call(`/courses/${id}`, { method: "PATCH", admin: true, json: { status: "draft" } })
          assert.deepStrictEqual(ids(yield* search(q(tag))), [])
        }))

      it.effect("an admin's status makes it the authors' search: all, draft, published, scheduled, as the admin list's items", () =>
        Effect.gen(function*() {
          const tag = newTag()
          const draft = yield* create({ title: `Soufflé draft ${tag}`, status: "draft" })
          const scheduled = yield* create({ title: `Soufflé soon ${tag}`, publish_at: "2999-01-01T00:00:00Z" })
          const published = yield* create({ title: `Soufflé ${tag}` })
          const byStatus = (status: string) => search(`${q(`souffle ${tag}`)}&status=${status}`, { admin: true })
          const all = yield* byStatus("all")
          assert.deepStrictEqual(ids(all), [draft, scheduled, published])
          assert.deepStrictEqual(
            (all.body as Array<Record<string, unknown>>).map(({ id, status, publish_at }) => ({ id, status, publish_at })),
            [
              { id: draft, status: "draft", publish_at: null },
              { id: scheduled, status: "published", publish_at: "2999-01-01T00:00:00.000Z" },
              { id: published, status: "published", publish_at: null }
            ]
          )
          // The admin list's items, key for key.
          const listed = yield* call(`/courses?cursor=${draft}&limit=3`, { admin: true })
          assert.deepStrictEqual(all.body, listed.body)
          assert.strictEqual(all.headers.get("cache-control"), "private, no-store")
          assert.deepStrictEqual(ids(yield* byStatus("draft")), [draft])
          assert.deepStrictEqual(ids(yield* byStatus("scheduled")), [scheduled])
          assert.deepStrictEqual(ids(yield* byStatus("published")), [published])
          // Without status, the students' search, for admins too.
          const students = yield* search(q(`souffle ${tag}`), { admin: true })
          assert.deepStrictEqual(ids(students), [published])
          for (const item of students.body) assert.hasAllKeys(item, ["id", "title", "slug", "thumbnail_url"])
          assert.deepStrictEqual(ids(yield* search(q(`souffle ${tag}`))), [published])
        }))

      it.effect("status is the admins' alone: anonymous 401, a viewer 403, whatever its value; a value not listed is a 400", () =>
        Effect.gen(function*() {
          const tag = newTag()
          yield* create({ title: `Hidden ${tag}`, status: "draft" })
          const token = yield* viewerToken
          for (const status of ["all", "draft", "published", "scheduled", "hidden"]) {
            const anonymous = yield* search(`${q(tag)}&status=${status}`)
            assert.strictEqual(anonymous.status, 401, `${status}: ${anonymous.text}`)
            assert.strictEqual(anonymous.headers.get("content-type"), "application/problem+json")
            const viewer = yield* search(`${q(tag)}&status=${status}`, { headers: { authorization: `Bearer ${token}` } })
            assert.strictEqual(viewer.status, 403, `${status}: ${viewer.text}`)
            assert.strictEqual(viewer.headers.get("content-type"), "application/problem+json")
          }
          assert.strictEqual((yield* search(`${q(tag)}&status=all`, { headers: { authorization: "Bearer not-a-token" } })).status, 401)
          for (const status of ["hidden", "ALL", "", "all%00", "all&status=draft", "draft&status=draft"]) {
            assertBadRequest(yield* search(`${q(tag)}&status=${status}`, { admin: true }), "query.status", `status=${status}`)
          }
        }))

      it.effect("the Link header keeps status: an admin's walk gives every course of that status once", () =>
        Effect.gen(function*() {
          const tag = newTag()
          const created: Array<number> = []
          for (let i = 0; i < 5; i++) {
            created.push(yield* create({ title: i % 2 === 0 ? `Page ${tag} ${i}` : `Page ${i}`, content_html: `<p>${tag}</p>`, status: "draft" }))
          }
          created.push(yield* create({ title: `Page ${tag} published`, content_html: `<p>${tag}</p>` }))
          const all = ids(yield* search(`${q(tag)}&status=all&limit=50`, { admin: true }))
          // Titles (5) first, then bodies (1); ascending id within each.
          assert.deepStrictEqual(all, [created[0], created[2], created[4], created[5], created[1], created[3]])
          for (const [status, expected] of [["all", all], ["draft", all.filter((id) => id !== created[5])]] as const) {
            const seen: Array<number> = []
            let next: string | undefined = `/courses/search?${q(tag)}&status=${status}&limit=2`
            while (next !== undefined) {
              const reply: Reply = yield* call(next, { admin: true })
              seen.push(...ids(reply))
              const link = reply.headers.get("link")
              if (link === null) {
                next = undefined
              } else {
                const match = /^<(\/courses\/search\?q=([^&]+)&status=([a-z]+)&cursor=[A-Za-z0-9_-]+&limit=2)>; rel="next"$/.exec(link)
                assert.isNotNull(match, link)
                assert.deepStrictEqual([match![2], match![3]], [tag, status])
                next = match![1]
              }
            }
            assert.deepStrictEqual(seen, expected, status)
          }
          // Without status, the Link names none.
          const students = yield* search(`${q(tag)}&limit=1`, { admin: true })
          assert.deepStrictEqual(ids(students), [created[5]])
          assert.isNull(students.headers.get("link"))
          const twoPublished = yield* create({ title: `Page ${tag} again` })
          const first = yield* search(`${q(tag)}&limit=1`, { admin: true })
          assert.deepStrictEqual(ids(first), [created[5]])
          assert.match(first.headers.get("link") ?? "", /^<\/courses\/search\?q=[^&]+&cursor=[A-Za-z0-9_-]+&limit=1>; rel="next"$/)
          assert.deepStrictEqual(ids(yield* call(/^<([^>]+)>/.exec(first.headers.get("link")!)![1]!, { admin: true })), [twoPublished])
        }))

      it.effect("/courses/search is search, not a course id; /courses/{id} keeps its meaning", () =>
        Effect.gen(function*() {
          const tag = newTag()
          const id = yield* create({ title: `Routed ${tag}` })
          assert.deepStrictEqual(ids(yield* search(q(tag))), [id])
          assertBadRequest(yield* call("/courses/search"), "query.q", "no q")
          const course = yield* call(`/courses/${id}`)
          assert.strictEqual(course.status, 200)
          assert.strictEqual(course.body.id, id)
          assertBadRequest(yield* call("/courses/abc"), "path.id", "/courses/abc")
          assertBadRequest(yield* call("/courses/search", { method: "PATCH", admin: true, json: { title: "x" } }), "path.id", "PATCH")
        }))

      it.effect("malformed and hostile requests are 400s naming the parameter, never a 500", () =>
        Effect.gen(function*() {
          const cases: ReadonlyArray<readonly [string, string]> = [
            ["q=", "query.q"],
            ["q=%20%20%20", "query.q"],
            ["q=!!!", "query.q"],
            [q("&|!():*'\\"), "query.q"],
            [q("🚀 —"), "query.q"],
            ["q", "query.q"],
            [`q=${"x".repeat(201)}`, "query.q"],
            [`q=${"ab%20".repeat(3000)}`, "query.q"],
            [`q=${"x%20".repeat(150)}`, "query.q"],
            ["q=a%00b", "query.q"],
            ["q=%00", "query.q"],
            ["q=a&q=b", "query.q"],
            ["q=x&limit=0", "query.limit"],
            ["q=x&limit=51", "query.limit"],
            ["q=x&limit=-1", "query.limit"],
            ["q=x&limit=1.5", "query.limit"],
            ["q=x&limit=abc", "query.limit"],
            ["q=x&limit=", "query.limit"],
            ["q=x&limit=5&limit=6", "query.limit"],
            ["q=x&cursor=", "query.cursor"],
            ["q=x&cursor=garbage", "query.cursor"],
            ["q=x&cursor=%00", "query.cursor"],
            [`q=x&cursor=${"A".repeat(10_000)}`, "query.cursor"],
            [`q=x&cursor=${Buffer.from("1.2.3").toString("base64url")}`, "query.cursor"],
            [`q=x&cursor=${Buffer.from("99999999999.1").toString("base64url")}`, "query.cursor"],
            [`q=x&cursor=${Buffer.from("1.0").toString("base64url")}`, "query.cursor"],
            [`q=x&cursor=${Buffer.from("1.2").toString("base64url")}&cursor=${Buffer.from("1.3").toString("base64url")}`, "query.cursor"],
            // A cursor of the right form in a spelling the service never writes: padded, another last character.
            [`q=x&cursor=${Buffer.from("7.42").toString("base64url")}%3D%3D`, "query.cursor"],
            [`q=x&cursor=${Buffer.from("7.42").toString("base64url").slice(0, -1)}h`, "query.cursor"]
          ]
          for (const [query, path] of cases) assertBadRequest(yield* search(query), path, query)
          // Well-formed text that only looks hostile is words; escapes that are not UTF-8
          // (a lone surrogate's bytes) are taken as written by the router; a forged cursor
          // of the right form only moves where the page starts.
          for (
            const query of [
              q("x'); DROP TABLE courses; --"),
              q("a:* & !b | (c)"),
              q("it\\'s \\\\ ''quoted''"),
              "q=%ED%A0%80",
              "q=%FF%FE",
              `q=x&cursor=${Buffer.from("0.2147483647").toString("base64url")}`
            ]
          ) {
            const reply = yield* search(query)
            assert.strictEqual(reply.status, 200, `${query}: ${reply.text}`)
            assert.isArray(reply.body)
          }
          assert.strictEqual((yield* search("q=x", { headers: { authorization: "Bearer not-a-token" } })).status, 401)
        }))

      it.effect("the OpenAPI document describes the search with its parameters and problems", () =>
        Effect.gen(function*() {
          const document = (yield* call("/openapi.json")).body
          const operation = document.paths["/courses/search"].get
          assert.sameMembers(operation.parameters.map((parameter: { name: string }) => parameter.name), ["q", "limit", "cursor", "status"])
          const required = operation.parameters.find((parameter: { name: string }) => parameter.name === "q").required
          assert.isTrue(required)
          const status = operation.parameters.find((parameter: { name: string }) => parameter.name === "status")
          assert.isFalse(status.required)
          assert.deepStrictEqual(status.schema.enum, ["all", "draft", "published", "scheduled"])
          assert.match(status.schema.description, /^Admins only \(else 401, or 403 for a viewer\)/)
          assert.include(status.schema.description, "all: every course, drafts and scheduled ones too")
          assert.includeMembers(Object.keys(operation.responses), ["200", "400", "401", "403", "503"])
          assert.property(operation.responses["200"].headers, "link")
        }))
    })
  })
}
