/**
 * Handler of the public course endpoint, over the core's {@link PublicCourses}, with its
 * caching rules: an ETag of the exact body; anonymous answers `public, no-cache` (shared
 * caches may keep them but must revalidate every time, so a lesson locked a second ago
 * is never served from a cache), a signed-in viewer's `private, no-cache`; `Vary` names
 * the headers the viewer was resolved from.
 *
 * @since 0.1.0
 */
import { PublicCourse, PublicCourses, type Viewer } from "@coursekit/core"
import { Effect, Schema } from "effect"
import { HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { createHash } from "node:crypto"
import { CoursekitApi } from "./CoursekitApi.ts"
import { problems } from "./DomainProblems.ts"
import { CurrentViewer } from "./ViewerAuth.ts"
import { ViewerResolver } from "./ViewerResolver.ts"
import { matchesIfNoneMatch } from "./CourseListCache.ts"

const encode = Schema.encodeSync(PublicCourse)
const utf8 = new TextEncoder()

/**
 * The response for `course` as `viewer` sees it: the encoded course with its ETag and
 * caching headers, or 304 when `ifNoneMatch` names that ETag. The API's handler and the
 * edge (`PublicCoursePages`) both answer with it.
 */
export const answerOf = (
  course: PublicCourse,
  viewer: Viewer,
  ifNoneMatch: string | undefined,
  vary: string
): HttpServerResponse.HttpServerResponse => {
  // Encoded to bytes once: the hash and the response read the same bytes (a string
  // would be encoded by each; the answer is 40–80 KB).
  const body = utf8.encode(JSON.stringify(encode(course)))
  const etag = `"${createHash("sha256").update(body).digest("base64url").slice(0, 27)}"`
  const headers = {
    etag,
    "cache-control": viewer._tag === "Anonymous" ? "public, no-cache" : "private, no-cache",
    vary
  }
  if (matchesIfNoneMatch(ifNoneMatch, etag)) return HttpServerResponse.empty({ status: 304, headers })
  return HttpServerResponse.uint8Array(body, { contentType: "application/json", headers })
}

/** The `public` group. Needs `PublicCourses` and the `ViewerResolver` (for `Vary`). */
export const layer = HttpApiBuilder.group(CoursekitApi, "public", Effect.fn(function*(handlers) {
  const courses = yield* PublicCourses
  const vary = (yield* ViewerResolver).vary.join(", ")
  return handlers.handle("course", ({ params, request }) =>
    Effect.gen(function*() {
      const viewer = yield* CurrentViewer
      const course = yield* problems(courses.view(params.slug, viewer))
      return answerOf(course, viewer, request.headers["if-none-match"], vary)
    }))
}))
