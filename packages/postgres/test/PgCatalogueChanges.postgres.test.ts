import { Catalogue, type CourseId, type CoursePage, FileUrl } from "@coursekit/core"
import { PgClient } from "@effect/sql-pg"
import { assert, describe, expect, it, layer } from "@effect/vitest"
import { Context, Duration, Effect, Layer, Redacted, Schedule } from "effect"
import { SqlClient } from "effect/sql"
import * as PgCatalogueChanges from "../src/PgCatalogueChanges.ts"
import * as PgCourseRepo from "../src/PgCourseRepo.ts"
import * as PgDatabase from "../src/PgDatabase.ts"
import { postgresRequired, testDatabaseUrl } from "./TestPostgres.ts"

// Two instances of the service on one database, each with its own pool and listener.
class InstanceA extends Context.Service<InstanceA, Catalogue["Service"]>()("test/InstanceA") {}
class InstanceB extends Context.Service<InstanceB, Catalogue["Service"]>()("test/InstanceB") {}
class Admin extends Context.Service<Admin, SqlClient.SqlClient>()("test/Admin") {}

const database = `coursekit_notify_${process.pid}_${Math.random().toString(36).slice(2, 8)}`

const layerInstance = <I>(tag: Context.Key<I, Catalogue["Service"]>, url: string) =>
  Layer.effect(
    tag,
    Effect.gen(function*() {
      return yield* Catalogue
    })
  ).pipe(
    Layer.provide(Catalogue.layerNoDeps),
    Layer.provide([PgCourseRepo.layer, FileUrl.layer("http://cdn"), PgCatalogueChanges.layer]),
    Layer.provide(PgDatabase.layer({ url: Redacted.make(url), maxConnections: 4 }))
  )

const layerInstances = (serverUrl: string) =>
  Layer.unwrap(Effect.gen(function*() {
    const server = Context.get(
      yield* Layer.build(PgClient.layer({ url: Redacted.make(serverUrl), maxConnections: 1 })),
      SqlClient.SqlClient
    )
    yield* Effect.acquireRelease(
      server`CREATE DATABASE ${server(database)}`,
      () => server`DROP DATABASE IF EXISTS ${server(database)} WITH (FORCE)`.pipe(Effect.orDie)
    )
    const url = new URL(serverUrl)
    url.pathname = `/${database}`
    const onDatabase = Context.get(
      yield* Layer.build(PgClient.layer({ url: Redacted.make(url.toString()), maxConnections: 1 })),
      SqlClient.SqlClient
    )
    return Layer.mergeAll(
      layerInstance(InstanceA, url.toString()),
      layerInstance(InstanceB, url.toString()),
      Layer.succeed(Admin, onDatabase)
    )
  }))

const titles = (page: CoursePage) => page.items.map((item) => item.title)

/** Reads until `holds` (a NOTIFY arrives shortly after its commit), every 20 ms, ~3 s at most. */
const eventually = <A, E, R>(read: Effect.Effect<A, E, R>, holds: (value: A) => boolean, times = 150) =>
  read.pipe(
    Effect.filterOrFail(holds, (value) => new Error(`still ${JSON.stringify(value)}`)),
    Effect.retry({ schedule: Schedule.spaced(Duration.millis(20)), times })
  )

/**
 * Whether `instance` serves list pages from its cache: a change is made with the notify
 * trigger switched off, so only a cached page can still show the old title.
 */
let probes = 0
const servesFromCache = (instance: Catalogue["Service"], admin: SqlClient.SqlClient, id: CourseId) =>
  Effect.gen(function*() {
    const before = titles(yield* instance.list({ cursor: id, limit: 1 }))[0]
    const silent = `silent change ${++probes}`
    yield* admin`ALTER TABLE courses DISABLE TRIGGER courses_notify_catalogue`
    yield* admin`UPDATE courses SET title = ${silent} WHERE id = ${id}`
    yield* admin`ALTER TABLE courses ENABLE TRIGGER courses_notify_catalogue`
    const after = titles(yield* instance.list({ cursor: id, limit: 1 }))[0]
    return after === before && after !== silent
  })

const serverUrl = testDatabaseUrl
if (serverUrl !== undefined) {
  describe("PgCatalogueChanges: list caches of several instances stay correct", () => {
    // Real time: the listener reconnects on a schedule, and the tests wait for NOTIFYs.
    layer(layerInstances(serverUrl), { timeout: 60_000, excludeTestServices: true })((it) => {
      it.effect("a write on one instance reaches the other's cached pages", () =>
        Effect.gen(function*() {
          const a = yield* InstanceA
          const b = yield* InstanceB
          const admin = yield* Admin
          const first = yield* a.create({ title: "From A", content_html: "" })
          // Instance B serves this page from its cache…
          assert.isTrue(yield* eventually(servesFromCache(b, admin, first.id), (cached) => cached))
          yield* admin`NOTIFY coursekit_catalogue`
          const pageOnB = b.list({ cursor: first.id, limit: 10 }).pipe(Effect.map(titles))
          yield* eventually(pageOnB, (seen) => seen.length === 1 && seen[0]!.startsWith("silent"))
          // …instance A writes; B sees it once the commit's NOTIFY arrives.
          yield* a.create({ title: "Also from A", content_html: "" })
          yield* eventually(pageOnB, (seen) => seen.length === 2)
          assert.strictEqual((yield* pageOnB)[1], "Also from A")
          yield* a.update(first.id, { title: "Renamed on A" })
          yield* eventually(pageOnB, (seen) => seen[0] === "Renamed on A")
        }))

      it.effect("a change made outside Coursekit (plain SQL) reaches every cache", () =>
        Effect.gen(function*() {
          const a = yield* InstanceA
          const b = yield* InstanceB
          const admin = yield* Admin
          const course = yield* a.create({ title: "Before SQL", content_html: "" })
          const pageOnA = a.list({ cursor: course.id, limit: 5 }).pipe(Effect.map(titles))
          const pageOnB = b.list({ cursor: course.id, limit: 5 }).pipe(Effect.map(titles))
          assert.deepStrictEqual(yield* pageOnA, ["Before SQL"])
          assert.deepStrictEqual(yield* pageOnB, ["Before SQL"])
          yield* admin`UPDATE courses SET title = 'After SQL' WHERE id = ${course.id}`
          yield* eventually(pageOnA, (seen) => seen[0] === "After SQL")
          yield* eventually(pageOnB, (seen) => seen[0] === "After SQL")
        }))

      it.effect("when the database drops every connection, no stale page is served, and caching resumes", () =>
        Effect.gen(function*() {
          const a = yield* InstanceA
          const admin = yield* Admin
          const course = yield* a.create({ title: "Listener test", content_html: "" })
          const pageOnA = a.list({ cursor: course.id, limit: 5 }).pipe(Effect.map(titles))
          assert.isTrue(yield* eventually(servesFromCache(a, admin, course.id), (cached) => cached))
          // Drop every connection of the instances (listeners included), as a database
          // restart would, then change a row while they cannot hear it.
          yield* admin`
            SELECT pg_terminate_backend(pid) FROM pg_stat_activity
            WHERE datname = current_database() AND pid <> pg_backend_pid()`
          yield* admin`UPDATE courses SET title = 'Changed while deaf' WHERE id = ${course.id}`
          yield* eventually(pageOnA.pipe(Effect.orElseSucceed(() => [])), (seen) => seen[0] === "Changed while deaf")
          // The listener comes back: pages are cached again, and invalidated again.
          assert.isTrue(yield* eventually(servesFromCache(a, admin, course.id), (cached) => cached, 300))
          yield* admin`UPDATE courses SET title = 'After reconnect' WHERE id = ${course.id}`
          yield* eventually(pageOnA, (seen) => seen[0] === "After reconnect")
        }))
    })
  })
} else if (postgresRequired) {
  describe("PgCatalogueChanges", () => {
    it("runs in CI", () => {
      expect.fail("TEST_DATABASE_URL is not set: CI must run the PostgreSQL suite")
    })
  })
}
