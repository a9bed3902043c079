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
import { DateTime, Duration, Effect, Layer } from "effect"
import { HttpServerResponse } from "effect/http"
import { TestClock } from "effect/testing"
import { CourseListCache, Unauthorized } from "../src/index.ts"

// The cache in front of a stand-in for the API that counts how often it is reached.
const setup = (options?: { maxEntries?: number; maxBytes?: number }) =>
  Effect.gen(function*() {
    const cache = yield* CourseListCache
    const repo = yield* CourseRepo
    let reached = 0
    const api = Effect.sync(() => {
      reached++
      return HttpServerResponse.text(`page ${reached}`, { contentType: "application/json" })
    })
    const get = (url: string, ifNoneMatch?: string, audience: Effect.Effect<"admin" | "public", Unauthorized> = Effect.succeed("public")) =>
      cache.around({ method: "GET", url, ifNoneMatch }, audience, api)
    const change = repo.insert({ ...publishedNow, title: "x", slugBase: `x-${Math.random()}`.replace(".", ""), content_html: "" })
    const schedule = (publishAt: DateTime.Utc) =>
      repo.insert({ status: "published", publish_at: publishAt, title: "later", slugBase: `later-${Math.random()}`.replace(".", ""), content_html: "" })
    return { get, change, schedule, reached: () => reached }
  }).pipe(Effect.provide(CourseListCache.layer(options).pipe(Layer.provideMerge(Courses.layerMemory()))))

/** What the catalogue's deletes need beside the course repository (in memory). */
const uploadPorts = Layer.mergeAll(UploadRepo.layerMemory, MediaRepo.layerMemory, LessonRepo.layerMemory, MediaUrls.layer()).pipe(
  Layer.provideMerge(ObjectStore.layerMemory)
)

const text = (response: HttpServerResponse.HttpServerResponse) =>
  response.body._tag === "Uint8Array" ? new TextDecoder().decode(response.body.body) : ""

describe("CourseListCache", () => {
  it.effect("serves a page again without the API until the catalogue changes", () =>
    Effect.gen(function*() {
      const { get, change, reached } = yield* setup()
      const first = yield* get("/courses?limit=5")
      assert.strictEqual(text(first), "page 1")
      assert.strictEqual(text(yield* get("/courses?limit=5")), "page 1")
      assert.strictEqual(reached(), 1)
      yield* change
      assert.strictEqual(text(yield* get("/courses?limit=5")), "page 2")
      assert.strictEqual(reached(), 2)
    }))

  it.effect("serves and keeps the public's pages only: an admin's request and a refused one always reach the API", () =>
    Effect.gen(function*() {
      const { get, reached } = yield* setup()
      const admin = Effect.succeed("admin" as const)
      const refused = Effect.fail(new Unauthorized({ detail: "bad token" }))
      yield* get("/courses?limit=5", undefined, admin)
      yield* get("/courses?limit=5", undefined, admin)
      assert.strictEqual(reached(), 2, "an admin's page is not kept")
      const first = yield* get("/courses?limit=5")
      assert.strictEqual(text(first), "page 3")
      assert.strictEqual(text(yield* get("/courses?limit=5", undefined, admin)), "page 4", "an admin is not served the public page")
      assert.strictEqual((yield* get("/courses?limit=5", first.headers.etag, admin)).status, 200, "nor a 304 for it")
      assert.strictEqual(text(yield* get("/courses?limit=5", undefined, refused)), "page 6")
      assert.strictEqual(text(yield* get("/courses?limit=5")), "page 3")
      assert.strictEqual(reached(), 6)
    }))

  it.effect("a response the API marks private (an admin's page) is neither kept nor given the public validators", () =>
    Effect.gen(function*() {
      const cache = yield* CourseListCache
      let reached = 0
      const admins = Effect.sync(() => {
        reached++
        return HttpServerResponse.text("drafts too", { contentType: "application/json", headers: { "cache-control": "private, no-store" } })
      })
      // The cache took the request for the public's, the API answered an admin.
      for (let i = 0; i < 2; i++) {
        const response = yield* cache.around({ method: "GET", url: "/courses", ifNoneMatch: undefined }, Effect.succeed("public"), admins)
        assert.strictEqual(response.headers["cache-control"], "private, no-store")
        assert.isUndefined(response.headers.etag)
      }
      assert.strictEqual(reached, 2)
    }).pipe(Effect.provide(CourseListCache.layer().pipe(Layer.provideMerge(Courses.layerMemory())))))

  it.effect("a status filter always reaches the API, whoever asks", () =>
    Effect.gen(function*() {
      const { get, reached } = yield* setup()
      yield* get("/courses?status=draft")
      yield* get("/courses?status=draft")
      assert.strictEqual(reached(), 2)
    }))

  it.effect("a scheduled course's publish_at passing is a new version: the next request reaches the API", () =>
    Effect.gen(function*() {
      const { get, reached, schedule } = yield* setup()
      yield* schedule(DateTime.add(yield* DateTime.now, { minutes: 10 }))
      const before = yield* get("/courses")
      yield* TestClock.adjust(Duration.minutes(9))
      assert.strictEqual(text(yield* get("/courses")), text(before))
      assert.strictEqual((yield* get("/courses", before.headers.etag)).status, 304)
      assert.strictEqual(reached(), 1)
      yield* TestClock.adjust(Duration.minutes(1))
      const after = yield* get("/courses", before.headers.etag)
      assert.strictEqual(after.status, 200)
      assert.notStrictEqual(after.headers.etag, before.headers.etag)
      assert.strictEqual(reached(), 2)
    }))

  it.effect("keys on cursor and limit only: other parameters and their order share an entry", () =>
    Effect.gen(function*() {
      const { get, reached } = yield* setup()
      yield* get("/courses?cursor=3&limit=5")
      yield* get("/courses?limit=5&cursor=3&utm_source=x")
      yield* get("/courses?limit=5&cursor=3&junk=1")
      assert.strictEqual(reached(), 1)
      yield* get("/courses?cursor=4&limit=5")
      yield* get("/courses")
      yield* get("/courses?limit=10")
      assert.strictEqual(reached(), 3)
    }))

  it.effect("invalid queries and other routes always reach the API", () =>
    Effect.gen(function*() {
      const { get, reached } = yield* setup()
      for (const url of ["/courses?limit=0", "/courses?limit=51", "/courses?cursor=abc", "/courses?cursor=1&cursor=2", "/courses/1"]) {
        yield* get(url)
        yield* get(url)
      }
      assert.strictEqual(reached(), 10)
    }))

  it.effect("If-None-Match with the current ETag is a 304 without the API", () =>
    Effect.gen(function*() {
      const { get, change, reached } = yield* setup()
      const first = yield* get("/courses?limit=2")
      const etag = first.headers.etag!
      assert.strictEqual(first.headers["cache-control"], "no-cache")
      const revalidated = yield* get("/courses?limit=2", etag)
      assert.strictEqual(revalidated.status, 304)
      assert.strictEqual(revalidated.headers.etag, etag)
      assert.strictEqual((yield* get("/courses?limit=2", `"other", W/${etag}`)).status, 304)
      assert.strictEqual(reached(), 1)
      yield* change
      const fresh = yield* get("/courses?limit=2", etag)
      assert.strictEqual(fresh.status, 200)
      assert.notStrictEqual(fresh.headers.etag, etag)
    }))

  it.effect("keeps at most maxEntries pages and maxBytes bytes, oldest dropped first", () =>
    Effect.gen(function*() {
      const { get, reached } = yield* setup({ maxEntries: 2 })
      yield* get("/courses?cursor=1")
      yield* get("/courses?cursor=2")
      yield* get("/courses?cursor=3")
      yield* get("/courses?cursor=3")
      yield* get("/courses?cursor=2")
      assert.strictEqual(reached(), 3)
      yield* get("/courses?cursor=1")
      assert.strictEqual(reached(), 4)
      const small = yield* setup({ maxBytes: 10 })
      yield* small.get("/courses?cursor=1")
      yield* small.get("/courses?cursor=2")
      yield* small.get("/courses?cursor=1")
      assert.strictEqual(small.reached(), 3)
    }))

  it.effect("with maxEntries 0 nothing is kept but ETags still answer 304", () =>
    Effect.gen(function*() {
      const { get, reached } = yield* setup({ maxEntries: 0 })
      const first = yield* get("/courses")
      yield* get("/courses")
      assert.strictEqual(reached(), 2)
      assert.strictEqual((yield* get("/courses", first.headers.etag)).status, 304)
      assert.strictEqual(reached(), 2)
    }))

  it.effect("when the version cannot be read, answers the 503 problem without the API", () =>
    Effect.gen(function*() {
      const cache = yield* CourseListCache
      let reached = 0
      const api = Effect.sync(() => {
        reached++
        return HttpServerResponse.text("page", { contentType: "application/json" })
      })
      const response = yield* cache.around({ method: "GET", url: "/courses?limit=5", ifNoneMatch: undefined }, Effect.succeed("public"), api)
      assert.strictEqual(response.status, 503)
      assert.strictEqual(response.headers["content-type"], "application/problem+json")
      assert.deepStrictEqual(JSON.parse(text(response)), {
        type: "about:blank",
        title: "Service Unavailable",
        status: 503,
        detail: "The database did not complete read the catalogue version. Try again shortly."
      })
      assert.strictEqual(reached, 0)
    }).pipe(Effect.provide(CourseListCache.layer().pipe(
      Layer.provide(Courses.layerNoDeps.pipe(Layer.provide(Uploads.layerNoDeps()), Layer.provide(uploadPorts))),
      Layer.provide(Layer.effect(
        CourseRepo,
        Effect.map(CourseRepo, (repo) =>
          CourseRepo.of({
            ...repo,
            version: Effect.fail(new PersistenceError({ operation: "read the catalogue version", cause: new Error("no answer") }))
          }))
      ).pipe(Layer.provide(CourseRepo.layerMemory))),
      Layer.provide([FileUrl.layer("http://localhost/files"), HtmlSanitizer.layer])
    ))))
})
