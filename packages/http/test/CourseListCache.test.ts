import {
  Courses,
  CourseRepo,
  FileUrl,
  HtmlSanitizer,
  LessonRepo,
  MediaRepo,
  MediaUrls,
  ObjectStore,
  PersistenceError,
  publishedNow,
  UploadRepo,
  Uploads
} from "@coursekit/core"
import { assert, describe, it } from "@effect/vitest"
import { Context, DateTime, Deferred, Duration, Effect, Fiber, Layer } from "effect"
import { HttpServerResponse } from "effect/http"
import { TestClock } from "effect/testing"
import { CourseListCache, Unauthorized } from "../src/index.ts"

// The cache over an in-memory catalogue whose store counts its list and version reads,
// in front of a stand-in for the API that counts how often it is reached.
const setup = (options?: { maxEntries?: number; maxBytes?: number }) =>
  Effect.gen(function*() {
    const cache = yield* CourseListCache
    const repo = yield* CourseRepo
    const counts = yield* StoreReads
    let reached = 0
    const api = Effect.sync(() => {
      reached++
      return HttpServerResponse.text(`api ${reached}`, { contentType: "application/json" })
    })
    const get = (url: string, ifNoneMatch?: string, audience: Effect.Effect<"admin" | "public", Unauthorized> = Effect.succeed("public")) =>
      cache.around({ method: "GET", url, ifNoneMatch, prefix: "" }, audience, api)
    const change = repo.insert({ ...publishedNow, title: "x", slugBase: `x-${Math.random()}`.replace(".", ""), content_html: "" })
    const schedule = (publishAt: DateTime.Utc) =>
      repo.insert({ status: "published", publish_at: publishAt, title: "later", slugBase: `later-${Math.random()}`.replace(".", ""), content_html: "" })
    return { get, change, schedule, reached: () => reached, lists: () => counts.lists, versions: () => counts.versions }
  }).pipe(Effect.provide(CourseListCache.layer(options).pipe(Layer.provideMerge(catalogueOver(CourseRepo.layerMemory)))))

/** How often the store was asked for a page and for the version. */
class StoreReads extends Context.Service<StoreReads, { lists: number; versions: number }>()("test/StoreReads") {}

/** `CourseRepo` over `inner`, counting its reads into `StoreReads`, and `change` applied to it. */
const countingRepo = (inner: Layer.Layer<CourseRepo>, change: (repo: CourseRepo["Service"]) => Partial<CourseRepo["Service"]> = () => ({})) =>
  Layer.effect(
    CourseRepo,
    Effect.gen(function*() {
      const repo = yield* CourseRepo
      const counts = yield* StoreReads
      const changed = { ...repo, ...change(repo) }
      return CourseRepo.of({
        ...changed,
        list: (request) => Effect.suspend(() => (counts.lists++, changed.list(request))),
        version: Effect.suspend(() => (counts.versions++, changed.version))
      })
    })
  ).pipe(Layer.provide(inner))

/** What the catalogue's deletes need beside the course repository (in memory). */
const uploadPorts = Layer.mergeAll(UploadRepo.layerMemory, MediaRepo.layerMemory, LessonRepo.layerMemory, MediaUrls.layer()).pipe(
  Layer.provideMerge(ObjectStore.layerMemory)
)

/** The catalogue over `repo` (counted), with its `CourseRepo` and the `StoreReads` in the output. */
const catalogueOver = (repo: Layer.Layer<CourseRepo>, change?: (repo: CourseRepo["Service"]) => Partial<CourseRepo["Service"]>) =>
  Courses.layerNoDeps.pipe(
    Layer.provide(Uploads.layerNoDeps()),
    Layer.provide(uploadPorts),
    Layer.provide([FileUrl.layer("http://localhost/files"), HtmlSanitizer.layer]),
    Layer.provideMerge(countingRepo(repo, change)),
    Layer.provideMerge(Layer.sync(StoreReads, () => ({ lists: 0, versions: 0 })))
  )

const text = (response: HttpServerResponse.HttpServerResponse) =>
  response.body._tag === "Uint8Array" ? new TextDecoder().decode(response.body.body) : ""

const titles = (response: HttpServerResponse.HttpServerResponse): Array<string> =>
  JSON.parse(text(response)).map((item: { title: string }) => item.title)

describe("CourseListCache", () => {
  it.effect("a page not in the cache is read with its version in one store call; again, it is served after one version read", () =>
    Effect.gen(function*() {
      const { get, lists, reached, versions } = yield* setup()
      const first = yield* get("/courses?limit=5")
      assert.strictEqual(first.status, 200)
      assert.deepStrictEqual([lists(), versions()], [1, 0])
      const again = yield* get("/courses?limit=5")
      assert.strictEqual(text(again), text(first))
      assert.deepStrictEqual(again.headers, first.headers)
      assert.deepStrictEqual([lists(), versions()], [1, 1])
      assert.strictEqual(reached(), 0)
    }))

  it.effect("serves a page again without reading it until the catalogue changes, then the changed page", () =>
    Effect.gen(function*() {
      const { change, get, lists } = yield* setup()
      const first = yield* get("/courses?limit=5")
      assert.deepStrictEqual(titles(first), [])
      yield* get("/courses?limit=5")
      assert.strictEqual(lists(), 1)
      yield* change
      const changed = yield* get("/courses?limit=5")
      assert.deepStrictEqual(titles(changed), ["x"])
      assert.notStrictEqual(changed.headers.etag, first.headers.etag)
      assert.strictEqual(lists(), 2)
    }))

  it.effect("serves and keeps the public's pages only: an admin's request and a refused one always reach the API", () =>
    Effect.gen(function*() {
      const { get, lists, reached } = yield* setup()
      const admin = Effect.succeed("admin" as const)
      const refused = Effect.fail(new Unauthorized({ detail: "bad token" }))
      assert.strictEqual(text(yield* get("/courses?limit=5", undefined, admin)), "api 1")
      assert.strictEqual(text(yield* get("/courses?limit=5", undefined, admin)), "api 2", "an admin's page is not kept")
      const first = yield* get("/courses?limit=5")
      assert.strictEqual(text(first), "[]")
      assert.strictEqual(text(yield* get("/courses?limit=5", undefined, admin)), "api 3", "an admin is not served the public page")
      assert.strictEqual((yield* get("/courses?limit=5", first.headers.etag, admin)).status, 200, "nor a 304 for it")
      assert.strictEqual(text(yield* get("/courses?limit=5", undefined, refused)), "api 5")
      assert.strictEqual(text(yield* get("/courses?limit=5")), "[]")
      assert.deepStrictEqual([reached(), lists()], [5, 1])
    }))

  it.effect("a public page holds only what the public sees now: no drafts, no scheduled courses", () =>
    Effect.gen(function*() {
      const { get, schedule } = yield* setup()
      const repo = yield* CourseRepo
      yield* repo.insert({ status: "draft", publish_at: null, title: "draft", slugBase: "draft", content_html: "" })
      yield* schedule(DateTime.add(yield* DateTime.now, { days: 1 }))
      yield* repo.insert({ ...publishedNow, title: "shown", slugBase: "shown", content_html: "" })
      assert.deepStrictEqual(titles(yield* get("/courses")), ["shown"])
    }).pipe(Effect.provide(CourseListCache.layer().pipe(Layer.provideMerge(catalogueOver(CourseRepo.layerMemory))))))

  it.effect("a status filter always reaches the API, whoever asks", () =>
    Effect.gen(function*() {
      const { get, lists, reached } = yield* setup()
      yield* get("/courses?status=draft")
      yield* get("/courses?status=draft")
      assert.deepStrictEqual([reached(), lists()], [2, 0])
    }))

  it.effect("a scheduled course's publish_at passing is a new version: the next request reads the page again", () =>
    Effect.gen(function*() {
      const { get, lists, schedule } = yield* setup()
      yield* schedule(DateTime.add(yield* DateTime.now, { minutes: 10 }))
      const before = yield* get("/courses")
      assert.deepStrictEqual(titles(before), [])
      yield* TestClock.adjust(Duration.minutes(9))
      assert.strictEqual(text(yield* get("/courses")), text(before))
      assert.strictEqual((yield* get("/courses", before.headers.etag)).status, 304)
      assert.strictEqual(lists(), 1)
      yield* TestClock.adjust(Duration.minutes(1))
      const after = yield* get("/courses", before.headers.etag)
      assert.strictEqual(after.status, 200)
      assert.deepStrictEqual(titles(after), ["later"])
      assert.notStrictEqual(after.headers.etag, before.headers.etag)
      assert.strictEqual(lists(), 2)
    }))

  it.effect("keys on cursor and limit only: other parameters and their order share an entry", () =>
    Effect.gen(function*() {
      const { get, lists } = yield* setup()
      yield* get("/courses?cursor=3&limit=5")
      yield* get("/courses?limit=5&cursor=3&utm_source=x")
      yield* get("/courses?limit=5&cursor=3&junk=1")
      assert.strictEqual(lists(), 1)
      yield* get("/courses?cursor=4&limit=5")
      yield* get("/courses")
      yield* get("/courses?limit=10")
      assert.strictEqual(lists(), 3)
    }))

  it.effect("pages carry the API's Link header, under the mount prefix", () =>
    Effect.gen(function*() {
      const cache = yield* CourseListCache
      const repo = yield* CourseRepo
      for (const title of ["a", "b", "c"]) yield* repo.insert({ ...publishedNow, title, slugBase: title, content_html: "" })
      const never = Effect.die("the API is not asked for a public page")
      const page = yield* cache.around({ method: "GET", url: "/courses?limit=2&utm=1", ifNoneMatch: undefined, prefix: "/api/ck" }, Effect.succeed("public"), never)
      assert.strictEqual(page.headers.link, `</api/ck/courses?cursor=3&limit=2>; rel="next"`)
      assert.strictEqual(page.headers["content-type"], "application/json")
      const last = yield* cache.around({ method: "GET", url: "/courses?cursor=3&limit=2", ifNoneMatch: undefined, prefix: "/api/ck" }, Effect.succeed("public"), never)
      assert.isUndefined(last.headers.link)
      assert.deepStrictEqual(titles(last), ["c"])
    }).pipe(Effect.provide(CourseListCache.layer().pipe(Layer.provideMerge(catalogueOver(CourseRepo.layerMemory))))))

  it.effect("invalid queries and other routes always reach the API", () =>
    Effect.gen(function*() {
      const { get, lists, reached } = yield* setup()
      for (const url of ["/courses?limit=0", "/courses?limit=51", "/courses?cursor=abc", "/courses?cursor=1&cursor=2", "/courses/1"]) {
        yield* get(url)
        yield* get(url)
      }
      assert.deepStrictEqual([reached(), lists()], [10, 0])
    }))

  it.effect("If-None-Match with the current ETag is a 304 without reading the page", () =>
    Effect.gen(function*() {
      const { change, get, lists } = yield* setup()
      const first = yield* get("/courses?limit=2")
      const etag = first.headers.etag!
      assert.strictEqual(first.headers["cache-control"], "no-cache")
      const revalidated = yield* get("/courses?limit=2", etag)
      assert.strictEqual(revalidated.status, 304)
      assert.strictEqual(revalidated.headers.etag, etag)
      assert.strictEqual((yield* get("/courses?limit=2", `"other", W/${etag}`)).status, 304)
      assert.strictEqual(lists(), 1)
      yield* change
      const fresh = yield* get("/courses?limit=2", etag)
      assert.strictEqual(fresh.status, 200)
      assert.notStrictEqual(fresh.headers.etag, etag)
    }))

  it.effect("keeps at most maxEntries pages and maxBytes bytes, oldest dropped first", () =>
    Effect.gen(function*() {
      const { get, lists } = yield* setup({ maxEntries: 2 })
      yield* get("/courses?cursor=1")
      yield* get("/courses?cursor=2")
      yield* get("/courses?cursor=3")
      yield* get("/courses?cursor=3")
      yield* get("/courses?cursor=2")
      assert.strictEqual(lists(), 3)
      yield* get("/courses?cursor=1")
      assert.strictEqual(lists(), 4)
      // An empty page is 2 bytes ("[]"): 3 bytes hold one.
      const small = yield* setup({ maxBytes: 3 })
      yield* small.get("/courses?cursor=1")
      yield* small.get("/courses?cursor=2")
      yield* small.get("/courses?cursor=2")
      assert.strictEqual(small.lists(), 2)
      yield* small.get("/courses?cursor=1")
      assert.strictEqual(small.lists(), 3)
    }))

  it.effect("with maxEntries 0 nothing is kept, each page is one store call, and ETags still answer 304", () =>
    Effect.gen(function*() {
      const { get, lists, versions } = yield* setup({ maxEntries: 0 })
      const first = yield* get("/courses")
      const second = yield* get("/courses")
      assert.strictEqual(text(second), text(first))
      assert.strictEqual(second.headers.etag, first.headers.etag)
      assert.deepStrictEqual([lists(), versions()], [2, 0])
      assert.strictEqual((yield* get("/courses", first.headers.etag)).status, 304)
      assert.strictEqual(lists(), 2)
    }))

  it.effect("two misses of one page both keep it without counting its bytes twice", () =>
    Effect.gen(function*() {
      const cache = yield* CourseListCache
      const counts = yield* StoreReads
      const get = (url: string) => cache.around({ method: "GET", url, ifNoneMatch: undefined, prefix: "" }, Effect.succeed("public"), Effect.die("not the API"))
      // Three reads of one page in flight at once: each keeps it.
      yield* Effect.all([get("/courses?cursor=1"), get("/courses?cursor=1"), get("/courses?cursor=1")], { concurrency: "unbounded" })
      assert.strictEqual(counts.lists, 3)
      // An empty page is 2 bytes: 5 hold two pages, and do when the first was counted once.
      yield* get("/courses?cursor=2")
      yield* get("/courses?cursor=1")
      yield* get("/courses?cursor=2")
      assert.strictEqual(counts.lists, 4, "both pages held")
    }).pipe(Effect.provide(CourseListCache.layer({ maxBytes: 5 }).pipe(Layer.provideMerge(catalogueOver(CourseRepo.layerMemory, (repo) => ({
      // The store answers on a later turn, so the reads overlap.
      list: (request) => Effect.flatMap(Effect.yieldNow, () => repo.list(request))
    })))))))

  it.effect("a read that began before the cache took a newer version neither takes its version back nor is kept", () => {
    const gate = Deferred.makeUnsafe<void>()
    let slow = true
    return Effect.gen(function*() {
      const cache = yield* CourseListCache
      const repo = yield* CourseRepo
      const counts = yield* StoreReads
      const get = (url: string) => cache.around({ method: "GET", url, ifNoneMatch: undefined, prefix: "" }, Effect.succeed("public"), Effect.die("not the API"))
      yield* repo.insert({ ...publishedNow, title: "early", slugBase: "early", content_html: "" })
      // This read takes its snapshot now and answers only once the gate opens.
      const late = yield* Effect.forkChild(get("/courses?cursor=1"))
      for (let i = 0; i < 5; i++) yield* Effect.yieldNow
      yield* repo.insert({ ...publishedNow, title: "late", slugBase: "late", content_html: "" })
      const newer = yield* get("/courses?cursor=2")
      assert.deepStrictEqual(titles(newer), ["late"])
      yield* Deferred.succeed(gate, undefined)
      const older = yield* Fiber.join(late)
      assert.deepStrictEqual(titles(older), ["early"], "the slow read answers what it read")
      // The newer page is still kept: the slow read did not take its older version back.
      assert.strictEqual(text(yield* get("/courses?cursor=2")), text(newer))
      assert.strictEqual(counts.lists, 2)
      // Nor was the older page kept.
      assert.deepStrictEqual(titles(yield* get("/courses?cursor=1")), ["early", "late"])
      assert.strictEqual(counts.lists, 3)
    }).pipe(Effect.provide(CourseListCache.layer().pipe(Layer.provideMerge(catalogueOver(CourseRepo.layerMemory, (repo) => ({
      list: (request) =>
        Effect.flatMap(repo.list(request), (rows) => {
          if (!slow) return Effect.succeed(rows)
          slow = false
          return Effect.as(Deferred.await(gate), rows)
        })
    }))))))
  })

  it.effect("after a change, a page read before any version read takes the new version and is kept", () =>
    Effect.gen(function*() {
      const { change, get, lists } = yield* setup()
      yield* get("/courses?cursor=1")
      yield* change
      // Not cached: read with the new version, which the cache takes from it.
      yield* get("/courses?cursor=2")
      yield* get("/courses?cursor=2")
      assert.strictEqual(lists(), 2)
    }))

  it.effect("a fragment in the request target is not read as part of the query", () =>
    Effect.gen(function*() {
      const cache = yield* CourseListCache
      const repo = yield* CourseRepo
      for (const title of ["a", "b", "c"]) yield* repo.insert({ ...publishedNow, title, slugBase: title, content_html: "" })
      const page = yield* cache.around({ method: "GET", url: "/courses?x=1#&limit=1", ifNoneMatch: undefined, prefix: "" }, Effect.succeed("public"), Effect.die("not the API"))
      assert.deepStrictEqual(titles(page), ["a", "b", "c"])
    }).pipe(Effect.provide(CourseListCache.layer().pipe(Layer.provideMerge(catalogueOver(CourseRepo.layerMemory))))))

  const failing = (operation: string) => new PersistenceError({ operation, cause: new Error("no answer") })
  const unavailable = (operation: string) => ({
    type: "about:blank",
    title: "Service Unavailable",
    status: 503,
    detail: `The database did not complete ${operation}. Try again shortly.`
  })

  it.effect("when the store cannot be read, answers the 503 problem without the API", () =>
    Effect.gen(function*() {
      const cache = yield* CourseListCache
      let reached = 0
      const api = Effect.sync(() => {
        reached++
        return HttpServerResponse.text("page", { contentType: "application/json" })
      })
      const get = (ifNoneMatch: string | undefined) =>
        cache.around({ method: "GET", url: "/courses?limit=5", ifNoneMatch, prefix: "" }, Effect.succeed("public"), api)
      const unread = yield* get(undefined)
      assert.strictEqual(unread.status, 503)
      assert.strictEqual(unread.headers["content-type"], "application/problem+json")
      assert.deepStrictEqual(JSON.parse(text(unread)), unavailable("list courses"))
      assert.deepStrictEqual(JSON.parse(text(yield* get(`"1.0.5"`))), unavailable("read the catalogue version"))
      assert.strictEqual(reached, 0)
    }).pipe(Effect.provide(CourseListCache.layer().pipe(
      Layer.provide(catalogueOver(CourseRepo.layerMemory, () => ({
        list: () => Effect.fail(failing("list courses")),
        version: Effect.fail(failing("read the catalogue version"))
      })))
    ))))
})
