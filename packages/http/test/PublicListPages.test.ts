/**
 * The public's list pages are written by `CourseListCache` without the API: they must be
 * what the API writes, byte for byte. Two handlers over one store, one whose list cache
 * is disabled (every page from the API) and one as shipped, are asked the same pages.
 */
import { CourseRepo, MemoryCoursekit, publishedNow } from "@coursekit/core"
import { assert, describe, it } from "@effect/vitest"
import { Context, DateTime, Effect, Layer, Redacted } from "effect"
import { AdminTokens, CourseListCache, CoursekitHttp, Readiness, RequestLogger, ViewerResolver } from "../src/index.ts"

const titles = [
  "Plain",
  `Quotes " and \\ backslash`,
  "<script>alert(1)</script> & co",
  "Line\u2028separator and \u{1F600}",
  "Café crème",
  "Seven",
  "Eight"
]

const pages = [
  "/courses",
  "/courses?limit=2",
  "/courses?cursor=3&limit=2",
  "/courses?limit=2&cursor=3&utm_source=mail",
  "/courses?limit=50",
  "/courses?cursor=6",
  "/courses?cursor=999999"
]

describe("public list pages", () => {
  it.effect("are written as the API writes them: status, body bytes, Link, type and caching headers", () =>
    Effect.gen(function*() {
      const store = yield* Layer.build(MemoryCoursekit.layerMemory())
      const repo = Context.get(store, CourseRepo)
      for (const [i, title] of titles.entries()) {
        const course = yield* repo.insert({ ...publishedNow, title, slugBase: `c${i}`, content_html: "<p>x</p>" })
        if (i % 2 === 0) yield* repo.update(course.id, { thumbnail_key: `courses/${course.id}/00000000-0000-4000-8000-00000000000${i}.png` })
      }
      yield* repo.insert({ status: "draft", publish_at: null, title: "Draft", slugBase: "draft", content_html: "" })
      yield* repo.insert({ status: "published", publish_at: DateTime.makeUnsafe(Date.now() + 86_400_000), title: "Later", slugBase: "later", content_html: "" })
      const services = (listCache: Layer.Layer<CourseListCache, never, any>) =>
        Layer.mergeAll(
          Readiness.layer([]),
          AdminTokens.layer([Redacted.make("public-list-pages-token")]),
          ViewerResolver.layerAnonymousOnly,
          listCache,
          RequestLogger.layerSilent
        ).pipe(Layer.provideMerge(Layer.succeedContext(store)))
      const viaApi = CoursekitHttp.webHandler(services(CourseListCache.layerDisabled), { prefix: "/kit" })
      const viaCache = CoursekitHttp.webHandler(services(CourseListCache.layer({ maxEntries: 0 })), { prefix: "/kit" })
      const kept = CoursekitHttp.webHandler(services(CourseListCache.layer()), { prefix: "/kit" })
      const read = (handler: typeof viaApi, path: string) =>
        Effect.promise(async () => {
          const response = await handler.handler(new Request(`http://host/kit${path}`))
          const headers = Object.fromEntries([...response.headers].filter(([name]) => name !== "x-request-id" && name !== "etag"))
          return { status: response.status, headers, body: new Uint8Array(await response.arrayBuffer()), etag: response.headers.get("etag") }
        })
      for (const path of pages) {
        const api = yield* read(viaApi, path)
        assert.strictEqual(api.status, 200, path)
        assert.isNull(api.etag, "the API itself writes no ETag")
        for (const handler of [viaCache, kept, kept]) {
          const served = yield* read(handler, path)
          assert.deepStrictEqual(served.body, api.body, path)
          assert.deepStrictEqual(served.headers, api.headers, path)
          assert.match(served.etag!, /^"[^"]+"$/)
        }
      }
      const shown = JSON.parse(new TextDecoder().decode((yield* read(viaApi, "/courses?limit=50")).body)) as Array<{ title: string }>
      assert.deepStrictEqual(shown.map((course) => course.title), titles)
      for (const handler of [viaApi, viaCache, kept]) yield* Effect.promise(handler.dispose)
    }).pipe(Effect.scoped))
})
