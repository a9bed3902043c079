import { assert, describe, it } from "@effect/vitest"
import { Context, Duration, Effect, Layer, Queue, Stream } from "effect"
import { TestClock } from "effect/testing"
import {
  Catalogue,
  CatalogueChanges,
  type CatalogueSignal,
  CourseRepo,
  FileUrl,
  listCacheMaxAge,
  PersistenceError
} from "../src/index.ts"

// A change feed the test drives by hand, standing in for another instance's NOTIFYs.
class Feed extends Context.Service<Feed, Queue.Queue<CatalogueSignal, PersistenceError>>()("test/Feed") {}

const layerFeed = Layer.effect(Feed, Queue.unbounded<CatalogueSignal, PersistenceError>())
const layerChanges = Layer.effect(
  CatalogueChanges,
  Effect.gen(function*() {
    const queue = yield* Feed
    return CatalogueChanges.of({ signals: Stream.fromQueue(queue) })
  })
)

const layerCatalogue = Catalogue.layerNoDeps.pipe(
  Layer.provideMerge(CourseRepo.layerMemory),
  Layer.provide([FileUrl.layer("http://cdn"), layerChanges]),
  Layer.provideMerge(layerFeed)
)

// Lets the feed-following fiber take what was offered.
const settle = Effect.yieldNow.pipe(Effect.repeat({ times: 20 }))

const titles = (page: { items: ReadonlyArray<{ title: string }> }) => page.items.map((item) => item.title)

/** A change made beside the catalogue, as another instance would make it. */
const externalInsert = (title: string) =>
  Effect.gen(function*() {
    const repo = yield* CourseRepo
    return yield* repo.insert({ title, slugBase: title.toLowerCase(), content_html: "" })
  })

describe("Catalogue list cache", () => {
  it.effect("does not cache until the feed is live", () =>
    Effect.gen(function*() {
      const catalogue = yield* Catalogue
      yield* catalogue.create({ title: "One", content_html: "" })
      assert.deepStrictEqual(titles(yield* catalogue.list({ cursor: undefined, limit: 10 })), ["One"])
      yield* externalInsert("Two")
      assert.deepStrictEqual(titles(yield* catalogue.list({ cursor: undefined, limit: 10 })), ["One", "Two"])
    }).pipe(Effect.provide(layerCatalogue)))

  it.effect("while live, serves cached pages until a change is signalled", () =>
    Effect.gen(function*() {
      const catalogue = yield* Catalogue
      const feed = yield* Feed
      yield* Queue.offer(feed, "live")
      yield* settle
      yield* catalogue.create({ title: "One", content_html: "" })
      assert.deepStrictEqual(titles(yield* catalogue.list({ cursor: undefined, limit: 10 })), ["One"])
      yield* externalInsert("Two")
      // Not yet signalled: the cached page is served.
      assert.deepStrictEqual(titles(yield* catalogue.list({ cursor: undefined, limit: 10 })), ["One"])
      yield* Queue.offer(feed, "changed")
      yield* settle
      assert.deepStrictEqual(titles(yield* catalogue.list({ cursor: undefined, limit: 10 })), ["One", "Two"])
    }).pipe(Effect.provide(layerCatalogue)))

  it.effect("the catalogue's own writes are visible at once", () =>
    Effect.gen(function*() {
      const catalogue = yield* Catalogue
      yield* Queue.offer(yield* Feed, "live")
      yield* settle
      const first = yield* catalogue.create({ title: "First", content_html: "" })
      yield* catalogue.list({ cursor: undefined, limit: 10 })
      yield* catalogue.create({ title: "Second", content_html: "" })
      assert.deepStrictEqual(titles(yield* catalogue.list({ cursor: undefined, limit: 10 })), ["First", "Second"])
      yield* catalogue.update(first.id, { title: "Renamed" })
      assert.deepStrictEqual(titles(yield* catalogue.list({ cursor: undefined, limit: 10 })), ["Renamed", "Second"])
      yield* catalogue.delete(first.id)
      assert.deepStrictEqual(titles(yield* catalogue.list({ cursor: undefined, limit: 10 })), ["Second"])
    }).pipe(Effect.provide(layerCatalogue)))

  it.effect("a lost feed turns the cache off", () =>
    Effect.gen(function*() {
      const catalogue = yield* Catalogue
      const feed = yield* Feed
      yield* Queue.offer(feed, "live")
      yield* settle
      yield* catalogue.create({ title: "One", content_html: "" })
      yield* catalogue.list({ cursor: undefined, limit: 10 })
      yield* Queue.fail(feed, new PersistenceError({ operation: "listen", cause: "connection reset" }))
      yield* settle
      yield* externalInsert("Two")
      assert.deepStrictEqual(titles(yield* catalogue.list({ cursor: undefined, limit: 10 })), ["One", "Two"])
    }).pipe(Effect.provide(layerCatalogue)))

  it.effect("a cached page expires after the maximum age even without a signal", () =>
    Effect.gen(function*() {
      const catalogue = yield* Catalogue
      yield* Queue.offer(yield* Feed, "live")
      yield* settle
      yield* catalogue.create({ title: "One", content_html: "" })
      yield* catalogue.list({ cursor: undefined, limit: 10 })
      yield* externalInsert("Two")
      yield* TestClock.adjust(Duration.sum(listCacheMaxAge, Duration.millis(1)))
      assert.deepStrictEqual(titles(yield* catalogue.list({ cursor: undefined, limit: 10 })), ["One", "Two"])
    }).pipe(Effect.provide(layerCatalogue)))

  it.effect("pages of different cursors and limits are cached apart", () =>
    Effect.gen(function*() {
      const catalogue = yield* Catalogue
      yield* Queue.offer(yield* Feed, "live")
      yield* settle
      for (const title of ["A", "B", "C"]) yield* catalogue.create({ title, content_html: "" })
      assert.deepStrictEqual(titles(yield* catalogue.list({ cursor: undefined, limit: 2 })), ["A", "B"])
      assert.deepStrictEqual(titles(yield* catalogue.list({ cursor: undefined, limit: 3 })), ["A", "B", "C"])
      const fromTwo = yield* catalogue.list({ cursor: (yield* catalogue.list({ cursor: undefined, limit: 2 })).next, limit: 2 })
      assert.deepStrictEqual(titles(fromTwo), ["C"])
    }).pipe(Effect.provide(layerCatalogue)))
})
