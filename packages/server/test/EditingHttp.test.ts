import { assert, describe, layer } from "@effect/vitest"
import { Effect } from "effect"
import { editingHttpSuite, editingTokens } from "./EditingHttpSuite.ts"
import { call, layerTestServer } from "./TestServer.ts"

editingHttpSuite("PGlite", layerTestServer({ adminTokens: editingTokens }))

describe("REQUIRE_IF_MATCH", () => {
  layer(layerTestServer({ requireIfMatch: true }), { timeout: 60_000 })((it) => {
    it.effect("a write of a versioned record without If-Match is a 428 naming the header; with it, it goes through", () =>
      Effect.gen(function*() {
        const created = yield* call("/courses", { method: "POST", admin: true, json: { title: "Guarded", content_html: "" } })
        assert.strictEqual(created.status, 201)
        const path = `/courses/${created.body.id}`
        const lesson = yield* call(`${path}/lessons`, { method: "POST", admin: true, json: { title: "L" } })
        const section = yield* call(`${path}/sections`, { method: "POST", admin: true, json: { title: "S" } })
        for (const [method, target] of [
          ["PATCH", path],
          ["DELETE", path],
          ["PATCH", `${path}/lessons/${lesson.body.id}`],
          ["DELETE", `${path}/lessons/${lesson.body.id}`],
          ["PATCH", `${path}/sections/${section.body.id}`],
          ["DELETE", `${path}/sections/${section.body.id}`],
          ["POST", `${path}/revisions/1/restore`]
        ] as const) {
          const refused = yield* call(target, { method, admin: true, ...(method === "PATCH" ? { json: { title: "no" } } : {}) })
          assert.strictEqual(refused.status, 428, `${method} ${target}`)
          assert.strictEqual(refused.body.title, "Precondition Required")
          assert.include(refused.body.detail, "If-Match")
        }
        assert.strictEqual((yield* call(path, { admin: true })).body.title, "Guarded")
        const changed = yield* call(path, { method: "PATCH", admin: true, headers: { "if-match": "\"1\"" }, json: { title: "Changed" } })
        assert.strictEqual(changed.status, 200)
      }))
  })
})
