/**
 * `/docs`, built on its first request (`ApiDocsRoute`): the API answers before it is
 * built; concurrent first requests and later ones all get the same small page; the page
 * loads Scalar's script from its own address, a static asset cached for a year, and that
 * address resolves under a mount prefix too.
 */
import { MemoryCoursekit } from "@coursekit/core"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { CoursekitHttp } from "../src/index.ts"

const scriptSrc = (page: string) => /<script src="([^"]+)"><\/script>/.exec(page)?.[1]

describe("GET /docs", () => {
  it.effect("answers concurrent first requests and later ones with the same page, which names Scalar's script instead of holding it", () =>
    Effect.promise(async () => {
      const { handler, dispose } = CoursekitHttp.webHandler(CoursekitHttp.layerHostServices(MemoryCoursekit.layerMemory()))
      try {
        const before = await handler(new Request("http://host/courses?limit=1"))
        assert.strictEqual(before.status, 200)
        const first = await Promise.all([1, 2, 3].map(() => handler(new Request("http://host/docs"))))
        const later = await handler(new Request("http://host/docs"))
        const pages = await Promise.all([...first, later].map((response) => response.text()))
        for (const response of [...first, later]) {
          assert.strictEqual(response.status, 200)
          assert.include(response.headers.get("content-type") ?? "", "text/html")
        }
        assert.include(pages[0], "Scalar.createApiReference")
        assert.include(pages[0], "\"openapi\":\"3.1.0\"")
        for (const page of pages) assert.strictEqual(page, pages[0])
        // The page is the API's description and a few lines; the 3 MB script is not in it.
        const page = pages[0]!
        const spec = await (await handler(new Request("http://host/openapi.json"))).text()
        assert.isBelow(page.length, spec.length + 2_000)
        assert.notInclude(page, "Minified by jsDelivr")
        assert.match(scriptSrc(page) ?? "", /^docs\/scalar-\d+\.\d+\.\d+[^/]*\.js$/)
      } finally {
        await dispose()
      }
    }))

  it.effect("the script is Scalar's, at the address the page names (under a mount prefix too), cached for a year", () =>
    Effect.promise(async () => {
      for (const prefix of ["", "/api/coursekit"]) {
        const { handler, dispose } = CoursekitHttp.webHandler(CoursekitHttp.layerHostServices(MemoryCoursekit.layerMemory()), { prefix })
        try {
          const pageUrl = `http://host${prefix}/docs`
          const src = scriptSrc(await (await handler(new Request(pageUrl))).text())!
          const scriptUrl = new URL(src, pageUrl)
          assert.strictEqual(scriptUrl.pathname, `${prefix}/docs/${src.slice("docs/".length)}`)
          const script = await handler(new Request(scriptUrl))
          assert.strictEqual(script.status, 200, prefix)
          assert.include(script.headers.get("content-type") ?? "", "text/javascript")
          assert.strictEqual(script.headers.get("cache-control"), "public, max-age=31536000, immutable")
          const text = await script.text()
          assert.isAbove(text.length, 1_000_000)
          assert.include(text, "createApiReference")
          // Another name is not the script.
          const other = await handler(new Request(new URL(`${prefix}/docs/scalar-0.0.0.js`, pageUrl)))
          assert.strictEqual(other.status, 404)
        } finally {
          await dispose()
        }
      }
    }))
})
