/**
 * Handlers of the course catalogue endpoints, over the core's {@link Courses}.
 *
 * @since 0.1.0
 */
import { adminAudience, Courses, defaultPageSize, defaultRevisionPageSize, publicAudience, searchAudience } from "@coursekit/core"
import { Effect } from "effect"
import { HttpApiBuilder, HttpApiSchema } from "effect/http-api"
import { CurrentAudience } from "../auth/CatalogueAuth.ts"
import { CoursekitApi } from "../CoursekitApi.ts"
import { problems } from "../problems/DomainProblems.ts"
import { withNextLink } from "./NextPageLink.ts"
import { MountPrefix, pathOf } from "../edge/RequestPath.ts"
import { creatorEdit, editOf, withEtag } from "./EditHeaders.ts"
import { courseOfCursor, revisionOfCursor } from "../PathParams.ts"

// Links are the mount prefix and the path the request came in on, so they stay right
// wherever the host mounts the API.
/** The `courses` group. Needs `Courses`. */
export const layer = HttpApiBuilder.group(CoursekitApi, "courses", Effect.fn(function*(handlers) {
  const catalogue = yield* Courses
  const prefix = yield* MountPrefix
  return handlers.handleAll({
    list: ({ query, request }) =>
      Effect.gen(function*() {
        const limit = query.limit ?? defaultPageSize
        // CatalogueAuth refused `status` to anyone but admins.
        const audience = (yield* CurrentAudience) === "admin" ? adminAudience(query.status) : publicAudience
        const page = yield* problems(catalogue.list({ cursor: courseOfCursor(query.cursor), limit, audience }))
        return withNextLink(page, { prefix, url: request.url, limit, keep: { status: query.status } })
      }),
    search: ({ query, request }) =>
      Effect.gen(function*() {
        const limit = query.limit ?? defaultPageSize
        // Without status, the students' search: every reader, admins too, gets the same
        // public results. With it, the authors' search (CatalogueAuth refused it to anyone but admins).
        const audience = query.status !== undefined && (yield* CurrentAudience) === "admin" ? searchAudience(query.status) : publicAudience
        const page = yield* problems(catalogue.search({ query: query.q, cursor: query.cursor, limit, audience }))
        return withNextLink(page, { prefix, url: request.url, limit, keep: { q: query.q, status: query.status } })
      }),
    get: ({ params }) =>
      Effect.gen(function*() {
        if ((yield* CurrentAudience) !== "admin") return yield* problems(catalogue.get(params.id, publicAudience))
        // Admins write with If-Match: their answer carries the version's ETag.
        return yield* problems(catalogue.get(params.id, adminAudience())).pipe(Effect.flatMap(withEtag))
      }),
    create: ({ payload, request }) =>
      Effect.flatMap(creatorEdit, (edit) => catalogue.create(payload, edit)).pipe(
        Effect.flatMap(withEtag),
        Effect.map((course) =>
          HttpApiSchema.withHeaders({
            body: course,
            headers: { location: `${prefix}${pathOf(request.url)}/${course.id}` }
          })
        ),
        problems
      ),
    update: ({ params, payload, request }) =>
      Effect.gen(function*() {
        const edit = yield* editOf(request)
        return yield* problems(catalogue.update(params.id, payload, edit)).pipe(Effect.flatMap(withEtag))
      }),
    delete: ({ params, request }) => Effect.flatMap(editOf(request), (edit) => problems(catalogue.delete(params.id, edit))),
    revisions: ({ params, query, request }) =>
      Effect.gen(function*() {
        const limit = query.limit ?? defaultRevisionPageSize
        const page = yield* problems(catalogue.revisions(params.id, { cursor: revisionOfCursor(query.cursor), limit }))
        return withNextLink(page, { prefix, url: request.url, limit })
      }),
    revision: ({ params }) => problems(catalogue.revision(params.id, params.revision_id)),
    restore: ({ params, request }) =>
      Effect.gen(function*() {
        const edit = yield* editOf(request)
        return yield* problems(catalogue.restore(params.id, params.revision_id, edit)).pipe(Effect.flatMap(withEtag))
      })
  })
}))
