/**
 * `/docs`, built on its first request (`ApiDocsRoute`): the API answers before it is
 * built, and concurrent first requests and later ones all get the same page.
 */
import { MemoryCoursekit } from "@coursekit/core"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { CoursekitHttp } from "../src/index.ts"

describe("GET /docs", () => {
  it.effect("answers concurrent first requests and later ones with the same page", () =>
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
      } finally {
        await dispose()
      }
    }))
})
