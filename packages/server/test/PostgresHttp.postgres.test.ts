import { PgClient } from "@effect/sql-pg"
import { assert, describe, expect, it, layer } from "@effect/vitest"
import { Context, Duration, Effect, Layer, Option, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import * as StandaloneServer from "../src/StandaloneServer.ts"
import { publishingHttpSuite } from "./PublishingHttpSuite.ts"
import { editingHttpSuite, editingTokens } from "./EditingHttpSuite.ts"
import { learningHttpSuite } from "./LearningHttpSuite.ts"
import { coursePreviewHttpSuite } from "./CoursePreviewHttpSuite.ts"
import type { ServerSettings } from "../src/ServerConfig.ts"
import { call, callAt, layerTestServer, testSettings, urlOf } from "./TestServer.ts"

const serverUrl = process.env.TEST_DATABASE_URL
const required = process.env.COURSEKIT_REQUIRE_POSTGRES === "1"

// A database of its own on the test server, dropped when the suite ends.
const databaseName = `coursekit_http_${process.pid}_${Math.random().toString(36).slice(2, 8)}`
const adminLayer = (url: string) => PgClient.layer({ url: Redacted.make(url), maxConnections: 1 })
const onServer = (url: string, statement: (sql: SqlClient.SqlClient) => Effect.Effect<unknown, unknown>) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* statement(sql)
  }).pipe(Effect.provide(adminLayer(url)), Effect.orDie)

const layerDatabaseAndServer = (url: string, name = databaseName, overrides: Partial<ServerSettings> = {}) => {
  const target = new URL(url)
  target.pathname = `/${name}`
  return Layer.unwrap(Effect.gen(function*() {
    yield* Effect.acquireRelease(
      onServer(url, (sql) => sql`CREATE DATABASE ${sql(name)}`),
      () => onServer(url, (sql) => sql`DROP DATABASE IF EXISTS ${sql(name)} WITH (FORCE)`)
    )
    return layerTestServer({ databaseUrl: Option.some(Redacted.make(target.toString())), databasePoolSize: 4, ...overrides })
  }))
}

if (serverUrl !== undefined) {
  publishingHttpSuite("PostgreSQL", layerDatabaseAndServer(serverUrl, `${databaseName}_publishing`))
  editingHttpSuite("PostgreSQL", layerDatabaseAndServer(serverUrl, `${databaseName}_editing`, { adminTokens: editingTokens }))
  learningHttpSuite("PostgreSQL", layerDatabaseAndServer(serverUrl, `${databaseName}_learning`))
  coursePreviewHttpSuite("PostgreSQL", layerDatabaseAndServer(serverUrl, `${databaseName}_preview`))

  describe("standalone server over HTTP (PostgreSQL)", () => {
    layer(layerDatabaseAndServer(serverUrl), { timeout: 60_000 })((it) => {
      it.effect("creates, pages and reads courses on PostgreSQL", () =>
        Effect.gen(function*() {
          const created = yield* Effect.forEach(
            Array.from({ length: 20 }, () => "Same Title"),
            (title) => call("/courses", { method: "POST", admin: true, json: { title, content_html: "<p>x</p>" } }),
            { concurrency: "unbounded" }
          )
          assert.deepStrictEqual(created.map((reply) => reply.status), Array.from({ length: 20 }, () => 201))
          assert.strictEqual(new Set(created.map((reply) => reply.body.slug)).size, 20)
          const page = yield* call("/courses?limit=5")
          assert.strictEqual(page.body.length, 5)
          assert.match(page.headers.get("link") ?? "", /^<\/courses\?cursor=\d+&limit=5>; rel="next"$/)
        }))

      it.effect("a lost database answers 503 problems, and service resumes when it is back", () =>
        Effect.gen(function*() {
          // Cut every connection of the server under test, as a database restart would.
          const cut = onServer(serverUrl, (sql) =>
            sql`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = ${databaseName}`)
          yield* cut
          // Make new connections fail too until we allow them again.
          yield* onServer(serverUrl, (sql) => sql`ALTER DATABASE ${sql(databaseName)} WITH ALLOW_CONNECTIONS false`)
          yield* cut
          const down = yield* call("/courses")
          assert.strictEqual(down.status, 503)
          assert.strictEqual(down.headers.get("content-type"), "application/problem+json")
          assert.strictEqual(down.body.title, "Service Unavailable")
          assert.strictEqual(down.headers.get("retry-after"), "2")
          assert.notInclude(down.text, "terminat")
          const ready = yield* call("/health/ready")
          assert.strictEqual(ready.status, 503)
          assert.strictEqual(ready.body.checks[0].status, "down")
          yield* onServer(serverUrl, (sql) => sql`ALTER DATABASE ${sql(databaseName)} WITH ALLOW_CONNECTIONS true`)
          const back = yield* call("/courses")
          assert.strictEqual(back.status, 200)
          assert.strictEqual((yield* call("/health/ready")).status, 200)
        }))
    })
  })

  describe("standalone server over HTTP (PostgreSQL): failures no retry cures", () => {
    const name = `${databaseName}_defects`
    const target = new URL(serverUrl)
    target.pathname = `/${name}`
    const onTarget = (statement: (sql: SqlClient.SqlClient) => Effect.Effect<unknown, unknown>) => onServer(target.toString(), statement)
    layer(layerDatabaseAndServer(serverUrl, name), { timeout: 60_000 })((it) => {
      it.effect("a stored row that does not decode is a 500 with the request's id, no Retry-After and nothing of the row in the body", () =>
        Effect.gen(function*() {
          const created = yield* call("/courses", { method: "POST", admin: true, json: { title: "Decodes", content_html: "<p>x</p>" } })
          assert.strictEqual(created.status, 201)
          // A status this version does not know (as a newer version might have written), past the API and its check.
          yield* onTarget((sql) => sql`ALTER TABLE coursekit.courses DROP CONSTRAINT courses_status_check`)
          yield* onTarget((sql) => sql`UPDATE coursekit.courses SET status = 'archived' WHERE id = ${created.body.id}`)
          const read = yield* call(`/courses/${created.body.id}`, { admin: true })
          assert.strictEqual(read.status, 500)
          assert.strictEqual(read.headers.get("content-type"), "application/problem+json")
          assert.strictEqual(read.body.title, "Internal Server Error")
          assert.match(read.headers.get("x-request-id") ?? "", /^[A-Za-z0-9-]{8,}$/)
          assert.isNull(read.headers.get("retry-after"))
          assert.deepStrictEqual(read.body, {
            type: "about:blank",
            title: "Internal Server Error",
            status: 500,
            detail: "An unexpected error occurred. It has been logged."
          })
          // The list reads the same row: a 500 too, not "try again shortly".
          assert.strictEqual((yield* call("/courses", { admin: true })).status, 500)
          yield* onTarget((sql) => sql`UPDATE coursekit.courses SET status = 'published' WHERE id = ${created.body.id}`)
          assert.strictEqual((yield* call(`/courses/${created.body.id}`, { admin: true })).status, 200)
        }))

      it.effect("a constraint the code does not expect is a 500 with nothing written; an unreachable database stays a 503", () =>
        Effect.gen(function*() {
          yield* onTarget((sql) => sql`ALTER TABLE coursekit.courses ADD CONSTRAINT test_unexpected CHECK (title <> 'Refused by a check')`)
          const before = (yield* call("/courses?limit=100", { admin: true })).body.length
          const refused = yield* call("/courses", { method: "POST", admin: true, json: { title: "Refused by a check", content_html: "<p>x</p>" } })
          assert.strictEqual(refused.status, 500)
          assert.isNull(refused.headers.get("retry-after"))
          assert.notInclude(refused.text, "test_unexpected")
          assert.strictEqual((yield* call("/courses?limit=100", { admin: true })).body.length, before)
          yield* onTarget((sql) => sql`ALTER TABLE coursekit.courses DROP CONSTRAINT test_unexpected`)
          // The same database refusing connections: a retry may cure that, so a 503 with Retry-After.
          yield* onServer(serverUrl, (sql) => sql`ALTER DATABASE ${sql(name)} WITH ALLOW_CONNECTIONS false`)
          yield* onServer(serverUrl, (sql) => sql`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = ${name}`)
          const down = yield* call("/courses", { method: "POST", admin: true, json: { title: "Later", content_html: "<p>x</p>" } })
          yield* onServer(serverUrl, (sql) => sql`ALTER DATABASE ${sql(name)} WITH ALLOW_CONNECTIONS true`)
          assert.strictEqual(down.status, 503)
          assert.strictEqual(down.headers.get("retry-after"), "2")
          const created = yield* call("/courses", { method: "POST", admin: true, json: { title: "Later", content_html: "<p>x</p>" } })
          assert.strictEqual(created.status, 201)
        }))
    })
  })

  // Two instances of the service on one database: each caches list responses, and a
  // write on either (or by anyone else) must reach the other's cache.
  class Instances extends Context.Service<Instances, { readonly a: string; readonly b: string }>()("test/Instances") {}
  const clusterDatabase = `${databaseName}_cluster`
  const layerCluster = Layer.unwrap(Effect.gen(function*() {
    yield* Effect.acquireRelease(
      onServer(serverUrl, (sql) => sql`CREATE DATABASE ${sql(clusterDatabase)}`),
      () => onServer(serverUrl, (sql) => sql`DROP DATABASE IF EXISTS ${sql(clusterDatabase)} WITH (FORCE)`)
    )
    const target = new URL(serverUrl)
    target.pathname = `/${clusterDatabase}`
    const settings = testSettings({ databaseUrl: Option.some(Redacted.make(target.toString())), databasePoolSize: 4 })
    const a = yield* Layer.build(StandaloneServer.layerFrom(settings)).pipe(Effect.flatMap((context) => Effect.provide(urlOf, context)))
    const b = yield* Layer.build(StandaloneServer.layerFrom({ ...settings, dataDir: `${settings.dataDir}-b` })).pipe(
      Effect.flatMap((context) => Effect.provide(urlOf, context))
    )
    return Layer.succeed(Instances, Instances.of({ a, b }))
  }))
  const onCluster = (statement: (sql: SqlClient.SqlClient) => Effect.Effect<unknown, unknown>) => {
    const target = new URL(serverUrl)
    target.pathname = `/${clusterDatabase}`
    return onServer(target.toString(), statement)
  }
  const titlesAt = (url: string, id: number) =>
    callAt(url, `/courses?cursor=${id}&limit=5`).pipe(Effect.map((reply) => reply.body.map((item: any) => item.title)))
  let probes = 0
  /**
   * Whether `url` answers the list from its cache: a change made with the version
   * trigger switched off is invisible to the cache, so only a cached page still shows
   * the old title. The trigger is switched back on and the version bumped afterwards.
   */
  const servesFromCache = (url: string, id: number) =>
    Effect.gen(function*() {
      const before = (yield* titlesAt(url, id))[0]
      const silent = `silent change ${++probes}`
      yield* onCluster((sql) => sql`ALTER TABLE coursekit.courses DISABLE TRIGGER courses_update_bumps_catalogue_version`)
      yield* onCluster((sql) => sql`UPDATE coursekit.courses SET title = ${silent} WHERE id = ${id}`)
      yield* onCluster((sql) => sql`ALTER TABLE coursekit.courses ENABLE TRIGGER courses_update_bumps_catalogue_version`)
      const after = (yield* titlesAt(url, id))[0]
      yield* onCluster((sql) => sql`UPDATE coursekit.coursekit_catalogue_version SET version = version + 1`)
      return { cached: after === before && after !== silent, silent }
    })

  describe("several instances on one PostgreSQL keep their list caches correct", () => {
    layer(layerCluster, { timeout: 60_000, excludeTestServices: true })((it) => {
      it.effect("a write on one instance is in the other's very next list response", () =>
        Effect.gen(function*() {
          const { a, b } = yield* Instances
          const created = yield* callAt(a, "/courses", { method: "POST", admin: true, json: { title: "From A", content_html: "" } })
          const id = created.body.id
          // B answers this page from its cache…
          const probe = yield* servesFromCache(b, id)
          assert.isTrue(probe.cached)
          // …and once the version moved, the change made behind its back shows at once.
          assert.deepStrictEqual(yield* titlesAt(b, id), [probe.silent])
          for (let round = 0; round < 20; round++) {
            yield* titlesAt(b, id) // B's cache holds the current page
            const title = `Renamed on A ${round}`
            yield* callAt(a, `/courses/${id}`, { method: "PATCH", admin: true, json: { title } })
            assert.deepStrictEqual(yield* titlesAt(b, id), [title])
          }
          yield* callAt(a, "/courses", { method: "POST", admin: true, json: { title: "Second from A", content_html: "" } })
          assert.deepStrictEqual(yield* titlesAt(b, id), ["Renamed on A 19", "Second from A"])
          // A plain SQL change by another client reaches both at once.
          yield* onCluster((sql) => sql`UPDATE coursekit.courses SET title = 'By SQL' WHERE id = ${id}`)
          assert.strictEqual((yield* titlesAt(a, id))[0], "By SQL")
          assert.strictEqual((yield* titlesAt(b, id))[0], "By SQL")
        }))

      it.effect("list responses carry an ETag; If-None-Match answers 304 until the list changes", () =>
        Effect.gen(function*() {
          const { a, b } = yield* Instances
          const first = yield* callAt(a, "/courses?limit=3")
          const etag = first.headers.get("etag")
          // The version (an opaque token), then the page.
          assert.match(etag ?? "", /^"[0-9a-f]{32}\.\d+\.\d+"$/)
          assert.strictEqual(first.headers.get("cache-control"), "no-cache")
          const again = yield* callAt(a, "/courses?limit=3", { headers: { "if-none-match": etag! } })
          assert.strictEqual(again.status, 304)
          assert.strictEqual(again.text, "")
          // The same page has the same ETag on every instance.
          assert.strictEqual((yield* callAt(b, "/courses?limit=3")).headers.get("etag"), etag)
          const oldest = first.body[0].id
          yield* callAt(b, `/courses/${oldest}`, { method: "PATCH", admin: true, json: { title: "Changed" } })
          const changed = yield* callAt(a, "/courses?limit=3", { headers: { "if-none-match": etag! } })
          assert.strictEqual(changed.status, 200)
          assert.notStrictEqual(changed.headers.get("etag"), etag)
          assert.strictEqual(changed.body[0].title, "Changed")
        }))

      it.effect("the public's ETag does not count unpublished work: no counter in it, and the database's secret salt in its hash", () =>
        Effect.gen(function*() {
          const { a } = yield* Instances
          const counter = Effect.gen(function*() {
            let read = ""
            yield* onCluster((sql) =>
              Effect.map(sql<{ version: string }>`SELECT version::text AS version FROM coursekit.coursekit_catalogue_version`, (rows) => {
                read = rows[0]!.version
              }))
            return read
          })
          const publicEtag = Effect.map(callAt(a, "/courses?limit=1"), (reply) => reply.headers.get("etag")!)
          const seen: Array<{ readonly counter: string; readonly etag: string }> = []
          const observe = Effect.gen(function*() {
            seen.push({ counter: yield* counter, etag: yield* publicEtag })
          })
          yield* observe
          // An admin's draft: created, edited, deleted. The public never sees it.
          const draft = yield* callAt(a, "/courses", { method: "POST", admin: true, json: { title: "Unannounced", content_html: "", status: "draft" } })
          assert.strictEqual(draft.status, 201, draft.text)
          yield* observe
          yield* callAt(a, `/courses/${draft.body.id}`, { method: "PATCH", admin: true, json: { title: "Still unannounced" } })
          yield* observe
          yield* callAt(a, `/courses/${draft.body.id}`, { method: "DELETE", admin: true })
          yield* observe
          // Each write moved the counter by one…
          assert.deepStrictEqual(seen.map((entry) => BigInt(entry.counter) - BigInt(seen[0]!.counter)), [0n, 1n, 2n, 3n])
          for (const { counter, etag } of seen) {
            // …yet the ETag is an opaque token and the page: no decimal version in it.
            assert.match(etag, /^"[0-9a-f]{32}\.0\.1"$/)
            assert.notStrictEqual(etag.slice(1, 33), counter)
          }
          // It still changes with every change (the page could have), and still answers 304.
          assert.strictEqual(new Set(seen.map((entry) => entry.etag)).size, 4)
          const latest = seen.at(-1)!.etag
          assert.strictEqual((yield* callAt(a, "/courses?limit=1", { headers: { "if-none-match": latest } })).status, 304)
          assert.strictEqual((yield* callAt(a, "/courses?limit=1", { headers: { "if-none-match": seen[0]!.etag } })).status, 200)
          // Not computable from the counter: the same counter under another salt is another ETag.
          yield* onCluster((sql) => sql`UPDATE coursekit.coursekit_catalogue_version SET release_salt = gen_random_uuid()::text`)
          assert.strictEqual(yield* counter, seen.at(-1)!.counter)
          const resalted = yield* publicEtag
          assert.match(resalted, /^"[0-9a-f]{32}\.0\.1"$/)
          assert.notStrictEqual(resalted, latest)
        }))

      it.effect("a scheduled course is in every instance's very next list response once its publish_at passes", () =>
        Effect.gen(function*() {
          const { a, b } = yield* Instances
          const id = (yield* callAt(a, "/courses", { method: "POST", admin: true, json: { title: "Released", content_html: "" } })).body.id
          // 5 s ahead: the reads "before" must all happen before it, on a loaded machine too.
          const opensAt = Date.now() + 5_000
          const soon = new Date(opensAt).toISOString()
          yield* callAt(a, "/courses", { method: "POST", admin: true, json: { title: "Scheduled", content_html: "", publish_at: soon } })
          // Both instances answer this page from their caches…
          for (const url of [a, b]) assert.isTrue((yield* servesFromCache(url, id)).cached)
          yield* onCluster((sql) => sql`UPDATE coursekit.courses SET title = 'Released' WHERE id = ${id}`)
          // …which now hold it without the scheduled course…
          for (const url of [a, b]) assert.deepStrictEqual(yield* titlesAt(url, id), ["Released"])
          // …and show it from the instant on, with no write anywhere.
          yield* Effect.sleep(Duration.millis(Math.max(0, opensAt - Date.now()) + 300))
          for (const url of [a, b]) assert.deepStrictEqual(yield* titlesAt(url, id), ["Released", "Scheduled"])
        }))

      it.effect("when the database drops every connection, no stale list is served", () =>
        Effect.gen(function*() {
          const { a } = yield* Instances
          const id = (yield* callAt(a, "/courses", { method: "POST", admin: true, json: { title: "Dropped", content_html: "" } })).body.id
          yield* titlesAt(a, id)
          yield* onCluster((sql) => sql`
            SELECT pg_terminate_backend(pid) FROM pg_stat_activity
            WHERE datname = current_database() AND pid <> pg_backend_pid()`)
          yield* onCluster((sql) => sql`UPDATE coursekit.courses SET title = 'Changed while cut off' WHERE id = ${id}`)
          // Until the pool reconnects the answer is a 503 problem, never the old page.
          for (let attempt = 0;; attempt++) {
            const reply = yield* callAt(a, `/courses?cursor=${id}&limit=5`)
            if (reply.status === 200) {
              assert.strictEqual(reply.body[0].title, "Changed while cut off")
              break
            }
            assert.strictEqual(reply.status, 503)
            assert.isBelow(attempt, 300)
            yield* Effect.sleep(Duration.millis(20))
          }
        }))
    })
  })
} else if (required) {
  describe("standalone server over HTTP (PostgreSQL)", () => {
    it("runs in CI", () => {
      expect.fail("TEST_DATABASE_URL is not set: CI must run the PostgreSQL suite")
    })
  })
}
