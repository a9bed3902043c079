/**
 * `layerNodeServer` serves the API over `node:http`: by default Coursekit's routes, whose
 * requirements its type states exactly (the route services, nothing `unknown`), or the
 * routes it is given, whose errors and requirements flow into its type.
 */
import { MemoryCoursekit } from "@coursekit/core"
import { assert, describe, expectTypeOf, it } from "@effect/vitest"
import { Context, Data, Effect, Layer } from "effect"
import { HttpRouter, HttpServer, HttpServerResponse } from "effect/http"
import type { HttpServerError } from "effect/http"
import { AdminTokens, CourseListCache, CoursekitHttp, Readiness, RequestLogger, ViewerResolver } from "../src/index.ts"
import type { RouteServices } from "../src/index.ts"

const services = Layer.mergeAll(
  Readiness.layer([]),
  AdminTokens.layer([]),
  ViewerResolver.layerAnonymousOnly,
  CourseListCache.layerDisabled,
  RequestLogger.layerSilent
).pipe(Layer.provideMerge(MemoryCoursekit.layerMemory()))

/** Something a host's own route needs. */
class Greeting extends Context.Service<Greeting, string>()("test/Greeting") {}
class GreetingMissing extends Data.TaggedError("GreetingMissing") {}

const greetingRoute = HttpRouter.add("GET", "/hello", Effect.map(Greeting, (text) => HttpServerResponse.text(text)))

/** GETs `path` from the server in context; its status and body. */
const get = (path: string, method = "GET") =>
  Effect.gen(function*() {
    const address = (yield* HttpServer.HttpServer).address
    if (address._tag === "UnixPathAddress") return yield* Effect.die("expected a TCP address")
    const response = yield* Effect.promise(() => fetch(`http://127.0.0.1:${address.port}${path}`, { method }))
    return { status: response.status, allow: response.headers.get("allow"), text: yield* Effect.promise(() => response.text()) }
  })

describe("CoursekitHttp.layerNodeServer", () => {
  it.effect("by default serves Coursekit's routes, with the route table's 405s, needing exactly the route services", () =>
    Effect.gen(function*() {
      const server = CoursekitHttp.layerNodeServer({ port: 0, host: "127.0.0.1" })
      // Checked by tsc (npm test runs it first): nothing `unknown` left to provide.
      expectTypeOf<Layer.Services<typeof server>>().toEqualTypeOf<RouteServices>()
      expectTypeOf<Layer.Error<typeof server>>().toEqualTypeOf<HttpServerError.ServeError>()
      const context = yield* Layer.build(server.pipe(Layer.provide(services)))
      const list = yield* Effect.provide(get("/courses"), context)
      assert.strictEqual(list.status, 200)
      assert.deepStrictEqual(JSON.parse(list.text), [])
      const wrongMethod = yield* Effect.provide(get("/courses", "PUT"), context)
      assert.strictEqual(wrongMethod.status, 405)
      assert.strictEqual(wrongMethod.allow, "GET, HEAD, POST")
    }))

  it.effect("given routes, serves them beside Coursekit's, needing what they need and failing as they fail", () =>
    Effect.gen(function*() {
      const routes = Layer.mergeAll(CoursekitHttp.layerRoutes, greetingRoute)
      const server = CoursekitHttp.layerNodeServer({ port: 0, host: "127.0.0.1" }, routes)
      expectTypeOf<Layer.Services<typeof server>>().toEqualTypeOf<RouteServices | Greeting>()
      const failing = CoursekitHttp.layerNodeServer({ port: 0 }, Layer.effectDiscard(Effect.fail(new GreetingMissing())))
      expectTypeOf<Layer.Error<typeof failing>>().toEqualTypeOf<HttpServerError.ServeError | GreetingMissing>()
      expectTypeOf<Layer.Services<typeof failing>>().toEqualTypeOf<never>()
      const context = yield* Layer.build(server.pipe(Layer.provide([services, Layer.succeed(Greeting, "hello")])))
      assert.deepStrictEqual(yield* Effect.provide(get("/hello"), context), { status: 200, allow: null, text: "hello" })
      assert.strictEqual((yield* Effect.provide(get("/courses"), context)).status, 200)
      const wrongMethod = yield* Effect.provide(get("/hello", "POST"), context)
      assert.strictEqual(wrongMethod.status, 405)
      assert.strictEqual(wrongMethod.allow, "GET, HEAD")
    }))
})
