import { MemoryCoursekit } from "@coursekit/core"
import { assert, describe, it } from "@effect/vitest"
import { Context, Duration, Effect, Layer, Logger, References, Stream } from "effect"
import { HttpRouter, HttpServer, HttpServerRequest, HttpServerResponse } from "effect/http"
import { AdminTokens, CourseListCache, CoursekitHttp, Readiness, type RequestLogEntry, RequestLogger, RouteTable, ViewerResolver } from "../src/index.ts"

// Settled when the route that never answers has started.
const signal = () => {
  let resolve = () => {}
  const promise = new Promise<void>((done) => (resolve = done))
  return { promise, resolve }
}
let started = signal()

// Effect log lines written while serving, with their annotations.
const collectLogs = (lines: Array<{ message: unknown; annotations: Record<string, unknown> }>) =>
  Logger.layer([
    Logger.make((options) => {
      lines.push({
        message: options.message,
        annotations: { ...Context.get(options.fiber.context, References.CurrentLogAnnotations) }
      })
    })
  ])

// The API on in-memory layers as a Web handler, with two extra routes: one that fails
// with a defect carrying a secret, as a bug in a handler would, and one that never answers.
const makeHandler = (
  logged: Array<RequestLogEntry>,
  logLines: Array<{ message: unknown; annotations: Record<string, unknown> }> = [],
  routeTable: (table: RouteTable["Service"]) => RouteTable["Service"] = (table) => table
) =>
  HttpRouter.toWebHandler(
    Layer.mergeAll(
      CoursekitHttp.layerRoutes,
      HttpRouter.add("GET", "/explode", Effect.die(new Error("password=hunter2 at db.internal:5432"))),
      HttpRouter.add("GET", "/forever", Effect.andThen(Effect.sync(() => started.resolve()), Effect.never)),
      // A body streamed after the headers, as the AI event stream is: `count` chunks, or endless.
      HttpRouter.add(
        "GET",
        "/ticks",
        Effect.map(HttpServerRequest.HttpServerRequest, (request) => {
          const count = Number(new URL(request.url, "http://test").searchParams.get("count") ?? Infinity)
          return HttpServerResponse.stream(
            Stream.encodeText(Stream.take(Stream.tick(Duration.millis(10)).pipe(Stream.map(() => "tick\n")), count)),
            { contentType: "text/plain" }
          )
        })
      )
    ).pipe(
      Layer.provide([
        MemoryCoursekit.layerMemory(),
        Readiness.layer([]),
        AdminTokens.layer([]),
        ViewerResolver.layerAnonymousOnly,
        CourseListCache.layerDisabled,
        Layer.succeed(RequestLogger, RequestLogger.of({ log: (entry) => logged.push(entry) }))
      ]),
      Layer.provide(HttpServer.layerServices),
      Layer.updateService(RouteTable, routeTable),
      Layer.provide(RouteTable.layer),
      Layer.provideMerge(collectLogs(logLines))
    ),
    { disableLogger: true }
  )

describe("edge middleware", () => {
  it.effect("a defect is a 500 problem that leaks neither the message nor a stack", () =>
    Effect.gen(function*() {
      const logged: Array<RequestLogEntry> = []
      const logLines: Array<{ message: unknown; annotations: Record<string, unknown> }> = []
      const { handler, dispose } = makeHandler(logged, logLines)
      const response = yield* Effect.promise(() => handler(new Request("http://test/explode")))
      const text = yield* Effect.promise(() => response.text())
      yield* Effect.promise(dispose)
      assert.strictEqual(response.status, 500)
      assert.strictEqual(response.headers.get("content-type"), "application/problem+json")
      const body = JSON.parse(text)
      assert.strictEqual(body.status, 500)
      assert.strictEqual(body.title, "Internal Server Error")
      assert.notInclude(text, "hunter2")
      assert.notInclude(text, "db.internal")
      assert.notMatch(text, /\bat \S+:\d+/)
      assert.strictEqual(logged.length, 1)
      assert.strictEqual(logged[0]!.status, 500)
      assert.strictEqual(logged[0]!.path, "/explode")
      assert.strictEqual(response.headers.get("x-request-id"), logged[0]!.requestId)
      // The cause is logged, and the log line names the request.
      const failure = logLines.find((line) => String(line.message).includes("unhandled failure"))
      assert.isDefined(failure)
      assert.strictEqual(failure!.annotations.requestId, logged[0]!.requestId)
    }))

  it.effect("a bug while answering a failure (here the route table throws on an unknown path) is one logged 500 with the request's id", () =>
    Effect.gen(function*() {
      const logged: Array<RequestLogEntry> = []
      const logLines: Array<{ message: unknown; annotations: Record<string, unknown> }> = []
      const { handler, dispose } = makeHandler(logged, logLines, () => ({
        allowed: () => {
          throw new Error("route table broken: secret=hunter2")
        }
      }))
      const response = yield* Effect.promise(() => handler(new Request("http://test/no/such/path")))
      const text = yield* Effect.promise(() => response.text())
      yield* Effect.promise(dispose)
      assert.strictEqual(response.status, 500)
      assert.strictEqual(response.headers.get("content-type"), "application/problem+json")
      assert.notInclude(text, "hunter2")
      assert.deepStrictEqual(logged.map(({ path, status }) => ({ path, status })), [{ path: "/no/such/path", status: 500 }])
      assert.strictEqual(response.headers.get("x-request-id"), logged[0]!.requestId)
      const failure = logLines.find((line) => String(line.message).includes("unhandled failure"))
      assert.strictEqual(failure?.annotations.requestId, logged[0]!.requestId)
    }))

  it.effect("a request abandoned by its client is logged once, as 499", () =>
    Effect.gen(function*() {
      const logged: Array<RequestLogEntry> = []
      const { handler, dispose } = makeHandler(logged)
      started = signal()
      const client = new AbortController()
      const answered = handler(new Request("http://test/forever", { signal: client.signal })).then(() => "answered", () => "rejected")
      yield* Effect.promise(() => started.promise)
      client.abort()
      yield* Effect.promise(() => answered)
      // The log line is written as the request's fiber ends, which may follow the rejection.
      for (let turn = 0; turn < 100 && logged.length === 0; turn++) yield* Effect.promise(() => new Promise((done) => setTimeout(done, 5)))
      yield* Effect.promise(dispose)
      assert.deepStrictEqual(logged.map(({ method, path, status }) => ({ method, path, status })), [{ method: "GET", path: "/forever", status: 499 }])
    }))

  it.live("a streamed body is logged as it ends: with the response's status when read to the end, 499 when its reader leaves mid-way", () =>
    Effect.gen(function*() {
      const logged: Array<RequestLogEntry> = []
      const { handler, dispose } = makeHandler(logged)
      const whole = yield* Effect.promise(() => handler(new Request("http://test/ticks?count=3")))
      assert.strictEqual(whole.status, 200)
      // The headers are out, the body is not: nothing is logged yet.
      assert.deepStrictEqual(logged, [])
      assert.strictEqual(yield* Effect.promise(() => whole.text()), "tick\ntick\ntick\n")
      assert.deepStrictEqual(logged.map(({ path, status }) => ({ path, status })), [{ path: "/ticks", status: 200 }])
      assert.strictEqual(whole.headers.get("x-request-id"), logged[0]!.requestId)

      const endless = yield* Effect.promise(() => handler(new Request("http://test/ticks")))
      const reader = endless.body!.getReader()
      yield* Effect.promise(() => reader.read())
      yield* Effect.promise(() => reader.cancel())
      for (let turn = 0; turn < 100 && logged.length === 1; turn++) yield* Effect.sleep(Duration.millis(5))
      // A HEAD sends no body: logged at once.
      const head = yield* Effect.promise(() => handler(new Request("http://test/ticks", { method: "HEAD" })))
      assert.strictEqual(head.status, 200)
      yield* Effect.promise(dispose)
      assert.deepStrictEqual(logged.slice(1).map(({ method, path, status }) => ({ method, path, status })), [
        { method: "GET", path: "/ticks", status: 499 },
        { method: "HEAD", path: "/ticks", status: 200 }
      ])
    }))

  it.effect("with no admin token configured every write is refused", () =>
    Effect.gen(function*() {
      const { handler, dispose } = makeHandler([])
      const response = yield* Effect.promise(() =>
        handler(
          new Request("http://test/courses", {
            method: "POST",
            headers: { "content-type": "application/json", authorization: "Bearer some-plausible-token-value" },
            body: JSON.stringify({ title: "t", content_html: "" })
          })
        )
      )
      yield* Effect.promise(dispose)
      assert.strictEqual(response.status, 401)
    }))

  it.effect("GET /health/ready answers 503 naming the dependency that is down", () =>
    Effect.gen(function*() {
      const { handler, dispose } = CoursekitHttp.webHandler(Layer.mergeAll(
        MemoryCoursekit.layerMemory(),
        Readiness.layer([
          { name: "database", check: Effect.void },
          { name: "storage", check: Effect.fail(new Error("connection refused")) }
        ]),
        AdminTokens.layer([]),
        ViewerResolver.layerAnonymousOnly,
        CourseListCache.layerDisabled,
        RequestLogger.layerSilent
      ))
      const response = yield* Effect.promise(() => handler(new Request("http://test/health/ready")))
      const body = yield* Effect.promise(() => response.json())
      yield* Effect.promise(dispose)
      assert.strictEqual(response.status, 503)
      assert.strictEqual(response.headers.get("content-type"), "application/problem+json")
      assert.deepStrictEqual(body.checks, [
        { name: "database", status: "up" },
        { name: "storage", status: "down", detail: "connection refused" }
      ])
    }))
})
