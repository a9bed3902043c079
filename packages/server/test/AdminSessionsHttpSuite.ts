/**
 * The Studio's sign-in over HTTP, on a standalone server built by the caller (PGlite,
 * PostgreSQL) with the admin tokens {@link sessionTokens} and its own origin as public
 * URL: the cookie's attributes, what it admits and from where, sign-out, forged cookies,
 * hostile tokens and many sign-ins at once.
 */
import { assert, describe, layer } from "@effect/vitest"
import { Effect, type Layer, Redacted } from "effect"
import { createHash, createHmac, randomBytes } from "node:crypto"
import { adminToken, call, TestServer } from "./TestServer.ts"

/** Ada's named token, and the test server's bare one. */
export const adaToken = "ada-session-token-0123456789abcdef"
export const sessionTokens = [Redacted.make(adminToken), Redacted.make(`ada=${adaToken}`)]
export const bareAuthor = `admin-${createHash("sha256").update(adminToken).digest("hex").slice(0, 8)}`

/** What a session cookie looks like on the wire: `coursekit_session=<id>.<mac>`, 43 base64url characters each. */
export const sessionPair = /^coursekit_session=[A-Za-z0-9_-]{43}\.[A-Za-z0-9_-]{43}$/

/** `POST /admin/session` with `body` (a token by default), from `origin` when given. */
export const signIn = (body: unknown, origin?: string) =>
  call("/admin/session", { method: "POST", json: typeof body === "string" ? { token: body } : body, headers: origin === undefined ? {} : { origin } })

/** The one `Set-Cookie` of a reply. */
export const setCookieOf = (reply: { readonly headers: Headers }) => {
  const cookies = reply.headers.getSetCookie()
  assert.lengthOf(cookies, 1, "one Set-Cookie")
  return cookies[0]!
}

/** The `Cookie` a browser sends back for a `Set-Cookie`: its name and value. */
export const cookieFrom = (setCookie: string) => setCookie.split(";")[0]!

/** How the store knows the session of `cookie` (`coursekit_session=<id>.<mac>`): the SHA-256 of its id, in hex. */
export const sessionKeyOf = (cookie: string) => createHash("sha256").update(cookie.split("=")[1]!.split(".")[0]!).digest("hex")

/** Signs in with `token` from `origin` and answers the cookie to send. */
export const sessionCookie = (token: string, origin: string) =>
  Effect.map(signIn(token, origin), (reply) => {
    assert.strictEqual(reply.status, 200, reply.text)
    return cookieFrom(setCookieOf(reply))
  })

/** Request headers of a browser holding `cookie`, on a page of `origin` (none: a request without Origin). */
export const browser = (cookie: string, origin?: string, extra: Record<string, string> = {}) =>
  ({ cookie, ...(origin === undefined ? {} : { origin }), ...extra })

/** The server's own origin: the test server's public URL's. */
export const serverOrigin = Effect.map(Effect.service(TestServer), ({ url }) => new URL(url).origin)

const unique = (label: string) => `${label} ${Math.random().toString(36).slice(2, 10)}`

const sessionEnded = "The session is not valid or has ended (signed out, or idle for 12 hours): sign in again with POST " +
  "/admin/session, or send Authorization: Bearer <admin token>."

export const adminSessionsHttpSuite = <E>(name: string, server: Layer.Layer<TestServer, E>) =>
  describe(`admin sessions over HTTP (${name})`, () => {
    layer(server, { timeout: 60_000, excludeTestServices: true })((it) => {
      it.effect("sign-in answers the author and sets an HttpOnly, SameSite=Strict cookie with Path=/ and no Secure (PUBLIC_URL is http)", () =>
        Effect.gen(function*() {
          const origin = yield* serverOrigin
          const reply = yield* signIn(adaToken, origin)
          assert.strictEqual(reply.status, 200, reply.text)
          assert.deepStrictEqual(reply.body, { author: "ada" })
          const setCookie = setCookieOf(reply)
          const [pair, ...attributes] = setCookie.split("; ")
          assert.match(pair!, sessionPair)
          assert.deepStrictEqual(attributes, ["Path=/", "HttpOnly", "SameSite=Strict"])
          // A sign-in without Origin (a script, curl) works too; a bare token's author is its digest's.
          const bare = yield* signIn(adminToken)
          assert.strictEqual(bare.status, 200, bare.text)
          assert.deepStrictEqual(bare.body, { author: bareAuthor })
          assert.notStrictEqual(cookieFrom(setCookieOf(bare)), pair, "every sign-in is a session of its own")
        }))

      it.effect("the cookie admits reads from anywhere and writes from the server's own origin; the revisions name the token's name", () =>
        Effect.gen(function*() {
          const origin = yield* serverOrigin
          const cookie = yield* sessionCookie(adaToken, origin)
          const created = yield* call("/courses", { method: "POST", headers: browser(cookie, origin), json: { title: unique("By session"), content_html: "", status: "draft" } })
          assert.strictEqual(created.status, 201, created.text)
          const path = `/courses/${created.body.id}`
          // A draft: only an admin reads it, and the cookie is an admin's, with no Origin needed to read.
          assert.strictEqual(created.body.status, "draft")
          const read = yield* call(path, { headers: browser(cookie) })
          assert.strictEqual(read.status, 200, read.text)
          assert.strictEqual(read.headers.get("cache-control"), "private, no-store")
          assert.strictEqual(read.headers.get("vary"), "authorization, cookie")
          assert.strictEqual((yield* call(path)).status, 404, "the public does not see the draft")
          const drafts = yield* call("/courses?status=draft&limit=50", { headers: browser(cookie) })
          assert.strictEqual(drafts.status, 200, drafts.text)
          assert.include(drafts.body.map((course: { id: number }) => course.id), created.body.id)
          const patched = yield* call(path, { method: "PATCH", headers: browser(cookie, origin), json: { title: "Renamed by session" } })
          assert.strictEqual(patched.status, 200, patched.text)
          assert.strictEqual(patched.body.version, 2)
          const revisions = yield* call(`${path}/revisions`, { headers: browser(cookie) })
          assert.strictEqual(revisions.status, 200, revisions.text)
          assert.deepStrictEqual(revisions.body.map((revision: { version: number; author: string }) => [revision.version, revision.author]), [[2, "ada"], [1, "ada"]])
          // A bare token's session writes as that token would.
          const bare = yield* sessionCookie(adminToken, origin)
          yield* call(path, { method: "PATCH", headers: browser(bare, origin), json: { title: "Renamed by the bare token's session" } })
          const after = yield* call(`${path}/revisions`, { admin: true })
          assert.strictEqual(after.body[0].author, bareAuthor)
        }))

      it.effect("a write admitted by the cookie without Origin, from another origin or from an opaque one is a 403, and nothing is written", () =>
        Effect.gen(function*() {
          const origin = yield* serverOrigin
          const cookie = yield* sessionCookie(adaToken, origin)
          const created = yield* call("/courses", { method: "POST", admin: true, json: { title: unique("Guarded"), content_html: "" } })
          const path = `/courses/${created.body.id}`
          const port = new URL(origin).port
          const foreign = [undefined, "https://evil.example", "null", `http://localhost:${port}`, `${origin}/`, origin.replace("http:", "https:")]
          for (const from of foreign) {
            const refused = yield* call(path, { method: "PATCH", headers: browser(cookie, from), json: { title: "Forged" } })
            assert.strictEqual(refused.status, 403, `${from}: ${refused.text}`)
            assert.strictEqual(refused.headers.get("content-type"), "application/problem+json")
            assert.strictEqual(
              refused.body.detail,
              `A write signed in by the session cookie must come from ${origin}, this server's own pages (the Origin header); ` +
                `this request ${from === undefined ? "has no Origin" : `comes from ${from}`}.`
            )
            const deleted = yield* call(path, { method: "DELETE", headers: browser(cookie, from) })
            assert.strictEqual(deleted.status, 403, `${from}: ${deleted.text}`)
            const post = yield* call("/courses", { method: "POST", headers: browser(cookie, from), json: { title: "Forged", content_html: "" } })
            assert.strictEqual(post.status, 403)
          }
          const now = yield* call(path, { admin: true })
          assert.strictEqual(now.body.version, 1)
          assert.strictEqual(now.body.title, created.body.title)
          // Reads need no Origin; a bearer token needs none for writes.
          assert.strictEqual((yield* call(`${path}/revisions`, { headers: browser(cookie, "https://evil.example") })).status, 200)
          assert.strictEqual((yield* call(path, { method: "PATCH", admin: true, json: { title: "By token" } })).status, 200)
        }))

      it.effect("a token that is no admin token is a 401 with the API's message and sets nothing; a sign-in from another site's page is a 403", () =>
        Effect.gen(function*() {
          const origin = yield* serverOrigin
          for (const token of ["not-a-token", `${adaToken} `, adaToken.slice(0, -1), "ada", `ada=${adaToken}`]) {
            const refused = yield* signIn(token, origin)
            assert.strictEqual(refused.status, 401, token)
            assert.strictEqual(refused.body.detail, "The token is not a valid admin token.")
            assert.strictEqual(refused.headers.get("www-authenticate"), "Bearer realm=\"coursekit\"")
            assert.deepStrictEqual(refused.headers.getSetCookie(), [])
          }
          for (const from of ["https://evil.example", "null"]) {
            const refused = yield* signIn(adaToken, from)
            assert.strictEqual(refused.status, 403, from)
            assert.strictEqual(refused.body.detail, `A sign-in must come from ${origin}, this server's own pages (the Origin header); this request comes from ${from}.`)
            assert.deepStrictEqual(refused.headers.getSetCookie(), [])
          }
        }))

      it.effect("bodies that are not a token are 400s, NUL and huge strings included, never 500", () =>
        Effect.gen(function*() {
          const origin = yield* serverOrigin
          const cases: ReadonlyArray<readonly [unknown, string]> = [
            [{}, "body.token"],
            [{ token: "" }, "body.token"],
            [{ token: 42 }, "body.token"],
            [{ token: adaToken, remember: true }, "body.remember"],
            [{ token: `${adaToken}\u0000` }, "body.token"],
            [{ token: "\u0000" }, "body.token"],
            [{ token: "x".repeat(4097) }, "body.token"]
          ]
          for (const [body, path] of cases) {
            const refused = yield* signIn(body, origin)
            assert.strictEqual(refused.status, 400, `${JSON.stringify(body).slice(0, 60)}: ${refused.text.slice(0, 200)}`)
            assert.include(refused.body.errors.map((issue: { path: string }) => issue.path), path)
            assert.deepStrictEqual(refused.headers.getSetCookie(), [])
          }
          // The longest token the schema takes is still only compared.
          assert.strictEqual((yield* signIn("x".repeat(4096), origin)).status, 401)
          const huge = yield* signIn("x".repeat(3 * 1024 * 1024), origin)
          assert.strictEqual(huge.status, 413)
          const notJson = yield* call("/admin/session", { method: "POST", headers: { origin, "content-type": "application/json" }, body: "{\"token\":" })
          assert.strictEqual(notJson.status, 400)
        }))

      it.effect("a forged, altered or foreign-signed cookie is refused (401) without being a session", () =>
        Effect.gen(function*() {
          const origin = yield* serverOrigin
          const real = (yield* sessionCookie(adaToken, origin)).slice("coursekit_session=".length)
          const [id, mac] = real.split(".") as [string, string]
          const flip = (text: string) => `${text.slice(0, 10)}${text[10] === "A" ? "B" : "A"}${text.slice(11)}`
          const otherId = randomBytes(32).toString("base64url")
          const forged = [
            `${otherId}.${mac}`,
            `${flip(id)}.${mac}`,
            `${id}.${flip(mac)}`,
            `${id}.${createHmac("sha256", "another-secret-0123456789-0123456789").update(`coursekit/session\u0000${id}`).digest("base64url")}`,
            id,
            `${id}.`,
            `${id}.${mac}.x`,
            "x".repeat(4000),
            "%00",
            ""
          ]
          for (const value of forged) {
            const cookie = `coursekit_session=${value}`
            const refused = yield* call("/courses/search?q=x", { headers: browser(cookie) })
            assert.strictEqual(refused.status, 200, "search reads as the public: a bad cookie is not a credential there")
            const admin = yield* call("/admin/media", { headers: browser(cookie) })
            assert.strictEqual(admin.status, 401, `${value.slice(0, 30)}: ${admin.text}`)
            assert.strictEqual(admin.body.detail, sessionEnded)
          }
          // Another cookie of the page's own does not get in the way; the session's is read among them.
          const among = yield* call("/admin/media", { headers: browser(`theme=dark; coursekit_session=${real}; other=1`) })
          assert.strictEqual(among.status, 200, among.text)
        }))

      it.effect("Authorization, when sent, alone decides: a wrong or a viewer's token is refused whatever the cookie", () =>
        Effect.gen(function*() {
          const origin = yield* serverOrigin
          const cookie = yield* sessionCookie(adaToken, origin)
          const wrong = yield* call("/admin/media", { headers: browser(cookie, origin, { authorization: "Bearer not-a-token" }) })
          assert.strictEqual(wrong.status, 401)
          assert.strictEqual(wrong.body.detail, "The bearer token is not a valid admin token.")
          assert.strictEqual((yield* call("/admin/media", { headers: browser(cookie) })).status, 200)
        }))

      it.effect("sign-out ends the session and clears the cookie; from then on the cookie is refused; a sign-out without Origin is refused and changes nothing", () =>
        Effect.gen(function*() {
          const origin = yield* serverOrigin
          const cookie = yield* sessionCookie(adaToken, origin)
          const other = yield* sessionCookie(adaToken, origin)
          for (const from of [undefined, "https://evil.example"]) {
            const refused = yield* call("/admin/session", { method: "DELETE", headers: browser(cookie, from) })
            assert.strictEqual(refused.status, 403, refused.text)
            assert.deepStrictEqual(refused.headers.getSetCookie(), [])
          }
          assert.strictEqual((yield* call("/admin/media", { headers: browser(cookie) })).status, 200, "still signed in")

          const out = yield* call("/admin/session", { method: "DELETE", headers: browser(cookie, origin) })
          assert.strictEqual(out.status, 204, out.text)
          assert.strictEqual(setCookieOf(out), "coursekit_session=; Max-Age=0; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; SameSite=Strict")
          const after = yield* call("/admin/media", { headers: browser(cookie) })
          assert.strictEqual(after.status, 401)
          assert.strictEqual(after.body.detail, sessionEnded)
          const write = yield* call("/courses", { method: "POST", headers: browser(cookie, origin), json: { title: "After sign-out", content_html: "" } })
          assert.strictEqual(write.status, 401)
          // The other session of the same token goes on.
          assert.strictEqual((yield* call("/admin/media", { headers: browser(other) })).status, 200)
          // Signing out again, or with no cookie at all, is no error.
          assert.strictEqual((yield* call("/admin/session", { method: "DELETE", headers: browser(cookie, origin) })).status, 204)
          const none = yield* call("/admin/session", { method: "DELETE" })
          assert.strictEqual(none.status, 204)
          assert.match(setCookieOf(none), /^coursekit_session=; Max-Age=0;/)
        }))

      it.effect("twenty sign-ins at once are twenty sessions, each admitting its own requests", () =>
        Effect.gen(function*() {
          const origin = yield* serverOrigin
          const replies = yield* Effect.forEach(Array.from({ length: 20 }, () => adaToken), (token) => signIn(token, origin), { concurrency: "unbounded" })
          assert.deepStrictEqual(replies.map((reply) => reply.status), Array.from({ length: 20 }, () => 200))
          const cookies = replies.map((reply) => cookieFrom(setCookieOf(reply)))
          assert.strictEqual(new Set(cookies).size, 20)
          const reads = yield* Effect.forEach(cookies, (cookie) => call("/admin/media", { headers: browser(cookie) }), { concurrency: "unbounded" })
          assert.deepStrictEqual(reads.map((reply) => reply.status), Array.from({ length: 20 }, () => 200))
        }))
    })
  })

