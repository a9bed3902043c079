/**
 * `AdminSessions` behind the Web handler, on in-memory layers with a session store the
 * test watches: a cookie the secret did not sign costs no store read, a store that fails
 * answers 503 (never 500), a secret too short is refused; and the OpenAPI document's
 * account of the cookie. The sessions over real HTTP are `packages/server`'s tests.
 */
import { AdminSessionRepo, MemoryCoursekit, PersistenceError } from "@coursekit/core"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Layer, Redacted } from "effect"
import { newSession } from "../src/auth/SessionCookie.ts"
import { AdminSessions, CourseListCache, CoursekitHttp, Readiness, RequestLogger, ViewerResolver } from "../src/index.ts"

const token = "sessions-test-admin-token"
const secret = Redacted.make("sessions-test-secret-0123456789-abcdef")
const origin = "http://host"

/** The routes with sessions over `repo`, as the standalone server wires them. */
const handlerOver = (repo: Layer.Layer<AdminSessionRepo>) =>
  CoursekitHttp.webHandler(
    Layer.mergeAll(
      Readiness.layer([]),
      AdminSessions.layer({ tokens: [Redacted.make(token)], secret, publicUrl: () => origin }).pipe(Layer.provide(repo)),
      ViewerResolver.layerAnonymousOnly,
      CourseListCache.layer({ maxEntries: 100 }),
      RequestLogger.layerSilent
    ).pipe(Layer.provideMerge(MemoryCoursekit.layerMemory()))
  )

const send = (handler: (request: Request) => Promise<Response>, path: string, init: RequestInit = {}) =>
  Effect.promise(async () => {
    const response = await handler(new Request(`${origin}${path}`, init))
    const text = await response.text()
    return { status: response.status, headers: response.headers, body: text === "" ? undefined : JSON.parse(text) }
  })

const signIn = (handler: (request: Request) => Promise<Response>) =>
  Effect.map(
    send(handler, "/admin/session", { method: "POST", headers: { origin, "content-type": "application/json" }, body: JSON.stringify({ token }) }),
    (reply) => ({ ...reply, cookie: reply.headers.getSetCookie()[0]?.split(";")[0] })
  )

describe("AdminSessions", () => {
  it.effect("a cookie the secret did not sign is refused without asking the store; a signed one is asked once per request", () =>
    Effect.gen(function*() {
      let uses = 0
      const counting = Layer.effect(AdminSessionRepo, Effect.map(Effect.service(AdminSessionRepo), (memory) =>
        AdminSessionRepo.of({ ...memory, use: (key, window) => Effect.suspend(() => (uses++, memory.use(key, window))) }))).pipe(
          Layer.provide(AdminSessionRepo.layerMemory)
        )
      const { handler, dispose } = handlerOver(counting)
      const { cookie } = yield* signIn(handler)
      assert.isDefined(cookie)
      const [name, value] = cookie!.split("=") as [string, string]
      const forged = `${name}=${value.slice(0, -2)}${value.endsWith("AA") ? "BB" : "AA"}`
      assert.strictEqual((yield* send(handler, "/admin/media", { headers: { cookie: forged } })).status, 401)
      assert.strictEqual((yield* send(handler, "/courses?status=draft", { headers: { cookie: forged } })).status, 401)
      assert.strictEqual(uses, 0)
      // A write: the admin check asks whether, then as whom; the store is read once.
      const created = yield* send(handler, "/courses", {
        method: "POST",
        headers: { cookie: cookie!, origin, "content-type": "application/json" },
        body: JSON.stringify({ title: "Counted", content_html: "" })
      })
      assert.strictEqual(created.status, 201)
      assert.strictEqual(uses, 1)
      yield* Effect.promise(dispose)
    }))

  it.effect("a session store that fails answers 503 with Retry-After for sign-in, sign-out and the cookie's requests, never 500", () =>
    Effect.gen(function*() {
      const down = Effect.fail(new PersistenceError({ operation: "session", cause: new Error("session store down") }))
      const failing = Layer.succeed(AdminSessionRepo, AdminSessionRepo.of({ create: () => down, use: () => down, remove: () => down }))
      const { handler, dispose } = handlerOver(failing)
      const signedIn = yield* signIn(handler)
      assert.strictEqual(signedIn.status, 503)
      assert.strictEqual(signedIn.headers.get("retry-after"), "2")
      assert.deepStrictEqual(signedIn.headers.getSetCookie(), [])
      // A cookie signed with the secret, whose session the store cannot be asked about.
      const cookie = `coursekit_session=${newSession(secret).value}`
      for (const [path, init] of [
        ["/admin/media", {}],
        ["/courses", {}],
        ["/admin/session", { method: "DELETE", headers: { origin } }]
      ] as const) {
        const reply = yield* send(handler, path, { ...init, headers: { ...("headers" in init ? init.headers : {}), cookie } })
        assert.strictEqual(reply.status, 503, path)
        assert.strictEqual(reply.body.detail, "The database did not complete session. Try again shortly.")
      }
      yield* Effect.promise(dispose)
    }))

  it.effect("a secret shorter than 32 characters is refused when the layer is built", () =>
    Effect.gen(function*() {
      const exit = yield* Layer.build(
        AdminSessions.layer({ tokens: [], secret: Redacted.make("x".repeat(31)), publicUrl: () => origin }).pipe(Layer.provide(AdminSessionRepo.layerMemory))
      ).pipe(Effect.scoped, Effect.exit)
      assert.isTrue(Exit.isFailure(exit))
      assert.match(String(Exit.isFailure(exit) ? exit.cause : ""), /The session secret has 31 characters; it needs at least 32/)
      const built = yield* Layer.build(
        AdminSessions.layer({ tokens: [], secret: Redacted.make("x".repeat(32)), publicUrl: () => origin }).pipe(Layer.provide(AdminSessionRepo.layerMemory))
      ).pipe(Effect.scoped, Effect.exit)
      assert.isTrue(Exit.isSuccess(built))
    }))
})

describe("the session cookie in the OpenAPI document", () => {
  it.effect("is a cookie scheme, the alternative to the bearer token on every admin operation; the session endpoints describe their Set-Cookie", () =>
    Effect.gen(function*() {
      const { handler, dispose } = CoursekitHttp.webHandler(CoursekitHttp.layerHostServices(MemoryCoursekit.layerMemory()))
      const document = yield* Effect.promise(async () => (await handler(new Request("http://host/openapi.json"))).json() as Promise<Record<string, any>>)
      yield* Effect.promise(dispose)
      assert.deepInclude(document.components.securitySchemes.adminSession, { type: "apiKey", in: "cookie", name: "coursekit_session" })
      let admin = 0
      for (const operations of Object.values(document.paths as Record<string, Record<string, any>>)) {
        for (const operation of Object.values(operations)) {
          const security: Array<Record<string, unknown>> = operation.security ?? []
          if (!security.some((requirement) => "adminToken" in requirement)) continue
          admin++
          assert.deepStrictEqual(security, [{ adminToken: [] }, { adminSession: [] }], operation.operationId)
        }
      }
      assert.isAtLeast(admin, 30)
      const session = document.paths["/admin/session"]
      assert.deepStrictEqual(session.post.security ?? [], [])
      assert.match(session.post.responses["200"].headers["Set-Cookie"].description, /^coursekit_session=<session>; Path=.*HttpOnly; SameSite=Strict/)
      assert.match(session.delete.responses["204"].headers["Set-Cookie"].description, /^coursekit_session=; Max-Age=0/)
      assert.deepStrictEqual(Object.keys(session.post.responses).sort(), ["200", "400", "401", "403", "404", "500", "503"])
      assert.deepStrictEqual(Object.keys(session.delete.responses).sort(), ["204", "400", "403", "404", "500", "503"])
    }))
})
