/**
 * Handlers of the learners' endpoints, over the core's {@link Learning}: a learner's own
 * progress (a signed-in viewer's; anonymous is a 401), and a course's learners (admins).
 *
 * @since 0.3.0
 */
import { defaultPageSize, Learning, type UserId } from "@coursekit/core"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { CurrentViewer } from "../auth/ViewerAuth.ts"
import { CoursekitApi } from "../CoursekitApi.ts"
import { MountPrefix } from "../edge/RequestPath.ts"
import { problems } from "../problems/DomainProblems.ts"
import { Unauthorized } from "../problems/Problems.ts"
import { withNextLink } from "./NextPageLink.ts"
import { userOfCursor } from "../PathParams.ts"

/** The signed-in viewer's id; anonymous is a 401: progress is a learner's own. */
const learner = Effect.gen(function*() {
  const viewer = yield* CurrentViewer
  if (viewer._tag !== "User") {
    return yield* new Unauthorized({ detail: "Progress is a signed-in learner's: sign in (a viewer token, or the app's login) first." })
  }
  const id: UserId = viewer.id
  return id
})

/** The `learning` group. Needs `Learning`. */
export const layer = HttpApiBuilder.group(CoursekitApi, "learning", Effect.fn(function*(handlers) {
  const learning = yield* Learning
  const prefix = yield* MountPrefix
  return handlers.handleAll({
    recordProgress: ({ params, payload }) =>
      Effect.flatMap(learner, (userId) => problems(learning.record(userId, params.lesson_id, payload))),
    courseProgress: ({ params }) => Effect.flatMap(learner, (userId) => problems(learning.courseProgress(userId, params.id))),
    myCourses: ({ query, request }) =>
      Effect.gen(function*() {
        const userId = yield* learner
        const limit = query.limit ?? defaultPageSize
        const page = yield* problems(learning.learnerCourses(userId, { cursor: query.cursor, limit }))
        return withNextLink(page, { prefix, url: request.url, limit })
      }),
    learners: ({ params, query, request }) =>
      Effect.gen(function*() {
        const limit = query.limit ?? defaultPageSize
        const page = yield* problems(learning.learners(params.id, { cursor: userOfCursor(query.cursor), limit }))
        return withNextLink(page, { prefix, url: request.url, limit })
      })
  })
}))
