/**
 * The Studio's sign-in on standalone servers sharing one PostgreSQL database: the suite,
 * then two instances behind one load balancer (one `SESSION_SECRET`): a session signed
 * in on one is honoured by the other, signed out on one it is refused by both; the idle
 * window by the database's clock; and an instance with another secret honouring none.
 */
import { PgClient } from "@effect/sql-pg"
import { assert, describe, expect, it, layer } from "@effect/vitest"
import { Context, Effect, Layer, Option, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import type { ServerSettings } from "../src/ServerConfig.ts"
import * as StandaloneServer from "../src/StandaloneServer.ts"
import { adaToken, adminSessionsHttpSuite, browser, cookieFrom, sessionKeyOf, sessionTokens, setCookieOf } from "./AdminSessionsHttpSuite.ts"
import { callAt, layerTestServer, testSettings, urlOf } from "./TestServer.ts"

const serverUrl = process.env.TEST_DATABASE_URL
const required = process.env.COURSEKIT_REQUIRE_POSTGRES === "1"

const sharedSecret = Redacted.make("shared-session-secret-0123456789-abcdef")

/** The instances under test and a client of the test's own on their database. */
class Instances extends Context.Service<Instances, {
  readonly a: string
  readonly b: string
  /** Same database, a key of its own (generated into its data directory). */
  readonly stranger: string
  readonly admin: SqlClient.SqlClient
}>()("test/AdminSessionsPostgres/Instances") {}

/** A database of its own on the test server, dropped when the layer is released; its URL. */
const freshDatabase = (url: string, name: string) =>
  Effect.gen(function*() {
    const onServer = (statement: (sql: SqlClient.SqlClient) => Effect.Effect<unknown, unknown>) =>
      Effect.flatMap(Effect.service(SqlClient.SqlClient), statement).pipe(
        Effect.provide(PgClient.layer({ url: Redacted.make(url), maxConnections: 1 })),
        Effect.orDie
      )
    yield* Effect.acquireRelease(
      onServer((sql) => sql`CREATE DATABASE ${sql(name)}`),
      () => onServer((sql) => sql`DROP DATABASE IF EXISTS ${sql(name)} WITH (FORCE)`)
    )
    const target = new URL(url)
    target.pathname = `/${name}`
    return target.toString()
  })

const uniqueName = (label: string) => `coursekit_${label}_${process.pid}_${Math.random().toString(36).slice(2, 8)}`

if (serverUrl !== undefined) {
  adminSessionsHttpSuite(
    "PostgreSQL",
    Layer.unwrap(Effect.map(freshDatabase(serverUrl, uniqueName("sessions")), (url) =>
      layerTestServer({ databaseUrl: Option.some(Redacted.make(url)), databasePoolSize: 4, adminTokens: sessionTokens })))
  )

  const layerInstances = Layer.effect(Instances, Effect.gen(function*() {
    const url = yield* freshDatabase(serverUrl, uniqueName("sessions_shared"))
    const settings = testSettings({ databaseUrl: Option.some(Redacted.make(url)), databasePoolSize: 4, adminTokens: sessionTokens })
    const serve = (overrides: Partial<ServerSettings>, label: string) =>
      Layer.build(StandaloneServer.layerFrom({ ...settings, dataDir: `${settings.dataDir}-${label}`, ...overrides })).pipe(
        Effect.flatMap((context) => Effect.provide(urlOf, context))
      )
    const a = yield* serve({ sessionSecret: Option.some(sharedSecret) }, "a")
    const b = yield* serve({ sessionSecret: Option.some(sharedSecret) }, "b")
    const stranger = yield* serve({}, "stranger")
    const admin = yield* Layer.build(PgClient.layer({ url: Redacted.make(url), maxConnections: 1 })).pipe(
      Effect.map((context) => Context.get(context, SqlClient.SqlClient))
    )
    return Instances.of({ a, b, stranger, admin })
  }))

  /** Signs in on the instance at `url`, from its own pages; the cookie to send. */
  const signInAt = (url: string) =>
    Effect.map(callAt(url, "/admin/session", { method: "POST", headers: { origin: url }, json: { token: adaToken } }), (reply) => {
      assert.strictEqual(reply.status, 200, reply.text)
      return cookieFrom(setCookieOf(reply))
    })

  // Each instance is its own origin here (two ports); behind a load balancer they share one.
  const statusAt = (url: string, cookie: string) => Effect.map(callAt(url, "/admin/media", { headers: browser(cookie) }), (reply) => reply.status)

  describe("admin sessions on two instances sharing one PostgreSQL", () => {
    layer(layerInstances, { timeout: 60_000, excludeTestServices: true })((it) => {
      it.effect("a session from instance A is honoured by B; signed out on B, A refuses it at once", () =>
        Effect.gen(function*() {
          const { a, b } = yield* Instances
          const cookie = yield* signInAt(a)
          assert.strictEqual(yield* statusAt(b, cookie), 200)
          const created = yield* callAt(b, "/courses", { method: "POST", headers: browser(cookie, b), json: { title: "Written on B", content_html: "" } })
          assert.strictEqual(created.status, 201, created.text)
          const out = yield* callAt(b, "/admin/session", { method: "DELETE", headers: browser(cookie, b) })
          assert.strictEqual(out.status, 204)
          assert.strictEqual(yield* statusAt(a, cookie), 401)
          assert.strictEqual(yield* statusAt(b, cookie), 401)
          const write = yield* callAt(a, "/courses", { method: "POST", headers: browser(cookie, a), json: { title: "After sign-out", content_html: "" } })
          assert.strictEqual(write.status, 401)
        }))

      it.effect("12 hours without use by the database's clock end a session on every instance; a use before then keeps it", () =>
        Effect.gen(function*() {
          const { a, b, admin } = yield* Instances
          const [idle, used] = [yield* signInAt(a), yield* signInAt(a)]
          yield* admin`UPDATE coursekit.admin_sessions SET last_seen_at = now() - interval '12 hours 1 second' WHERE key = ${sessionKeyOf(idle)}`
          yield* admin`UPDATE coursekit.admin_sessions SET last_seen_at = now() - interval '11 hours 59 minutes' WHERE key = ${sessionKeyOf(used)}`
          assert.strictEqual(yield* statusAt(b, idle), 401)
          assert.strictEqual(yield* statusAt(a, idle), 401)
          assert.strictEqual(yield* statusAt(b, used), 200)
          // That use was written down: the window starts again from now.
          const [seen] = yield* admin<{ readonly age_s: number }>`
            SELECT extract(epoch FROM now() - last_seen_at)::float8 AS age_s FROM coursekit.admin_sessions WHERE key = ${sessionKeyOf(used)}`
          assert.isBelow(seen!.age_s, 10)
          // The next sign-in removes the session that ran out.
          yield* signInAt(b)
          const left = yield* admin<{ readonly key: string }>`SELECT key FROM coursekit.admin_sessions WHERE key = ${sessionKeyOf(idle)}`
          assert.deepStrictEqual(left, [])
        }))

      it.effect("an instance signing with another key honours no session of the others (SESSION_SECRET must be one value on all)", () =>
        Effect.gen(function*() {
          const { a, stranger } = yield* Instances
          const cookie = yield* signInAt(a)
          assert.strictEqual(yield* statusAt(stranger, cookie), 401)
          const own = yield* signInAt(stranger)
          assert.strictEqual(yield* statusAt(stranger, own), 200)
          assert.strictEqual(yield* statusAt(a, own), 401)
        }))
    })
  })
} else if (required) {
  describe("admin sessions on PostgreSQL", () => {
    it("runs in CI", () => {
      expect.fail("TEST_DATABASE_URL is not set: CI must run the PostgreSQL suite")
    })
  })
}
