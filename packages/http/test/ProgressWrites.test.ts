/**
 * A learner's progress write is answered at the edge (`ProgressWrites`), without the typed
 * API: its answers must be the API's, byte for byte, for every kind of request, and what
 * the edge does not answer must reach the API with the viewer and the body read once.
 */
import { MemoryCoursekit } from "@coursekit/core"
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Layer, Redacted } from "effect"
import { HttpRouter, HttpServer, HttpServerRequest, HttpServerResponse } from "effect/http"
import { SignJWT } from "jose"
import { AdminTokens, CourseListCache, CoursekitHttp, JwtViewerResolver, Readiness, RequestLogger, ViewerResolver } from "../src/index.ts"
import { ProgressWrites } from "../src/edge/ProgressWrites.ts"

const adminToken = "progress-writes-admin-token"
const secret = "w".repeat(JwtViewerResolver.minSecretLength)
const sign = (sub: string, key = secret) =>
  new SignJWT({}).setProtectedHeader({ alg: "HS256" }).setSubject(sub).setExpirationTime("5m").sign(new TextEncoder().encode(key))

const jwtViewers = JwtViewerResolver.layer({ secret: Redacted.make(secret) }).pipe(Layer.orDie)

/** The routes' services over an in-memory store of their own. */
const services = (viewers: Layer.Layer<ViewerResolver> = jwtViewers) =>
  Effect.gen(function*() {
    const store = yield* Layer.build(MemoryCoursekit.layerMemory())
    return Layer.mergeAll(
      Readiness.layer([]),
      AdminTokens.layer([Redacted.make(adminToken)]),
      viewers,
      CourseListCache.layerDisabled,
      RequestLogger.layerSilent
    ).pipe(Layer.provideMerge(Layer.succeedContext(store)))
  })

interface Answer {
  readonly status: number
  readonly headers: Record<string, string>
  readonly body: string
}

// An instant as the answers write them (the two stores write at two moments).
const instant = /"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z"/g

const answerOf = async (response: Response): Promise<Answer> => ({
  status: response.status,
  // The request id is the request's own; everything else must be the same.
  headers: Object.fromEntries([...response.headers].filter(([name]) => name !== "x-request-id")),
  body: (await response.text()).replace(instant, `"<instant>"`)
})

type Handler = (request: Request) => Promise<Response>

/** A course with a preview, a paid and a draft lesson, bought by `buyer`: the lessons' ids. */
const seed = (handler: Handler) =>
  Effect.promise(async () => {
    const admin = { authorization: `Bearer ${adminToken}`, "content-type": "application/json" }
    const post = async (path: string, body: unknown, method = "POST") => {
      const response = await handler(new Request(`http://host${path}`, { method, headers: admin, body: body === undefined ? null : JSON.stringify(body) }))
      assert.isBelow(response.status, 300, `${method} ${path}: ${await response.clone().text()}`)
      return response.json() as Promise<{ id: number }>
    }
    const course = await post("/courses", { title: "Knots", content_html: "<p>Ropes</p>", status: "published" })
    const preview = await post(`/courses/${course.id}/lessons`, { title: "Free", content_html: "<p>F</p>", is_preview: true, status: "published" })
    const paid = await post(`/courses/${course.id}/lessons`, { title: "Paid", content_html: "<p>P</p>", status: "published" })
    const draft = await post(`/courses/${course.id}/lessons`, { title: "Draft", content_html: "<p>D</p>", status: "draft" })
    await post(`/admin/courses/${course.id}/purchases/buyer`, undefined, "PUT")
    return { preview: preview.id, paid: paid.id, draft: draft.id }
  })

describe("progress writes at the edge", () => {
  it.effect("answer as the API answers, byte for byte but the instants: writes, repeats, 403, 404, 401, bad ids and bodies", () =>
    Effect.gen(function*() {
      // The edge on one store; the API alone (its routes without the edge middleware) on another, seeded alike.
      const edge = CoursekitHttp.webHandler(yield* services())
      const api = HttpRouter.toWebHandler(
        CoursekitHttp.layerApi.pipe(Layer.provide([yield* services(), HttpServer.layerServices])),
        { disableLogger: true }
      )
      const lessons = yield* seed(edge.handler)
      assert.deepStrictEqual(yield* seed(api.handler), lessons)
      const buyer = `Bearer ${yield* Effect.promise(() => sign("buyer"))}`
      const stranger = `Bearer ${yield* Effect.promise(() => sign("stranger"))}`
      const forged = `Bearer ${yield* Effect.promise(() => sign("buyer", "another-secret-0123456789abcdefghij"))}`
      const json = "application/json"
      // Bytes, not a string: a string body would be given `Content-Type: text/plain`.
      const put = (handler: Handler, path: string, body: string, headers: Record<string, string>) =>
        Effect.promise(() => handler(new Request(`http://host${path}`, { method: "PUT", headers, body: new TextEncoder().encode(body) })).then(answerOf))
      const same = (id: number | string, body: string, headers: Record<string, string>, status: number, query = "") =>
        Effect.gen(function*() {
          const path = `/me/lessons/${id}/progress${query}`
          const fromApi = yield* put(api.handler, path, body, headers)
          const fromEdge = yield* put(edge.handler, path, body, headers)
          const what = `${path} ${body} ${JSON.stringify(headers)}`
          assert.strictEqual(fromApi.status, status, `${what}: ${fromApi.body}`)
          assert.deepStrictEqual(fromEdge, fromApi, what)
          return fromEdge
        })
      const asBuyer = { authorization: buyer, "content-type": json }
      const saved = yield* same(lessons.paid, `{"position_seconds": 12.5}`, asBuyer, 200)
      assert.deepStrictEqual(JSON.parse(saved.body), {
        lesson_id: lessons.paid,
        course_id: JSON.parse(saved.body).course_id,
        completed: false,
        completed_at: null,
        position_seconds: 12.5,
        updated_at: "<instant>"
      })
      assert.strictEqual(saved.headers["content-type"], json)
      const done = yield* same(lessons.paid, `{"completed": true}`, asBuyer, 200)
      assert.deepInclude(JSON.parse(done.body), { completed: true, completed_at: "<instant>", position_seconds: 12.5 })
      yield* same(lessons.paid, `{"completed": true, "position_seconds": 30}`, asBuyer, 200)
      yield* same(lessons.paid, `{"completed": false}`, asBuyer, 200)
      yield* same(lessons.preview, `{"position_seconds": 0}`, { authorization: stranger, "content-type": json }, 200)
      yield* same(lessons.preview, `{"completed": true}`, { authorization: stranger, "content-type": "Application/JSON; charset=utf-8" }, 200, "?from=player")
      // No Content-Type: JSON, as the API reads it.
      yield* same(lessons.preview, `{"completed": true}`, { authorization: stranger }, 200)
      // Refused by the use case: the problems of the API's error table.
      yield* same(lessons.paid, `{"completed": true}`, { authorization: stranger, "content-type": json }, 403)
      yield* same(lessons.draft, `{"completed": true}`, asBuyer, 404)
      yield* same(999_999, `{"completed": true}`, asBuyer, 404)
      // Left to the API: no viewer, a bad token, a bad id, body or media type.
      yield* same(lessons.paid, `{"completed": true}`, { "content-type": json }, 401)
      yield* same(lessons.paid, `{"completed": true}`, { authorization: forged, "content-type": json }, 401)
      yield* same(`0${lessons.paid}`, `{"completed": true}`, asBuyer, 400)
      yield* same("99999999999", `{"completed": true}`, asBuyer, 400)
      for (const body of ["{}", `{"position_seconds": 1, "extra": 1}`, `{"position_seconds": -1}`, `{"position_seconds": 604801}`, `{"completed": "yes"}`, "[]", "null", "not json", ""]) {
        yield* same(lessons.paid, body, asBuyer, 400)
      }
      yield* Effect.promise(edge.dispose)
      yield* Effect.promise(api.dispose)
    }).pipe(Effect.scoped))

  // Live: the use case runs on this fiber, and the purchase was made by the real clock.
  it.live("serve only PUTs of a canonical lesson id with a ProgressUpdate from a signed-in viewer; everything else goes to the API", () =>
    Effect.gen(function*() {
      const layer = yield* services()
      const edge = CoursekitHttp.webHandler(layer)
      const lessons = yield* seed(edge.handler)
      yield* Effect.promise(edge.dispose)
      const writes = Context.get(yield* Layer.build(ProgressWrites.layer.pipe(Layer.provide(layer))), ProgressWrites)
      const buyer = `Bearer ${yield* Effect.promise(() => sign("buyer"))}`
      // Stands for the API: a status no real answer has.
      const api = Effect.succeed(HttpServerResponse.empty({ status: 299 }))
      const statusOf = (method: string, path: string, body: string | null, headers: Record<string, string> = { authorization: buyer, "content-type": "application/json" }) =>
        Effect.map(
          writes.around(HttpServerRequest.fromWeb(new Request(`http://host${path}`, { method, headers, body })), api),
          (response) => response.status
        )
      const path = `/me/lessons/${lessons.paid}/progress`
      const update = `{"position_seconds": 3}`
      assert.strictEqual(yield* statusOf("PUT", path, update), 200)
      assert.strictEqual(yield* statusOf("PUT", `/me/lessons/${lessons.draft}/progress`, update), 404)
      for (
        const [method, target, body, headers] of [
          ["POST", path, update, undefined],
          ["GET", path, null, undefined],
          ["PUT", `${path}/`, update, undefined],
          ["PUT", `/me/lessons/${lessons.paid}`, update, undefined],
          ["PUT", `/me/lessons/0${lessons.paid}/progress`, update, undefined],
          ["PUT", `/me/lessons/%3${String(lessons.paid).slice(1)}/progress`, update, undefined],
          ["PUT", `${path}#top`, update, undefined],
          ["PUT", path, update, {}],
          ["PUT", path, update, { authorization: "Bearer not.a.token" }],
          ["PUT", path, update, { authorization: buyer, "content-type": "text/plain" }],
          ["PUT", path, "{}", undefined],
          ["PUT", path, `{"completed": true, "note": "unknown field"}`, undefined],
          ["PUT", path, "{", undefined],
          ["PUT", path, "", undefined]
        ] as const
      ) {
        assert.strictEqual(yield* statusOf(method, target, body, headers), 299, `${method} ${target} ${body} ${JSON.stringify(headers)}`)
      }
    }).pipe(Effect.scoped))

  it.effect("a request left to the API has its viewer resolved once and its body read once", () =>
    Effect.gen(function*() {
      let resolutions = 0
      // The JWT resolver, counted.
      const counted = Layer.effect(
        ViewerResolver,
        Effect.map(JwtViewerResolver.make({ secret: Redacted.make(secret) }), (resolver) =>
          ViewerResolver.of({ vary: resolver.vary, resolve: (request) => Effect.suspend(() => (resolutions++, resolver.resolve(request))) }))
      ).pipe(Layer.orDie)
      const edge = CoursekitHttp.webHandler(yield* services(counted))
      const lessons = yield* seed(edge.handler)
      const buyer = `Bearer ${yield* Effect.promise(() => sign("buyer"))}`
      // A body that can be read once only: the API decodes the one the edge read.
      const answer = (body: string, authorization: string) =>
        Effect.promise(async () => {
          const stream = new ReadableStream({ start: (controller) => (controller.enqueue(new TextEncoder().encode(body)), controller.close()) })
          const request = new Request(`http://host/me/lessons/${lessons.paid}/progress`, {
            method: "PUT",
            headers: { authorization, "content-type": "application/json" },
            body: stream,
            duplex: "half"
          } as RequestInit)
          const response = await edge.handler(request)
          return { status: response.status, body: await response.text() }
        })
      resolutions = 0
      const refused = yield* answer(`{"position_seconds": -5}`, buyer)
      assert.strictEqual(refused.status, 400)
      assert.include(refused.body, "position_seconds")
      assert.strictEqual(resolutions, 1)
      const forged = yield* answer(`{"position_seconds": 5}`, `Bearer ${yield* Effect.promise(() => sign("buyer", "another-secret-0123456789abcdefghij"))}`)
      assert.strictEqual(forged.status, 401)
      assert.strictEqual(resolutions, 2)
      assert.strictEqual((yield* answer(`{"position_seconds": 5}`, buyer)).status, 200)
      assert.strictEqual(resolutions, 3)
      yield* Effect.promise(edge.dispose)
    }).pipe(Effect.scoped))
})
