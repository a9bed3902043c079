/**
 * Handler of the public course endpoint, over the core's {@link PublicCourses}, with its
 * caching rules: an ETag of the exact body; anonymous answers `public, no-cache` (shared
 * caches may keep them but must revalidate every time, so a lesson locked a second ago
 * is never served from a cache), a signed-in viewer's `private, no-cache`; `Vary` names
 * the headers the viewer was resolved from.
 *
 * @since 0.1.0
 */
import { CoursePreview, PublicCourse, PublicCourses, type Viewer } from "@coursekit/core"
import { Effect, Schema } from "effect"
import { HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { createHash } from "node:crypto"
import { CoursekitApi } from "../CoursekitApi.ts"
import { problems } from "../problems/DomainProblems.ts"
import { CurrentViewer } from "../auth/ViewerAuth.ts"
import { ViewerResolver } from "../auth/ViewerResolver.ts"
import { matchesIfNoneMatch } from "../edge/CourseListCache.ts"

const encode = Schema.encodeSync(PublicCourse)
const encodePreview = Schema.encodeSync(CoursePreview)

/**
 * The course as JSON through the contract's encoding: what the API's handler answers.
 */
export const encodedJsonOf = (course: PublicCourse): string => JSON.stringify(encode(course))

/**
 * The course as JSON written as it is, without Schema's encoding (about 57 µs of the
 * page's CPU for 20 lessons, 2.7 µs per lesson object): every field of `PublicCourse`
 * encodes to itself except `video_url_expires_at`, a `DateTime.Utc`, whose `toJSON` is
 * the ISO string its schema encodes to. The edge answers with it; the tests hold it to
 * {@link encodedJsonOf}, for generated courses (`PublicCourseJson.test.ts`) and for the
 * use case's own (`PublicCoursePages.test.ts`, which also checks its fields' order).
 */
export const plainJsonOf = (course: PublicCourse): string => JSON.stringify(course)

/**
 * The response for the course's JSON as `viewer` sees it, with its ETag (of the body's
 * UTF-8 bytes) and caching headers, or 304 when `ifNoneMatch` names that ETag. The API's
 * handler and the edge (`PublicCoursePages`) both answer with it. The body stays a
 * string: the hash and the socket each encode it natively, cheaper than a copy in bytes.
 */
export const answerOf = (
  json: string,
  viewer: Viewer,
  ifNoneMatch: string | undefined,
  vary: string
): HttpServerResponse.HttpServerResponse => {
  const etag = `"${createHash("sha256").update(json).digest("base64url").slice(0, 27)}"`
  const headers = {
    etag,
    "cache-control": viewer._tag === "Anonymous" ? "public, no-cache" : "private, no-cache",
    vary
  }
  if (matchesIfNoneMatch(ifNoneMatch, etag)) return HttpServerResponse.empty({ status: 304, headers })
  return HttpServerResponse.text(json, { contentType: "application/json", headers })
}

/** The `public` group. Needs `PublicCourses` and the `ViewerResolver` (for `Vary`). */
export const layer = HttpApiBuilder.group(CoursekitApi, "public", Effect.fn(function*(handlers) {
  const courses = yield* PublicCourses
  const vary = (yield* ViewerResolver).vary.join(", ")
  return handlers.handle("course", ({ params, request }) =>
    Effect.gen(function*() {
      const viewer = yield* CurrentViewer
      const course = yield* problems(courses.view(params.slug, viewer))
      return answerOf(encodedJsonOf(course), viewer, request.headers["if-none-match"], vary)
    })).handle("preview", ({ params, query }) =>
      Effect.map(
        problems(courses.preview(params.id, query.as)),
        // An admin's view of drafts: no cache keeps it, as for the admins' catalogue reads.
        (preview) =>
          HttpServerResponse.text(JSON.stringify(encodePreview(preview)), {
            contentType: "application/json",
            headers: { "cache-control": "private, no-store" }
          })
      ))
}))
