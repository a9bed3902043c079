/**
 * Embedding: the API mounted under a host's prefix, as a Web handler and as a Node
 * request listener, on in-memory layers.
 */
import { anonymousViewer, MemoryCoursekit, signedInViewer, UserId } from "@coursekit/core"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Redacted } from "effect"
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { AdminAccess, AdminTokens, anonymousIdentity, CourseListCache, CoursekitHttp, type HostIdentity, layerHostAuth, Readiness, RequestLogger, ViewerResolver } from "../src/index.ts"
import { normalizePrefix, stripPrefix } from "../src/edge/RequestPath.ts"

const token = "mount-test-admin-token"
const services = () =>
  Layer.mergeAll(
    Readiness.layer([]),
    AdminTokens.layer([Redacted.make(token)]),
    ViewerResolver.layerAnonymousOnly,
    CourseListCache.layer({ maxEntries: 100 }),
    RequestLogger.layerSilent
  ).pipe(Layer.provideMerge(MemoryCoursekit.layerMemory()))
const admin = { authorization: `Bearer ${token}`, "content-type": "application/json" }

/** Serves `listener` on 127.0.0.1 for the scope; answers its base URL. */
const serveNode = (listener: (request: IncomingMessage, response: ServerResponse) => void) =>
  Effect.acquireRelease(
    Effect.promise(() =>
      new Promise<Server>((resolve) => {
        const server = createServer(listener)
        server.listen(0, "127.0.0.1", () => resolve(server))
      })
    ),
    (server) => Effect.promise(() => new Promise<void>((done) => server.close(() => done())))
  ).pipe(Effect.map((server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}`))

/** Creates three courses and walks the list two at a time through its `Link` headers. */
const exercise = (send: (path: string, init?: RequestInit) => Promise<Response>, prefix: string) =>
  Effect.promise(async () => {
    const created: Array<Response> = []
    for (const title of ["One", "Two", "Three"]) {
      created.push(await send(`${prefix}/courses`, { method: "POST", headers: admin, body: JSON.stringify({ title, content_html: "<p>x</p>" }) }))
    }
    const first = await send(`${prefix}/courses?limit=2`)
    const link = first.headers.get("link")
    const next = link === null ? undefined : /^<([^>]+)>/.exec(link)?.[1]
    const second = next === undefined ? undefined : await send(next)
    return {
      statuses: created.map((response) => response.status),
      locations: created.map((response) => response.headers.get("location")),
      firstPage: ((await first.json()) as Array<{ title: string }>).map((course) => course.title),
      next,
      secondPage: second === undefined ? [] : ((await second.json()) as Array<{ title: string }>).map((course) => course.title)
    }
  })

describe("mounting under a prefix", () => {
  it("normalizes prefixes and refuses what cannot be one", () => {
    assert.strictEqual(normalizePrefix(undefined), "")
    assert.strictEqual(normalizePrefix("/"), "")
    assert.strictEqual(normalizePrefix("api/coursekit/"), "/api/coursekit")
    for (const bad of ["/a b", "/api?x=1", "/api/../admin", "/api#x"]) {
      assert.throws(() => normalizePrefix(bad), /cannot be a mount prefix/)
    }
    assert.strictEqual(stripPrefix("/api/courses?x=1", "/api"), "/courses?x=1")
    assert.strictEqual(stripPrefix("/api", "/api"), "/")
    assert.strictEqual(stripPrefix("/api?x", "/api"), "/?x")
    assert.isUndefined(stripPrefix("/apix/courses", "/api"))
    assert.isUndefined(stripPrefix("/courses", "/api"))
  })

  it.effect("Web handler: routes under the prefix, links carry it, other paths are 404", () =>
    Effect.gen(function*() {
      const { handler, dispose } = CoursekitHttp.webHandler(services(), { prefix: "/api/coursekit/" })
      const send = (path: string, init?: RequestInit) => handler(new Request(`http://host.example${path}`, init))
      const walked = yield* exercise(send, "/api/coursekit")
      assert.deepStrictEqual(walked.statuses, [201, 201, 201])
      assert.match(walked.locations[0]!, /^\/api\/coursekit\/courses\/\d+$/)
      assert.deepStrictEqual(walked.firstPage, ["One", "Two"])
      assert.match(walked.next!, /^\/api\/coursekit\/courses\?cursor=\d+&limit=2$/)
      assert.deepStrictEqual(walked.secondPage, ["Three"])
      for (const outside of ["/courses", "/api/coursekitx/courses", "/api"]) {
        const response = yield* Effect.promise(() => send(outside))
        assert.strictEqual(response.status, 404, outside)
        assert.strictEqual(response.headers.get("content-type"), "application/problem+json")
      }
      const openapi = yield* Effect.promise(() => send("/api/coursekit/openapi.json"))
      assert.strictEqual(openapi.status, 200)
      yield* Effect.promise(dispose)
    }))

  it.effect("under a prefix the course list keeps its ETag and answers 304 to If-None-Match", () =>
    Effect.gen(function*() {
      const { handler, dispose } = CoursekitHttp.webHandler(services(), { prefix: "/kit" })
      const first = yield* Effect.promise(() => handler(new Request("http://host/kit/courses?limit=5")))
      const etag = first.headers.get("etag")
      assert.isNotNull(etag)
      const again = yield* Effect.promise(() => handler(new Request("http://host/kit/courses?limit=5", { headers: { "if-none-match": etag! } })))
      assert.strictEqual(again.status, 304)
      yield* Effect.promise(dispose)
    }))

  it.effect("Node listener: the same over node:http, with a body and a 404 outside", () =>
    Effect.gen(function*() {
      const mounted = CoursekitHttp.nodeHandler(services(), { prefix: "/coursekit" })
      yield* Effect.promise(() => mounted.ready)
      const base = yield* serveNode((request, response) => mounted.handler(request, response))
      const walked = yield* exercise((path, init) => fetch(`${base}${path}`, init), "/coursekit")
      assert.deepStrictEqual(walked.statuses, [201, 201, 201])
      assert.match(walked.locations[2]!, /^\/coursekit\/courses\/\d+$/)
      assert.deepStrictEqual(walked.secondPage, ["Three"])
      const outside = yield* Effect.promise(() => fetch(`${base}/elsewhere`))
      assert.strictEqual(outside.status, 404)
      assert.include(yield* Effect.promise(() => outside.text()), "mounted under /coursekit")
      yield* Effect.promise(mounted.dispose)
    }).pipe(Effect.scoped))

  it.effect("Node listener: a request outside the prefix goes to next; Express' originalUrl routes", () =>
    Effect.gen(function*() {
      const mounted = CoursekitHttp.nodeHandler(services(), { prefix: "/coursekit" })
      yield* Effect.promise(() => mounted.ready)
      const hostSaw: Array<string> = []
      const base = yield* serveNode((request, response) => {
        // What Express' app.use("/coursekit", handler) does: strip url, keep originalUrl.
        const original = request.url ?? "/"
        if (original.startsWith("/coursekit")) {
          Object.assign(request, { originalUrl: original, url: original.slice("/coursekit".length) || "/" })
        }
        mounted.handler(request, response, () => {
          hostSaw.push(original)
          response.writeHead(200, { "content-type": "text/plain" }).end("host page")
        })
      })
      const hostPage = yield* Effect.promise(() => fetch(`${base}/about`).then((response) => response.text()))
      assert.strictEqual(hostPage, "host page")
      assert.deepStrictEqual(hostSaw, ["/about"])
      const list = yield* Effect.promise(() => fetch(`${base}/coursekit/courses`))
      assert.strictEqual(list.status, 200)
      yield* Effect.promise(mounted.dispose)
    }).pipe(Effect.scoped))

  it.effect("Node listener: services that cannot start reject ready, and requests get 503", () =>
    Effect.gen(function*() {
      const broken = Layer.mergeAll(services(), Layer.effectDiscard(Effect.fail(new Error("database is down"))))
      const mounted = CoursekitHttp.nodeHandler(broken as unknown as ReturnType<typeof services>)
      const error = yield* Effect.promise(() => mounted.ready.then(() => undefined, (error: unknown) => error))
      assert.include(String(error), "database is down")
      const base = yield* serveNode((request, response) => mounted.handler(request, response))
      const response = yield* Effect.promise(() => fetch(`${base}/courses`))
      assert.strictEqual(response.status, 503)
      yield* Effect.promise(mounted.dispose)
    }).pipe(Effect.scoped))

})

describe("who reads the catalogue", () => {
  it.effect("is decided once per request, by the list cache and the API together", () =>
    Effect.gen(function*() {
      let asked = 0
      const countingAccess = Layer.succeed(AdminAccess, AdminAccess.of({
        isAdmin: () => Effect.sync(() => {
          asked++
          return false
        })
      }))
      const { handler, dispose } = CoursekitHttp.webHandler(
        Layer.mergeAll(Readiness.layer([]), countingAccess, ViewerResolver.layerAnonymousOnly, CourseListCache.layer({ maxEntries: 100 }), RequestLogger.layerSilent)
          .pipe(Layer.provideMerge(MemoryCoursekit.layerMemory()))
      )
      const get = (path: string) => Effect.promise(() => handler(new Request(`http://host${path}`)).then((response) => response.status))
      // A miss: the cache asks, then the API would ask again.
      assert.strictEqual(yield* get("/courses"), 200)
      assert.strictEqual(asked, 1)
      assert.strictEqual(yield* get("/courses"), 200)
      assert.strictEqual(asked, 2, "a hit asks once too")
      assert.strictEqual(yield* get("/courses/1"), 404)
      assert.strictEqual(asked, 3)
      yield* Effect.promise(dispose)
    }))
})

describe("the host's own authentication", () => {
  // The host's sessions: a cookie names the user; "root" is an admin.
  const hostServices = () =>
    Layer.mergeAll(Readiness.layer([]), layerHostAuth, CourseListCache.layer({ maxEntries: 100 }), RequestLogger.layerSilent).pipe(
      Layer.provideMerge(MemoryCoursekit.layerMemory())
    )
  const identityFromCookie = (cookie: string | null | undefined): HostIdentity => {
    const user = /session=([a-z]+)/.exec(cookie ?? "")?.[1]
    if (user === "broken") throw new Error("session store down")
    return user === undefined ? anonymousIdentity : { viewer: signedInViewer(UserId.make(user)), admin: user === "root" }
  }
  const json = { "content-type": "application/json" }
  const signIn = "Sign in to use this endpoint: the app's own login decides admin access to Coursekit."
  const noAdminRights = "The signed-in user has no admin rights in this app; the app's own login decides admin access to Coursekit."
  /** A refusal that speaks of the host's login: the status, the exact detail, no word of Coursekit's tokens. */
  const assertHostRefusal = (reply: { status: number; body: string }, status: number, detail: string) => {
    assert.strictEqual(reply.status, status)
    assert.deepStrictEqual(JSON.parse(reply.body), { type: "about:blank", title: status === 401 ? "Unauthorized" : "Forbidden", status, detail })
    assert.notMatch(reply.body, /bearer|admin token|ADMIN_TOKENS|viewer JWT/i)
  }

  it.effect("Web handler: admin and viewer follow the host's session, not bearer tokens", () =>
    Effect.gen(function*() {
      const { handler, dispose } = CoursekitHttp.webHandler(hostServices(), {
        prefix: "/kit",
        identify: (request) => identityFromCookie(request.headers.get("cookie"))
      })
      const send = (path: string, cookie?: string, init: RequestInit = {}) =>
        Effect.promise(async () => {
          const response = await handler(new Request(`http://host${path}`, { ...init, headers: { ...json, ...(cookie === undefined ? {} : { cookie }) } }))
          return { status: response.status, body: await response.text() }
        })
      const body = JSON.stringify({ title: "Host course", content_html: "<p>Intro</p>" })
      const created = yield* send("/kit/courses", "session=root", { method: "POST", body })
      assert.strictEqual(created.status, 201)
      const course = JSON.parse(created.body)
      assertHostRefusal(yield* send("/kit/courses", "session=alice", { method: "POST", body }), 403, noAdminRights)
      assertHostRefusal(yield* send("/kit/courses", undefined, { method: "POST", body }), 401, signIn)
      assertHostRefusal(yield* send("/kit/admin/media", "session=alice"), 403, noAdminRights)
      // A bearer token means nothing here: the host decides, and says so.
      const bearer = yield* Effect.promise(async () => {
        const response = await handler(new Request("http://host/kit/courses", { method: "POST", body, headers: { ...json, authorization: "Bearer anything" } }))
        return { status: response.status, body: await response.text() }
      })
      assertHostRefusal(bearer, 401, signIn)

      yield* send(`/kit/courses/${course.id}/lessons`, "session=root", {
        method: "POST",
        body: JSON.stringify({ title: "Locked", content_html: "<p>Only for buyers</p>", is_preview: false })
      })
      const asAlice = () => send(`/kit/public/courses/${course.slug}`, "session=alice")
      assert.strictEqual(JSON.parse((yield* asAlice()).body).lessons[0].access, "locked")
      assert.strictEqual((yield* send(`/kit/admin/courses/${course.id}/purchases/alice`, "session=root", { method: "PUT" })).status, 200)
      const bought = JSON.parse((yield* asAlice()).body)
      assert.strictEqual(bought.purchased, true)
      assert.strictEqual(bought.lessons[0].content_html, "<p>Only for buyers</p>")

      // The host's admins read the catalogue as admins: drafts too, never from the public cache.
      const draft = JSON.parse((yield* send("/kit/courses", "session=root", { method: "POST", body: JSON.stringify({ title: "Host draft", content_html: "", status: "draft" }) })).body)
      const idsFor = (cookie?: string) =>
        send(`/kit/courses?cursor=${course.id}&limit=50`, cookie).pipe(Effect.map((reply) => JSON.parse(reply.body).map((item: { id: number }) => item.id)))
      assert.deepStrictEqual(yield* idsFor(), [course.id])
      assert.deepStrictEqual(yield* idsFor("session=root"), [course.id, draft.id])
      assert.deepStrictEqual(yield* idsFor("session=alice"), [course.id])
      assert.strictEqual((yield* send(`/kit/courses/${draft.id}`, "session=root")).status, 200)
      assert.strictEqual((yield* send(`/kit/courses/${draft.id}`, "session=alice")).status, 404)
      assertHostRefusal(yield* send("/kit/courses?status=draft", "session=alice"), 403, noAdminRights)
      assertHostRefusal(yield* send("/kit/courses?status=draft"), 401, signIn)

      // identify runs only where a route needs the identity: health is still served.
      assert.strictEqual((yield* send("/kit/", "session=broken")).status, 200)
      // The catalogue asks (admins see drafts), as a write does: a failing identify is a 500 that hides its error.
      for (const init of [{}, { method: "POST", body }]) {
        const failed = yield* send("/kit/courses", "session=broken", init)
        assert.strictEqual(failed.status, 500)
        assert.notInclude(failed.body, "session store down")
        assert.strictEqual(JSON.parse(failed.body).title, "Internal Server Error")
      }
      yield* Effect.promise(dispose)
    }))

  it.effect("Coursekit's sign-in is not the host's: the session endpoints answer 404 saying the app's login decides, for admins too", () =>
    Effect.gen(function*() {
      const { handler, dispose } = CoursekitHttp.webHandler(hostServices(), {
        prefix: "/kit",
        identify: (request) => identityFromCookie(request.headers.get("cookie"))
      })
      const detail = "Coursekit keeps no sessions here: the app's own login decides admin access, and the Studio uses the app's session as it is."
      for (const [method, cookie] of [["POST", "session=root"], ["POST", undefined], ["DELETE", "session=root"], ["DELETE", undefined]] as const) {
        const reply = yield* Effect.promise(async () => {
          const response = await handler(new Request("http://host/kit/admin/session", {
            method,
            headers: { ...json, ...(cookie === undefined ? {} : { cookie }), origin: "http://host" },
            ...(method === "POST" ? { body: JSON.stringify({ token: "anything" }) } : {})
          }))
          return { status: response.status, setCookie: response.headers.getSetCookie(), body: await response.json() }
        })
        assert.strictEqual(reply.status, 404, `${method} ${cookie}`)
        assert.deepStrictEqual(reply.body, { type: "about:blank", title: "Not Found", status: 404, detail })
        assert.deepStrictEqual(reply.setCookie, [])
      }
      yield* Effect.promise(dispose)
    }))

  it.effect("Node listener: the same with the host's IncomingMessage", () =>
    Effect.gen(function*() {
      const mounted = CoursekitHttp.nodeHandler(hostServices(), { identify: (request) => identityFromCookie(request.headers.cookie) })
      const base = yield* serveNode((request, response) => mounted.handler(request, response))
      const create = (cookie?: string) =>
        Effect.promise(async () => {
          const response = await fetch(`${base}/courses`, {
            method: "POST",
            headers: { ...json, ...(cookie === undefined ? {} : { cookie }) },
            body: JSON.stringify({ title: "Node host", content_html: "" })
          })
          return { status: response.status, body: await response.text() }
        })
      assert.strictEqual((yield* create("session=root")).status, 201)
      assertHostRefusal(yield* create("session=alice"), 403, noAdminRights)
      assertHostRefusal(yield* create(), 401, signIn)
      assert.strictEqual((yield* create("session=broken")).status, 500)
      yield* Effect.promise(mounted.dispose)
    }).pipe(Effect.scoped))

  it.effect("an AdminAccess of the host's own that gives no wording gets one that names no way of signing in", () =>
    Effect.gen(function*() {
      const own = Layer.mergeAll(
        Readiness.layer([]),
        Layer.succeed(AdminAccess, AdminAccess.of({ isAdmin: () => Effect.succeed(false) })),
        Layer.succeed(ViewerResolver, ViewerResolver.of({
          vary: ["cookie"],
          resolve: (request) => Effect.succeed(request.headers.cookie === undefined ? anonymousViewer : signedInViewer(UserId.make("alice")))
        })),
        CourseListCache.layer({ maxEntries: 100 }),
        RequestLogger.layerSilent
      ).pipe(Layer.provideMerge(MemoryCoursekit.layerMemory()))
      const { handler, dispose } = CoursekitHttp.webHandler(own)
      const send = (cookie?: string) =>
        Effect.promise(async () => {
          const response = await handler(new Request("http://host/admin/media", { headers: cookie === undefined ? {} : { cookie } }))
          return { status: response.status, body: await response.text() }
        })
      assertHostRefusal(yield* send(), 401, "This operation needs admin access.")
      assertHostRefusal(yield* send("session=alice"), 403, "This operation needs admin access, which the signed-in viewer does not have.")
      yield* Effect.promise(dispose)
    }))
})

