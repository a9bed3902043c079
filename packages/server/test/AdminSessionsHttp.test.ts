/**
 * The Studio's sign-in on the standalone server with PGlite: the suite, the cookie under
 * an https public URL with a path, and sessions across restarts of one data directory —
 * kept, refused once idle for 12 hours by the database's clock, refused once their token
 * is no longer configured.
 */
import { assert, describe, it, layer } from "@effect/vitest"
import { Effect, Layer, type Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { mkdtempSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { request as httpRequest } from "node:http"
import { join } from "node:path"
import { PgliteDatabase } from "@coursekit/postgres"
import * as StandaloneServer from "../src/StandaloneServer.ts"
import { adaToken, adminSessionsHttpSuite, browser, cookieFrom, sessionKeyOf, sessionPair, sessionTokens, setCookieOf, signIn } from "./AdminSessionsHttpSuite.ts"
import { call, callAt, layerTestServer, testSettings, TestServer, urlOf } from "./TestServer.ts"

adminSessionsHttpSuite("PGlite", layerTestServer({ adminTokens: sessionTokens }))

describe("admin sessions under an https public URL with a path", () => {
  layer(layerTestServer({ adminTokens: sessionTokens, publicUrl: "https://studio.example.com/coursekit", publicUrlConfigured: true }), {
    timeout: 60_000,
    excludeTestServices: true
  })((it) => {
    it.effect("the cookie is Secure with the public URL's path, and writes must come from its origin", () =>
      Effect.gen(function*() {
        const origin = "https://studio.example.com"
        const reply = yield* signIn(adaToken, origin)
        assert.strictEqual(reply.status, 200, reply.text)
        const [pair, ...attributes] = setCookieOf(reply).split("; ")
        assert.match(pair!, sessionPair)
        assert.deepStrictEqual(attributes, ["Path=/coursekit", "HttpOnly", "Secure", "SameSite=Strict"])
        const cookie = pair!
        const created = yield* call("/courses", { method: "POST", headers: browser(cookie, origin), json: { title: "Behind TLS", content_html: "" } })
        assert.strictEqual(created.status, 201, created.text)
        const { url } = yield* TestServer
        const local = yield* call("/courses", { method: "POST", headers: browser(cookie, new URL(url).origin), json: { title: "Local", content_html: "" } })
        assert.strictEqual(local.status, 403)
        const plain = yield* call("/courses", { method: "POST", headers: browser(cookie, "http://studio.example.com"), json: { title: "Plain", content_html: "" } })
        assert.strictEqual(plain.status, 403)
        const out = yield* call("/admin/session", { method: "DELETE", headers: browser(cookie, origin) })
        assert.strictEqual(setCookieOf(out), "coursekit_session=; Max-Age=0; Path=/coursekit; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; Secure; SameSite=Strict")
      }))
  })
})

/** `POST /admin/session` to the server at `url` with the `Host` and `Origin` a browser would send from a page at `host`. */
const signInAs = (url: string, host: string, origin: string) =>
  Effect.promise(() =>
    new Promise<number>((resolve, reject) => {
      const body = JSON.stringify({ token: adaToken })
      const request = httpRequest(`${url}/admin/session`, {
        method: "POST",
        headers: { host, origin, "content-type": "application/json", "content-length": Buffer.byteLength(body) }
      }, (response) => {
        response.resume()
        resolve(response.statusCode!)
      })
      request.on("error", reject)
      request.end(body)
    })
  )

describe("admin sessions without PUBLIC_URL", () => {
  layer(layerTestServer({ adminTokens: sessionTokens }), { timeout: 60_000, excludeTestServices: true })((it) => {
    it.effect("a page at the address the browser used (its Host) may sign in, as localhost or 127.0.0.1; another site, or another scheme, may not", () =>
      Effect.gen(function*() {
        const { url } = yield* TestServer
        const port = new URL(url).port
        assert.strictEqual(yield* signInAs(url, `localhost:${port}`, `http://localhost:${port}`), 200)
        assert.strictEqual(yield* signInAs(url, `127.0.0.1:${port}`, `http://127.0.0.1:${port}`), 200)
        assert.strictEqual(yield* signInAs(url, `localhost:${port}`, "http://evil.example"), 403)
        assert.strictEqual(yield* signInAs(url, `localhost:${port}`, `http://127.0.0.2:${port}`), 403)
        assert.strictEqual(yield* signInAs(url, `localhost:${port}`, `https://localhost:${port}`), 403)
        assert.strictEqual(yield* signInAs(url, `localhost:${port}`, `http://localhost:${port}/`), 403)
      }))
  })
})

/** Runs `effect` against a server on `dataDir` started for it and stopped after it (PGlite closed). */
const withServer = <A, E>(dataDir: string, adminTokens: ReadonlyArray<Redacted.Redacted<string>>, effect: (url: string) => Effect.Effect<A, E>) =>
  Effect.scoped(Effect.gen(function*() {
    const context = yield* Layer.build(StandaloneServer.layerFrom(testSettings({ dataDir, adminTokens })))
    return yield* effect(yield* Effect.provide(urlOf, context))
  }))

/** Runs `statement` on the PGlite database in `dataDir`, with no server on it. */
const onDatabase = (dataDir: string, statement: (sql: SqlClient.SqlClient) => Effect.Effect<unknown, unknown>) =>
  Effect.flatMap(SqlClient.SqlClient, statement).pipe(
    Effect.provide(PgliteDatabase.layer({ dataDir: join(dataDir, "pglite") })),
    Effect.orDie
  )

describe("admin sessions across restarts (PGlite on disk)", () => {
  it.effect("a session survives a restart; idle for 12 hours by the database's clock it is over; a token taken out of the configuration ends its sessions", () =>
    Effect.gen(function*() {
      const dataDir = mkdtempSync(join(process.env.COURSEKIT_TEST_TMP ?? tmpdir(), "sessions-"))
      const signedIn = yield* withServer(dataDir, sessionTokens, (url) =>
        Effect.gen(function*() {
          const reply = yield* callAt(url, "/admin/session", { method: "POST", headers: { origin: url }, json: { token: adaToken } })
          assert.strictEqual(reply.status, 200, reply.text)
          const cookie = cookieFrom(setCookieOf(reply))
          const other = yield* callAt(url, "/admin/session", { method: "POST", headers: { origin: url }, json: { token: adaToken } })
          const created = yield* callAt(url, "/courses", { method: "POST", headers: browser(cookie, url), json: { title: "Before the restart", content_html: "" } })
          assert.strictEqual(created.status, 201)
          return { cookie, other: cookieFrom(setCookieOf(other)), id: created.body.id as number }
        }))
      // Generated once, private, and read again at the next start: the same key signs on.
      assert.strictEqual(statSync(join(dataDir, "session-secret")).mode & 0o777, 0o600)

      yield* withServer(dataDir, sessionTokens, (url) =>
        Effect.gen(function*() {
          const patched = yield* callAt(url, `/courses/${signedIn.id}`, { method: "PATCH", headers: browser(signedIn.cookie, url), json: { title: "After the restart" } })
          assert.strictEqual(patched.status, 200, patched.text)
          const revisions = yield* callAt(url, `/courses/${signedIn.id}/revisions`, { headers: browser(signedIn.cookie) })
          assert.deepStrictEqual(revisions.body.map((revision: { author: string }) => revision.author), ["ada", "ada"])
        }))

      // What is stored: a digest of each session's id, never the id or the token.
      yield* onDatabase(dataDir, (sql) =>
        Effect.gen(function*() {
          const rows = yield* sql<{ readonly key: string; readonly principal: string }>`SELECT key, principal FROM coursekit.admin_sessions ORDER BY created_at`
          assert.deepStrictEqual(rows.map((row) => row.key), [sessionKeyOf(signedIn.cookie), sessionKeyOf(signedIn.other)])
          const stored = JSON.stringify(rows)
          for (const secret of [signedIn.cookie.split("=")[1]!.split(".")[0]!, adaToken]) assert.notInclude(stored, secret)
        }))
      // Twelve hours and a second of the database's time since the first session was last seen.
      yield* onDatabase(dataDir, (sql) =>
        sql`UPDATE coursekit.admin_sessions SET last_seen_at = now() - interval '12 hours 1 second' WHERE key = ${sessionKeyOf(signedIn.cookie)}`)
      yield* withServer(dataDir, sessionTokens, (url) =>
        Effect.gen(function*() {
          const idle = yield* callAt(url, "/admin/media", { headers: browser(signedIn.cookie) })
          assert.strictEqual(idle.status, 401, idle.text)
          assert.strictEqual((yield* callAt(url, "/admin/media", { headers: browser(signedIn.other) })).status, 200)
        }))

      // Ada's token is no longer configured: her sessions name no one any more.
      yield* withServer(dataDir, [sessionTokens[0]!], (url) =>
        Effect.gen(function*() {
          const gone = yield* callAt(url, "/admin/media", { headers: browser(signedIn.other) })
          assert.strictEqual(gone.status, 401, gone.text)
        }))
    }), 120_000)
})
