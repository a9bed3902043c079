import {
  anonymousViewer,
  Courses,
  ContentGenerator,
  CourseRepo,
  Entitlements,
  FileUrl,
  HtmlSanitizer,
  LessonRepo,
  Lessons,
  LlmChain,
  MediaRepo,
  MediaUrls,
  ObjectStore,
  ProviderCooldowns,
  PublicCourseRows,
  PurchaseRepo,
  Purchases,
  Learning,
  ProgressRepo,
  UploadRepo,
  Uploads,
  PublicCourses,
  signedInViewer,
  UserId
} from "@coursekit/core"
import { assert, describe, it } from "@effect/vitest"
import { DateTime, Effect, Layer, Redacted, Schema } from "effect"
import { AdminTokens, CourseListCache, CoursekitHttp, Readiness, RequestLogger, ViewerResolver } from "../src/index.ts"

// An embedding app keeps its own authentication and its own idea of who paid: it
// provides a ViewerResolver that reads its session cookie and an Entitlements backed by
// its payment records, and Coursekit's public course follows them.

const decodeUser = Schema.decodeUnknownSync(UserId)
const sessions = new Map([["session-paid", decodeUser("host-user-1")], ["session-free", decodeUser("host-user-2")]])
const paidByHost = new Set(["host-user-1"])

const HostViewers = Layer.succeed(
  ViewerResolver,
  ViewerResolver.of({
    vary: ["cookie"],
    resolve: (request) => {
      const session = /(?:^|;\s*)session=([^;]+)/.exec(request.headers.cookie ?? "")?.[1]
      const user = session === undefined ? undefined : sessions.get(session)
      return Effect.succeed(user === undefined ? anonymousViewer : signedInViewer(user))
    }
  })
)
const HostEntitlements = Layer.succeed(Entitlements, Entitlements.of({ purchasedAt: (userId) => Effect.succeed(paidByHost.has(userId) ? DateTime.makeUnsafe(0) : undefined) }))

// The core's use cases on memory repositories, except that the public course asks the
// host's entitlements.
const repos = Layer.mergeAll(LessonRepo.layerMemory, PurchaseRepo.layerMemory).pipe(
  Layer.provideMerge(Layer.mergeAll(CourseRepo.layerMemory, UploadRepo.layerMemory, MediaRepo.layerMemory, ObjectStore.layerMemory))
)
const useCases = Layer.mergeAll(
  Courses.layerNoDeps.pipe(Layer.provideMerge(Uploads.layerNoDeps())),
  Lessons.layerNoDeps,
  Purchases.layerNoDeps,
  Learning.layerNoDeps.pipe(Layer.provide(ProgressRepo.layerMemory)),
  // The reader through the ports, so the host's entitlements are the ones asked.
  PublicCourses.layerNoDeps.pipe(Layer.provide(PublicCourseRows.layerFromPorts), Layer.provide(HostEntitlements)),
  // This host uses no language model: generation answers 503.
  ContentGenerator.layerNoDeps().pipe(Layer.provide([LlmChain.layer([]), ProviderCooldowns.layerMemory]))
).pipe(
  Layer.provide(MediaUrls.layer()),
  Layer.provide(repos),
  Layer.provide([FileUrl.layer("https://cdn.host.example"), HtmlSanitizer.layer])
)
const services = Layer.mergeAll(
  useCases,
  HostViewers,
  Readiness.layer([]),
  AdminTokens.layer([Redacted.make("host-admin-token")]),
  CourseListCache.layerDisabled,
  RequestLogger.layerSilent
)

const admin = { authorization: "Bearer host-admin-token", "content-type": "application/json" }

describe("embedding: the host's viewers and entitlements", () => {
  it.effect("the public course follows the host's session and payment records", () =>
    Effect.gen(function*() {
      const { dispose, handler } = CoursekitHttp.webHandler(services)
      const send = (path: string, init: RequestInit = {}) =>
        Effect.promise(async () => {
          const response = await handler(new Request(`http://host${path}`, init))
          return { status: response.status, headers: response.headers, text: await response.text() }
        })
      const course = JSON.parse((yield* send("/courses", { method: "POST", headers: admin, body: JSON.stringify({ title: "Host course", content_html: "" }) })).text)
      const created = yield* send(`/courses/${course.id}/lessons`, {
        method: "POST",
        headers: admin,
        body: JSON.stringify({ title: "Paid", content_html: "<p>HOST-PAID-TEXT</p>" })
      })
      assert.strictEqual(created.status, 201, created.text)
      const asSession = (session?: string) =>
        send(`/public/courses/${course.slug}`, session === undefined ? {} : { headers: { cookie: `theme=dark; session=${session}` } })
      const paid = yield* asSession("session-paid")
      assert.strictEqual(paid.status, 200, paid.text)
      assert.isTrue(JSON.parse(paid.text).purchased)
      assert.include(paid.text, "HOST-PAID-TEXT")
      assert.strictEqual(paid.headers.get("vary"), "cookie")
      assert.strictEqual(paid.headers.get("cache-control"), "private, no-cache")
      for (const session of ["session-free", "no-such-session", undefined]) {
        const reply = yield* asSession(session)
        assert.strictEqual(reply.status, 200, reply.text)
        assert.isFalse(JSON.parse(reply.text).purchased)
        assert.notInclude(reply.text, "HOST-PAID-TEXT")
      }
      yield* Effect.promise(dispose)
    }))
})
