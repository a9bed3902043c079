/**
 * `GET /courses/search` end to end on the standalone server, for PGlite and PostgreSQL:
 * the rules of the search, its paging by the `Link` header, who sees what (everyone the
 * same), and the 4xx answers to every malformed or hostile request. The server's
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
          assert.sameMembers(operation.parameters.map((parameter: { name: string }) => parameter.name), ["q", "limit", "cursor"])
          const required = operation.parameters.find((parameter: { name: string }) => parameter.name === "q").required
          assert.isTrue(required)
          assert.includeMembers(Object.keys(operation.responses), ["200", "400", "401", "503"])
          assert.property(operation.responses["200"].headers, "link")
        }))
    })
  })
}
