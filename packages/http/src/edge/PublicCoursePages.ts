/**
 * The public course page, `GET /public/courses/{slug}`, answered at the edge: the page
 * every student opens, served without the typed API's routing, path decoding and
 * middleware around it (issue #18: they were the largest part of its cost). The answer
 * is the API's, byte for byte — the same use case (`PublicCourses.view`), the same ETag,
 * caching headers and problems (`PublicCourseHandlers.answerOf`, `problemResponseOf`), the course
 * written as it is rather than through Schema's encoding, which gives the same JSON
 * (`PublicCourseHandlers.plainJsonOf`); the tests compare the two for every kind of caller.
 *
 * Only a request the API would answer the same way is served here: a `GET` whose slug
 * has a slug's shape (`Slug.pattern`, at most `Slug.maxLength`; nothing to decode, so
 * the router would read the same slug), from a viewer the `ViewerResolver` accepts.
 * Everything else — another method, another path, a percent-encoded or malformed slug,
 * credentials that do not verify, an identity provider that cannot be asked — goes to
 * the API, which answers it (400, 401, 503, …) as it always has.
 *
 * @since 0.2.0
 */
import { PublicCourses, Slug } from "@coursekit/core"
import { Context, Effect, Layer } from "effect"
import type { HttpServerRequest, HttpServerResponse } from "effect/http"
import { contractRoutes } from "../ContractRoutes.ts"
import { problemResponseOf } from "../problems/DomainProblems.ts"
import { answerOf, plainJsonOf } from "../handlers/PublicCourseHandlers.ts"
import { pathOf } from "./RequestPath.ts"
import { resolveOnce } from "../auth/RequestViewer.ts"
import { ViewerResolver } from "../auth/ViewerResolver.ts"

/** The slug a request for a public course names, or undefined when the API should answer it. */
const slugOf = (request: HttpServerRequest.HttpServerRequest): string | undefined => {
  if (request.method !== "GET") return undefined
  // A fragment is not sent by clients; one that is goes to the API, which knows what to make of it.
  if (request.url.includes("#")) return undefined
  const slug = contractRoutes.publicCourseSlugOf(pathOf(request.url))
  return slug !== undefined && slug.length <= Slug.maxLength && Slug.pattern.test(slug) ? slug : undefined
}

/** Serves the public course page around the routes (see `EdgeMiddleware`). */
export class PublicCoursePages extends Context.Service<PublicCoursePages, {
  /** The public course for a `GET /public/courses/{slug}` it can answer as the API would; other requests go to `app`. */
  around<E, R>(
    request: HttpServerRequest.HttpServerRequest,
    app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
  ): Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
}>()("@coursekit/http/PublicCoursePages") {
  /** Over `PublicCourses` and the `ViewerResolver` in context. */
  static readonly layer: Layer.Layer<PublicCoursePages, never, PublicCourses | ViewerResolver> = Layer.effect(
    PublicCoursePages,
    Effect.gen(function*() {
      const courses = yield* PublicCourses
      const viewers = yield* ViewerResolver
      const vary = viewers.vary.join(", ")
      // Matches, not a generator: this runs on the page every student opens.
      const around = <E, R>(
        request: HttpServerRequest.HttpServerRequest,
        app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
      ): Effect.Effect<HttpServerResponse.HttpServerResponse, E, R> => {
        const slug = slugOf(request)
        if (slug === undefined) return app
        return Effect.matchEffect(resolveOnce(viewers, request), {
          // Credentials the API refuses, or cannot check now: it answers them (401, 503)
          // with the same resolution, not a second one.
          onFailure: () => app,
          onSuccess: (viewer) =>
            Effect.matchEffect(courses.view(slug, viewer), {
              onFailure: problemResponseOf,
              onSuccess: (course) => Effect.succeed(answerOf(plainJsonOf(course), viewer, request.headers["if-none-match"], vary))
            })
        })
      }
      return PublicCoursePages.of({ around })
    })
  )
}
