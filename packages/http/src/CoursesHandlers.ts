/**
 * Handlers of the course catalogue endpoints, over the core's {@link Courses}.
 *
 * @since 0.1.0
 */
import { Courses, defaultPageSize } from "@coursekit/core"
import { Effect } from "effect"
import { HttpApiBuilder, HttpApiSchema } from "effect/http-api"
import { CoursekitApi } from "./CoursekitApi.ts"
import { problems } from "./DomainProblems.ts"
import { withNextLink } from "./NextPageLink.ts"
import { MountPrefix, pathOf } from "./RequestPath.ts"

// Links are the mount prefix and the path the request came in on, so they stay right
// wherever the host mounts the API.
/** The `courses` group. Needs `Courses`. */
export const layer = HttpApiBuilder.group(CoursekitApi, "courses", Effect.fn(function*(handlers) {
  const catalogue = yield* Courses
  const prefix = yield* MountPrefix
  return handlers.handleAll({
    list: ({ query, request }) => {
      const limit = query.limit ?? defaultPageSize
      return catalogue.list({ cursor: query.cursor, limit }).pipe(
        Effect.map((page) => withNextLink(page, { prefix, url: request.url, limit })),
        problems
      )
    },
    get: ({ params }) => problems(catalogue.get(params.id)),
    create: ({ payload, request }) =>
      catalogue.create(payload).pipe(
        Effect.map((course) =>
          HttpApiSchema.withHeaders({
            body: course,
            headers: { location: `${prefix}${pathOf(request.url)}/${course.id}` }
          })
        ),
        problems
      ),
    update: ({ params, payload }) => problems(catalogue.update(params.id, payload)),
    delete: ({ params }) => problems(catalogue.delete(params.id))
  })
}))
