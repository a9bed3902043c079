/**
 * A known path asked with a method it does not answer is a 405 problem with `Allow`; an
 * unknown path stays 404. Checked for every endpoint of the contract (read from the
 * contract itself, independently of the router), `/openapi.json`, `/docs` and routes a
 * host adds, at the root and under a prefix, as a Web handler and a Node listener.
 */
import { MemoryCoursekit } from "@coursekit/core"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { HttpRouter, HttpServerResponse } from "effect/http"
import { HttpApi } from "effect/http-api"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { AdminTokens, CourseListCache, CoursekitApi, CoursekitHttp, Readiness, RequestLogger, ViewerResolver } from "../src/index.ts"

// Routes a host adds beside Coursekit's, as the local store does (`PUT /storage/*`, `GET /files/*`).
const hostRoutes = Layer.mergeAll(
  HttpRouter.add("PUT", "/storage/*", HttpServerResponse.empty({ status: 200 })),
  HttpRouter.add("GET", "/files/*", HttpServerResponse.text("file"))
)

const services = () =>
  Layer.mergeAll(
    Readiness.layer([]),
    AdminTokens.layer([]),
    ViewerResolver.layerAnonymousOnly,
    CourseListCache.layerDisabled,
    RequestLogger.layerSilent,
    hostRoutes
  ).pipe(Layer.provideMerge(MemoryCoursekit.layerMemory()))

const order = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"]
const tried = ["GET", "POST", "PUT", "PATCH", "DELETE"]

/**
 * Every path of the contract with the methods served there, plus HEAD wherever GET is:
 * those of every route whose pattern matches it (`/courses/search` is also a
 * `/courses/:id` for PATCH and DELETE).
 */
const contractPaths = () => {
  const paths = new Map<string, Set<string>>()
  HttpApi.reflect(CoursekitApi, {
    onGroup: () => {},
    onEndpoint: ({ endpoint }) => {
      const methods = paths.get(endpoint.path) ?? new Set<string>()
      methods.add(endpoint.method)
      if (endpoint.method === "GET") methods.add("HEAD")
      paths.set(endpoint.path, methods)
    }
  })
  const patterns = [...paths].map(([path, methods]) => ({ pattern: new RegExp(`^${path.replace(/:[a-z_]+/g, "[^/]+")}$`), methods }))
  return [...paths.keys()].map((path) => {
    // A parameter value that no parameter schema accepts: the path matches all the same.
    const concrete = path.replace(/:[a-z_]+/g, "not%20an%20id")
    const methods = new Set(patterns.filter(({ pattern }) => pattern.test(concrete)).flatMap(({ methods }) => [...methods]))
    return { path: concrete, allow: order.filter((method) => methods.has(method)).join(", ") }
  })
}

type Send = (method: string, path: string) => Promise<{ status: number; allow: string | null; type: string | null; body: any }>

const read = async (response: Response) => {
  const type = response.headers.get("content-type")
  const text = await response.text()
  return { status: response.status, allow: response.headers.get("allow"), type, body: type?.includes("json") && text !== "" ? JSON.parse(text) : text }
}

/** Asserts a 405 problem for `method path` that allows exactly `allow`. */
const assertNotAllowed = async (send: Send, method: string, path: string, allow: string, shown = path) => {
  const reply = await send(method, path)
  assert.strictEqual(reply.status, 405, `${method} ${path}: ${JSON.stringify(reply.body)}`)
  assert.strictEqual(reply.allow, allow, `${method} ${path}`)
  assert.strictEqual(reply.type, "application/problem+json")
  assert.deepStrictEqual(reply.body, {
    type: "about:blank",
    title: "Method Not Allowed",
    status: 405,
    detail: `${method} is not allowed on ${shown}; it allows ${allow}.`
  })
}

/** What must hold wherever the API is mounted (`prefix`: `""` or `/kit`). */
const exercise = (send: Send, prefix: string) =>
  Effect.promise(async () => {
    const paths = contractPaths()
    assert.isAbove(paths.length, 10)
    for (const { allow, path } of paths) {
      for (const method of tried.filter((method) => !allow.split(", ").includes(method))) {
        await assertNotAllowed(send, method, `${prefix}${path}`, allow, path)
      }
    }
    // The examples users meet first.
    await assertNotAllowed(send, "DELETE", `${prefix}/`, "GET, HEAD", "/")
    await assertNotAllowed(send, "PUT", `${prefix}/courses`, "GET, HEAD, POST", "/courses")
    await assertNotAllowed(send, "POST", `${prefix}/courses/1`, "GET, HEAD, PATCH, DELETE", "/courses/1")
    await assertNotAllowed(send, "POST", `${prefix}/courses/1/`, "GET, HEAD, PATCH, DELETE", "/courses/1/")
    await assertNotAllowed(send, "PUT", `${prefix}/courses/1?x=1`, "GET, HEAD, PATCH, DELETE", "/courses/1")
    await assertNotAllowed(send, "POST", `${prefix}/courses/search?q=x`, "GET, HEAD, PATCH, DELETE", "/courses/search")
    // Beside the contract: the document, the explorer, the host's routes.
    await assertNotAllowed(send, "POST", `${prefix}/openapi.json`, "GET, HEAD", "/openapi.json")
    await assertNotAllowed(send, "DELETE", `${prefix}/docs`, "GET, HEAD", "/docs")
    await assertNotAllowed(send, "POST", `${prefix}/files/x`, "GET, HEAD", "/files/x")
    await assertNotAllowed(send, "GET", `${prefix}/storage/a/b.png`, "PUT", "/storage/a/b.png")
    // What is served still is.
    assert.strictEqual((await send("GET", `${prefix}/courses/abc`)).status, 400)
    assert.strictEqual((await send("HEAD", `${prefix}/courses`)).status, 200)
    assert.strictEqual((await send("GET", `${prefix}/files/x`)).body, "file")
    // Unknown paths stay 404, whatever the method.
    for (const [method, path] of [["GET", "/nope"], ["POST", "/nope"], ["GET", "/courses/1/nope"], ["DELETE", "/admin"]] as const) {
      const reply = await send(method, `${prefix}${path}`)
      assert.strictEqual(reply.status, 404, `${method} ${path}`)
      assert.isNull(reply.allow)
      assert.strictEqual(reply.type, "application/problem+json")
      assert.strictEqual(reply.body.detail, `No route for ${method} ${path}.`)
    }
  })

describe("a wrong method on a known path", () => {
  it.effect("Web handler at the root: 405 with Allow for every route, 404 for unknown paths", () =>
    Effect.gen(function*() {
      const { handler, dispose } = CoursekitHttp.webHandler(services())
      yield* exercise(async (method, path) => read(await handler(new Request(`http://host${path}`, { method }))), "")
      yield* Effect.promise(dispose)
    }))

  it.effect("Web handler under a prefix: the same, and outside the prefix 404", () =>
    Effect.gen(function*() {
      const { handler, dispose } = CoursekitHttp.webHandler(services(), { prefix: "/kit" })
      const send: Send = async (method, path) => read(await handler(new Request(`http://host${path}`, { method })))
      yield* exercise(send, "/kit")
      const outside = yield* Effect.promise(() => send("POST", "/courses"))
      assert.strictEqual(outside.status, 404)
      assert.isNull(outside.allow)
      yield* Effect.promise(dispose)
    }))

  it.effect("Node listener under a prefix", () =>
    Effect.gen(function*() {
      const mounted = CoursekitHttp.nodeHandler(services(), { prefix: "/kit" })
      yield* Effect.promise(() => mounted.ready)
      const server = yield* Effect.acquireRelease(
        Effect.promise(() =>
          new Promise<Server>((resolve) => {
            const server = createServer((request, response) => mounted.handler(request, response))
            server.listen(0, "127.0.0.1", () => resolve(server))
          })
        ),
        (server) => Effect.promise(() => new Promise<void>((done) => server.close(() => done())))
      )
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
      yield* exercise(async (method, path) => read(await fetch(`${base}${path}`, { method })), "/kit")
      yield* Effect.promise(mounted.dispose)
    }).pipe(Effect.scoped))

  it.effect("HEAD of a path with no GET is a 405 too", () =>
    Effect.gen(function*() {
      const { handler, dispose } = CoursekitHttp.webHandler(services())
      const reply = yield* Effect.promise(() => handler(new Request("http://host/admin/ai/generate", { method: "HEAD" })))
      assert.strictEqual(reply.status, 405)
      assert.strictEqual(reply.headers.get("allow"), "POST")
      yield* Effect.promise(dispose)
    }))
})
