/**
 * The generation event stream at the HTTP edge, on in-memory layers: a bug inside the
 * stream (a provider that dies) ends it with a 500 `error` event that carries no
 * internals, rather than a cut connection.
 */
import { LlmProvider, MemoryCoursekit } from "@coursekit/core"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Redacted, Stream } from "effect"
import { HttpRouter, HttpServer } from "effect/http"
import { AdminTokens, CourseListCache, CoursekitHttp, Readiness, RequestLogger, RouteTable, ViewerResolver } from "../src/index.ts"

const dying = Layer.succeed(LlmProvider, LlmProvider.of({
  provider: "openai",
  model: "buggy",
  generate: () => Effect.die(new Error("password=hunter2")),
  stream: () => Stream.concat(Stream.succeed({ _tag: "TextDelta" as const, text: "<h2>One</h2><p>Two</p><p>" }), Stream.die(new Error("password=hunter2 at adapter.ts:12")))
}))

describe("the generation event stream at the edge", () => {
  it.effect("a defect inside the stream is its last event: a 500 problem without internals", () =>
    Effect.gen(function*() {
      const { handler, dispose } = HttpRouter.toWebHandler(
        CoursekitHttp.layerRoutes.pipe(
          Layer.provide([
            MemoryCoursekit.layerMemory({ models: [dying] }),
            Readiness.layer([]),
            AdminTokens.layer([Redacted.make("admin-token-0123456789")]),
            ViewerResolver.layerAnonymousOnly,
            CourseListCache.layerDisabled,
            RequestLogger.layerSilent
          ]),
          Layer.provide(HttpServer.layerServices),
          Layer.provide(RouteTable.layer)
        ),
        { disableLogger: true }
      )
      const response = yield* Effect.promise(() =>
        handler(new Request("http://test/admin/ai/generate", {
          method: "POST",
          headers: { authorization: "Bearer admin-token-0123456789", accept: "text/event-stream", "content-type": "application/json" },
          body: JSON.stringify({ prompt: "x" })
        }))
      )
      const text = yield* Effect.promise(() => response.text())
      yield* Effect.promise(dispose)
      assert.strictEqual(response.status, 200)
      const events = text.split("\n\n").filter((block) => block.startsWith("event: ")).map((block) => block.split("\n")[0]!.slice(7))
      assert.deepStrictEqual(events, ["html", "html", "error"])
      const problem = JSON.parse(text.split("event: error\ndata: ")[1]!.split("\n")[0]!)
      assert.deepStrictEqual([problem.status, problem.title], [500, "Internal Server Error"])
      assert.notInclude(text, "hunter2")
      assert.notInclude(text, "adapter.ts")
    }))
})
