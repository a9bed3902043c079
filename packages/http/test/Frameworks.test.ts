/**
 * Coursekit inside Express, Fastify and Hono apps: mounted under a prefix next to the
 * host's own routes, the host's session deciding admin and viewer, bodies read by
 * Coursekit, and the layers released with the host. Real servers on loopback for Express
 * and Fastify; Hono through its `fetch`.
 */
import { MemoryCoursekit, signedInViewer, UserId } from "@coursekit/core"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import express from "express"
import Fastify from "fastify"
import { Hono } from "hono"
import type { AddressInfo } from "node:net"
import { anonymousIdentity, CoursekitHttp, type HostIdentity } from "../src/index.ts"
import { coursekit } from "../src/frameworks/Express.ts"
import { coursekitPlugin } from "../src/frameworks/Fastify.ts"
import { coursekitHono } from "../src/frameworks/Hono.ts"

/** The layers a host gives, with a flag set when they are released. */
const hostLayers = (released: { value: boolean }) =>
  CoursekitHttp.layerHostServices(MemoryCoursekit.layerMemory()).pipe(
    Layer.merge(Layer.effectDiscard(Effect.addFinalizer(() => Effect.sync(() => (released.value = true)))))
  )

/** The host's sessions: `x-user` names the user (a stand-in for the host's cookie session); "root" is an admin. */
const identityOf = (user: string | undefined): HostIdentity =>
  user === undefined || user === "" ? anonymousIdentity : { viewer: signedInViewer(UserId.make(user)), admin: user === "root" }

type Send = (path: string, init?: { method?: string; user?: string; body?: unknown }) => Promise<{ status: number; body: any; headers: Headers }>

const fetchSend = (base: string): Send => async (path, init = {}) => {
  const response = await fetch(`${base}${path}`, {
    method: init.method ?? "GET",
    headers: { "content-type": "application/json", ...(init.user === undefined ? {} : { "x-user": init.user }) },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) })
  })
  const text = await response.text()
  return { status: response.status, headers: response.headers, body: (response.headers.get("content-type") ?? "").includes("json") ? JSON.parse(text) : text }
}

/** What every framework must get right, against `send`. */
const exerciseHost = (send: Send, prefix: string) =>
  Effect.promise(async () => {
    const created = await send(`${prefix}/courses`, { method: "POST", user: "root", body: { title: "Embedded course", content_html: "<p>Hi<script>x()</script></p>" } })
    assert.strictEqual(created.status, 201, JSON.stringify(created.body))
    assert.strictEqual(created.body.content_html, "<p>Hi</p>")
    assert.strictEqual(created.headers.get("location"), `${prefix}/courses/${created.body.id}`)
    // Refused in terms of the host's login, not of Coursekit's tokens.
    const forbidden = await send(`${prefix}/courses`, { method: "POST", user: "alice", body: { title: "No", content_html: "" } })
    assert.strictEqual(forbidden.status, 403)
    assert.strictEqual(forbidden.body.detail, "The signed-in user has no admin rights in this app; the app's own login decides admin access to Coursekit.")
    const unauthorized = await send(`${prefix}/courses`, { method: "POST", body: { title: "No", content_html: "" } })
    assert.strictEqual(unauthorized.status, 401)
    assert.strictEqual(unauthorized.body.detail, "Sign in to use this endpoint: the app's own login decides admin access to Coursekit.")
    const invalid = await send(`${prefix}/courses`, { method: "POST", user: "root", body: { title: "", content_html: "", extra: 1 } })
    assert.strictEqual(invalid.status, 400)
    assert.strictEqual(invalid.headers.get("content-type"), "application/problem+json")

    await send(`${prefix}/courses/${created.body.id}/lessons`, {
      method: "POST",
      user: "root",
      body: { title: "Paid", content_html: "<p>Paid words</p>", is_preview: false }
    })
    const locked = await send(`${prefix}/public/courses/${created.body.slug}`, { user: "alice" })
    assert.strictEqual(locked.body.lessons[0].access, "locked")
    assert.notInclude(JSON.stringify(locked.body), "Paid words")
    assert.strictEqual((await send(`${prefix}/admin/courses/${created.body.id}/purchases/alice`, { method: "PUT", user: "root" })).status, 200)
    const bought = await send(`${prefix}/public/courses/${created.body.slug}`, { user: "alice" })
    assert.strictEqual(bought.body.lessons[0].access, "purchased")
    assert.strictEqual(bought.headers.get("cache-control"), "private, no-cache")

    // A known path with another method: 405 with Allow, through the framework too.
    const notAllowed = await send(`${prefix}/courses/${created.body.id}`, { method: "POST", user: "root" })
    assert.strictEqual(notAllowed.status, 405)
    assert.strictEqual(notAllowed.headers.get("allow"), "GET, HEAD, PATCH, DELETE")
    assert.strictEqual(notAllowed.headers.get("content-type"), "application/problem+json")
    assert.strictEqual(notAllowed.body.detail, `POST is not allowed on /courses/${created.body.id}; it allows GET, HEAD, PATCH, DELETE.`)
    assert.strictEqual((await send(`${prefix}/nope`, { method: "POST" })).status, 404)

    // The host's own routes are still the host's.
    const hostPage = await send("/hello")
    assert.strictEqual(hostPage.status, 200)
    assert.strictEqual(hostPage.body, "host says hello")
  })

describe("framework adapters", () => {
  it.live("Express: app.use(kit) under a prefix, next to the host's routes and session", () =>
    Effect.gen(function*() {
      const released = { value: false }
      const kit = coursekit(hostLayers(released), {
        prefix: "/api/coursekit",
        identify: (request) => identityOf(request.header("x-user"))
      })
      const app = express()
      app.get("/hello", (_request, response) => void response.type("text/plain").send("host says hello"))
      app.use(kit)
      // A body parser after Coursekit is fine: Coursekit answered first.
      app.use(express.json())
      yield* Effect.promise(() => kit.ready)
      const server = app.listen(0, "127.0.0.1")
      // The wiring the adapter documents: the host server's close releases Coursekit.
      let releasing: Promise<void> | undefined
      server.on("close", () => {
        releasing = kit.dispose()
      })
      yield* Effect.promise(() => new Promise<void>((resolve) => server.once("listening", () => resolve())))
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
      yield* exerciseHost(fetchSend(base), "/api/coursekit")
      assert.isFalse(released.value, "the layers are held while the host serves")
      yield* Effect.promise(() => new Promise<void>((resolve) => server.close(() => resolve())))
      assert.isDefined(releasing, "the host's close event did not dispose Coursekit")
      yield* Effect.promise(() => releasing!)
      assert.isTrue(released.value, "the layers were released with the host")
    }))

  it.live("Express: a body parser mounted before Coursekit is reported, not silently broken", () =>
    Effect.gen(function*() {
      const kit = coursekit(hostLayers({ value: false }), { identify: (request) => identityOf(request.header("x-user")) })
      const app = express()
      app.use(express.json())
      app.use(kit)
      const errors: Array<string> = []
      app.use((error: Error, _request: express.Request, response: express.Response, _next: express.NextFunction) => {
        errors.push(error.message)
        response.status(500).send("host error page")
      })
      const server = app.listen(0, "127.0.0.1")
      yield* Effect.promise(() => new Promise<void>((resolve) => server.once("listening", () => resolve())))
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
      const reply = yield* Effect.promise(() => fetchSend(base)("/courses", { method: "POST", user: "root", body: { title: "x", content_html: "" } }))
      assert.strictEqual(reply.status, 500)
      assert.match(errors[0]!, /before body parsers/)
      yield* Effect.promise(() => new Promise<void>((resolve) => server.close(() => resolve())))
      yield* Effect.promise(() => kit.dispose())
    }))

  it.live("Fastify: a plugin registered with a prefix; the layers close with the app", () =>
    Effect.gen(function*() {
      const released = { value: false }
      const app = Fastify()
      app.get("/hello", async (_request, reply) => reply.type("text/plain").send("host says hello"))
      yield* Effect.promise(() =>
        app.register(coursekitPlugin(hostLayers(released), { identify: (request) => identityOf(request.headers["x-user"] as string | undefined) }), {
          prefix: "/kit"
        })
      )
      const base = yield* Effect.promise(() => app.listen({ port: 0, host: "127.0.0.1" }))
      yield* exerciseHost(fetchSend(base), "/kit")
      // The app's own 404 outside the plugin.
      assert.strictEqual((yield* Effect.promise(() => fetchSend(base)("/elsewhere"))).status, 404)
      assert.isFalse(released.value, "the layers are held while the app serves")
      yield* Effect.promise(() => app.close())
      assert.isTrue(released.value, "the layers were released by onClose")
    }))

  it.live("Hono: routes under a prefix, the identity from Hono's context; dispose releases the layers", () =>
    Effect.gen(function*() {
      const released = { value: false }
      const app = new Hono<{ Variables: { user: string | undefined } }>()
      // The host's auth middleware puts the user in the context.
      app.use("*", async (context, next) => {
        context.set("user", context.req.header("x-user"))
        await next()
      })
      app.get("/hello", (context) => context.text("host says hello"))
      const kit = coursekitHono(hostLayers(released), {
        prefix: "/kit",
        identify: (context) => identityOf(context.get("user") as string | undefined)
      })
      app.route("/", kit.app)
      const send: Send = async (path, init = {}) => {
        const response = await app.fetch(
          new Request(`http://host${path}`, {
            method: init.method ?? "GET",
            headers: { "content-type": "application/json", ...(init.user === undefined ? {} : { "x-user": init.user }) },
            ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) })
          })
        )
        const text = await response.text()
        return { status: response.status, headers: response.headers, body: (response.headers.get("content-type") ?? "").includes("json") ? JSON.parse(text) : text }
      }
      yield* exerciseHost(send, "/kit")
      // Hono has no lifecycle of its own: the host calls dispose when it shuts down.
      assert.isFalse(released.value, "the layers are held while the app serves")
      yield* Effect.promise(() => kit.dispose())
      assert.isTrue(released.value, "the layers were released by dispose")
    }))
})
