/**
 * The public course page is answered at the edge (`PublicCoursePages`), without the typed
 * API: its answers must be the API's, byte for byte, for every kind of caller, and what
 * the edge does not answer must reach the API.
 */
import { type Courses, MemoryCoursekit } from "@coursekit/core"
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Layer, Redacted } from "effect"
import { HttpRouter, HttpServer, HttpServerRequest, HttpServerResponse } from "effect/http"
import { SignJWT } from "jose"
import {
  AdminTokens,
  CourseListCache,
  CoursekitHttp,
  JwtViewerResolver,
  Readiness,
  type RequestLogEntry,
  RequestLogger,
  ViewerResolver
} from "../src/index.ts"
import { PublicCoursePages } from "../src/edge/PublicCoursePages.ts"

// Settles once resolved: here, when the hanging resolver has been asked.
const signal = () => {
  let resolve = () => {}
  const promise = new Promise<void>((done) => (resolve = done))
  return { promise, resolve }
}

const adminToken = "public-course-pages-admin-token"
const secret = "v".repeat(JwtViewerResolver.minSecretLength)
const sign = (sub: string, key = secret) =>
  new SignJWT({}).setProtectedHeader({ alg: "HS256" }).setSubject(sub).setExpirationTime("5m").sign(new TextEncoder().encode(key))

const jwtViewers = JwtViewerResolver.layer({ secret: Redacted.make(secret) }).pipe(Layer.orDie)

/** The routes' services over one in-memory store; by default viewers from HS256 tokens, no list cache, no log. */
const services = (options: {
  readonly viewers?: Layer.Layer<ViewerResolver>
  readonly listCache?: Layer.Layer<CourseListCache, never, Courses>
  readonly logger?: Layer.Layer<RequestLogger>
} = {}) =>
  Effect.gen(function*() {
    const store = yield* Layer.build(MemoryCoursekit.layerMemory())
    return Layer.mergeAll(
      Readiness.layer([]),
      AdminTokens.layer([Redacted.make(adminToken)]),
      options.viewers ?? jwtViewers,
      options.listCache ?? CourseListCache.layerDisabled,
      options.logger ?? RequestLogger.layerSilent
    ).pipe(Layer.provideMerge(Layer.succeedContext(store)))
  })

interface Answer {
  readonly status: number
  readonly headers: Record<string, string>
  readonly body: Uint8Array
}

const answerOf = async (response: Response): Promise<Answer> => ({
  status: response.status,
  // The request id is the request's own; everything else must be the same.
  headers: Object.fromEntries([...response.headers].filter(([name]) => name !== "x-request-id")),
  body: new Uint8Array(await response.arrayBuffer())
})

/** A course with loose and sectioned lessons, previews and paid ones, a draft lesson; bought by `buyer`. */
const seed = (handler: (request: Request) => Promise<Response>) =>
  Effect.promise(async () => {
    const admin = { authorization: `Bearer ${adminToken}`, "content-type": "application/json" }
    const post = async (path: string, body: unknown, method = "POST") => {
      const response = await handler(new Request(`http://host${path}`, { method, headers: admin, body: body === undefined ? null : JSON.stringify(body) }))
      assert.isBelow(response.status, 300, `${method} ${path}: ${await response.clone().text()}`)
      return response.json() as Promise<{ id: number; slug: string }>
    }
    const course = await post("/courses", { title: "Crème brûlée \"at home\"", content_html: "<p>Intro <em>é</em> \u2028</p>", description: "Sweet" })
    const section = await post(`/courses/${course.id}/sections`, { title: "Custard & caramel" })
    await post(`/courses/${course.id}/lessons`, { title: "Welcome", content_html: "<p>Free</p>", is_preview: true })
    await post(`/courses/${course.id}/lessons`, { title: "Paid loose", content_html: "<p>PAID-LOOSE</p>", is_preview: false })
    await post(`/courses/${course.id}/lessons`, { title: "Custard", content_html: "<p>Preview in a section</p>", is_preview: true, section_id: section.id })
    await post(`/courses/${course.id}/lessons`, { title: "Caramel", content_html: "<p>PAID-SECTION</p>", is_preview: false, section_id: section.id })
    await post(`/courses/${course.id}/lessons`, { title: "Draft", content_html: "<p>DRAFT</p>", is_preview: true, status: "draft" })
    await post(`/admin/courses/${course.id}/purchases/buyer`, undefined, "PUT")
    return course
  })

describe("public course pages at the edge", () => {
  it.effect("answer as the API answers, byte for byte: every caller, 304, 404, a forged token, an encoded slug", () =>
    Effect.gen(function*() {
      const layer = yield* services()
      const edge = CoursekitHttp.webHandler(layer)
      // The API alone: its routes without the edge middleware around them.
      const api = HttpRouter.toWebHandler(
        CoursekitHttp.layerApi.pipe(Layer.provide([layer, HttpServer.layerServices])),
        { disableLogger: true }
      )
      const course = yield* seed(edge.handler)
      const viaApi = (request: Request) => api.handler(request)
      const viewers: Record<string, Record<string, string>> = {
        anonymous: {},
        "non-buyer": { authorization: `Bearer ${yield* Effect.promise(() => sign("non-buyer"))}` },
        buyer: { authorization: `Bearer ${yield* Effect.promise(() => sign("buyer"))}` }
      }
      const ask = (handler: (request: Request) => Promise<Response>, path: string, headers: Record<string, string>) =>
        Effect.promise(() => handler(new Request(`http://host${path}`, { headers })).then(answerOf))
      const same = (path: string, headers: Record<string, string>, status: number) =>
        Effect.gen(function*() {
          const fromApi = yield* ask(viaApi, path, headers)
          const fromEdge = yield* ask(edge.handler, path, headers)
          assert.strictEqual(fromApi.status, status, `${path} ${JSON.stringify(headers)}`)
          assert.deepStrictEqual(fromEdge, fromApi, `${path} ${JSON.stringify(headers)}`)
          return fromEdge
        })
      const text = (answer: Answer) => new TextDecoder().decode(answer.body)
      for (const [name, headers] of Object.entries(viewers)) {
        const page = yield* same(`/public/courses/${course.slug}`, headers, 200)
        // The locked bodies are absent unless bought, the draft always.
        assert.strictEqual(text(page).includes("PAID-LOOSE"), name === "buyer", name)
        assert.strictEqual(text(page).includes("PAID-SECTION"), name === "buyer", name)
        assert.notInclude(text(page), "DRAFT")
        assert.strictEqual(page.headers["cache-control"], name === "anonymous" ? "public, no-cache" : "private, no-cache")
        yield* same(`/public/courses/${course.slug}`, { ...headers, "if-none-match": `W/${page.headers.etag}, "other"` }, 304)
        yield* same(`/public/courses/${course.slug}?utm_source=mail`, headers, 200)
        yield* same("/public/courses/no-such-course", headers, 404)
      }
      yield* same(`/public/courses/${course.slug}`, { authorization: `Bearer ${yield* Effect.promise(() => sign("buyer", "another-secret-0123456789abcdefghij"))}` }, 401)
      yield* same(`/public/courses/${course.slug}`, { authorization: "Basic dXNlcjpwYXNz" }, 401)
      // Left to the API, which answers it as it always has.
      yield* same(`/public/courses/${course.slug.replace("c", "%63")}`, viewers.buyer!, 200)
      yield* same(`/public/courses/${"a".repeat(81)}`, {}, 400)
      yield* Effect.promise(edge.dispose)
      yield* Effect.promise(api.dispose)
    }).pipe(Effect.scoped))

  it.effect("serve only GETs of a slug-shaped path from a viewer who verifies; everything else goes to the API", () =>
    Effect.gen(function*() {
      const layer = yield* services()
      const edge = CoursekitHttp.webHandler(layer)
      const course = yield* seed(edge.handler)
      yield* Effect.promise(edge.dispose)
      const context = yield* Layer.build(PublicCoursePages.layer.pipe(Layer.provide(layer)))
      const pages = Context.get(context, PublicCoursePages)
      const buyer = yield* Effect.promise(() => sign("buyer"))
      // Stands for the API: a status no real answer has.
      const api = Effect.succeed(HttpServerResponse.empty({ status: 299 }))
      const statusOf = (method: string, path: string, headers: Record<string, string> = {}) =>
        Effect.map(
          pages.around(HttpServerRequest.fromWeb(new Request(`http://host${path}`, { method, headers })), api),
          (response) => response.status
        )
      const page = `/public/courses/${course.slug}`
      assert.strictEqual(yield* statusOf("GET", page), 200)
      assert.strictEqual(yield* statusOf("GET", page, { authorization: `Bearer ${buyer}` }), 200)
      assert.strictEqual(yield* statusOf("GET", `${page}?x=1`), 200)
      assert.strictEqual(yield* statusOf("GET", "/public/courses/no-such-course"), 404)
      for (
        const [method, path, headers] of [
          ["HEAD", page, {}],
          ["POST", page, {}],
          ["GET", `${page}/`, {}],
          ["GET", `${page}/lessons`, {}],
          ["GET", "/public/courses/", {}],
          ["GET", "/public/courses/Upper-Case", {}],
          ["GET", "/public/courses/double--hyphen", {}],
          ["GET", `/public/courses/${"a".repeat(81)}`, {}],
          ["GET", `/public/courses/${course.slug.replace("c", "%63")}`, {}],
          ["GET", `${page}#top`, {}],
          ["GET", "/courses", {}],
          ["GET", page, { authorization: "Bearer not.a.token" }]
        ] as const
      ) {
        assert.strictEqual(yield* statusOf(method, path, headers), 299, `${method} ${path}`)
      }
      // 81 characters is one too many; 80 is a slug's most.
      assert.strictEqual(yield* statusOf("GET", `/public/courses/${"a".repeat(80)}`), 404)
    }).pipe(Effect.scoped))

  it.effect("the viewer is resolved once per request, also when the edge leaves a refused token to the API", () =>
    Effect.gen(function*() {
      let resolutions = 0
      // The JWT resolver, counted.
      const counted = Layer.effect(
        ViewerResolver,
        Effect.map(JwtViewerResolver.make({ secret: Redacted.make(secret) }), (resolver) =>
          ViewerResolver.of({ vary: resolver.vary, resolve: (request) => Effect.suspend(() => (resolutions++, resolver.resolve(request))) }))
      ).pipe(Layer.orDie)
      const edge = CoursekitHttp.webHandler(yield* services({ viewers: counted }))
      const course = yield* seed(edge.handler)
      const statusOf = (authorization: string) =>
        Effect.promise(() => edge.handler(new Request(`http://host/public/courses/${course.slug}`, { headers: { authorization } })).then((response) => response.status))
      resolutions = 0
      assert.strictEqual(yield* statusOf(`Bearer ${yield* Effect.promise(() => sign("buyer", "another-secret-0123456789abcdefghij"))}`), 401)
      assert.strictEqual(resolutions, 1)
      assert.strictEqual(yield* statusOf(`Bearer ${yield* Effect.promise(() => sign("buyer"))}`), 200)
      assert.strictEqual(resolutions, 2)
      yield* Effect.promise(edge.dispose)
    }).pipe(Effect.scoped))

  it.effect("a request abandoned while the edge waits on the viewer is interrupted and logged as 499: the public course and a list page", () =>
    Effect.gen(function*() {
      const logged: Array<RequestLogEntry> = []
      let asked = signal()
      // A key server that never answers.
      const hanging = Layer.succeed(
        ViewerResolver,
        ViewerResolver.of({ vary: ["authorization"], resolve: () => Effect.andThen(Effect.sync(() => asked.resolve()), Effect.never) })
      )
      const edge = CoursekitHttp.webHandler(yield* services({
        viewers: hanging,
        listCache: CourseListCache.layer(),
        logger: Layer.succeed(RequestLogger, RequestLogger.of({ log: (entry) => logged.push(entry) }))
      }))
      for (const path of ["/public/courses/any-course", "/courses?limit=2"]) {
        asked = signal()
        const client = new AbortController()
        const settled = edge.handler(new Request(`http://host${path}`, { signal: client.signal, headers: { authorization: "Bearer a.viewer.token" } }))
          .then(() => "settled", () => "settled")
        yield* Effect.promise(() => asked.promise)
        client.abort()
        // The handler's promise settles: nothing is left waiting on the resolver.
        assert.strictEqual(yield* Effect.promise(() => settled), "settled")
        // The log line is written as the request's fiber ends, which may follow the rejection.
        for (let turn = 0; turn < 100 && !logged.some((entry) => entry.path === path.split("?")[0]); turn++) {
          yield* Effect.promise(() => new Promise((done) => setTimeout(done, 5)))
        }
        assert.deepStrictEqual(logged.filter((entry) => entry.path === path.split("?")[0]).map(({ status }) => status), [499], path)
      }
      yield* Effect.promise(edge.dispose)
    }).pipe(Effect.scoped))
})
