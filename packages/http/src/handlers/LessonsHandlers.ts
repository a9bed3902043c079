/**
 * Handlers of the lesson and section endpoints of the admin API, over the core's
 * {@link Lessons}.
 *
 * @since 0.1.0
 */
import { defaultRevisionPageSize, Lessons } from "@coursekit/core"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { CoursekitApi } from "../CoursekitApi.ts"
import { problems } from "../problems/DomainProblems.ts"
import { MountPrefix } from "../edge/RequestPath.ts"
import { creatorEdit, editOf, withEtag } from "./EditHeaders.ts"
import { withNextLink } from "./NextPageLink.ts"
import { revisionOfCursor } from "../PathParams.ts"

/** The `lessons` group. Needs `Lessons`. */
export const layer = HttpApiBuilder.group(CoursekitApi, "lessons", Effect.fn(function*(handlers) {
  const lessons = yield* Lessons
  const prefix = yield* MountPrefix
  return handlers.handleAll({
    create: ({ params, payload }) =>
      Effect.flatMap(creatorEdit, (edit) => problems(lessons.create(params.id, payload, edit))).pipe(Effect.flatMap(withEtag)),
    list: ({ params }) => problems(lessons.list(params.id)),
    update: ({ params, payload, request }) =>
      Effect.gen(function*() {
        const edit = yield* editOf(request)
        return yield* problems(lessons.update(params.id, params.lesson_id, payload, edit)).pipe(Effect.flatMap(withEtag))
      }),
    delete: ({ params, request }) => Effect.flatMap(editOf(request), (edit) => problems(lessons.delete(params.id, params.lesson_id, edit))),
    revisions: ({ params, query, request }) =>
      Effect.gen(function*() {
        const limit = query.limit ?? defaultRevisionPageSize
        const page = yield* problems(lessons.revisions(params.id, params.lesson_id, { cursor: revisionOfCursor(query.cursor), limit }))
        return withNextLink(page, { prefix, url: request.url, limit })
      }),
    revision: ({ params }) => problems(lessons.revision(params.id, params.lesson_id, params.revision_id)),
    restore: ({ params, request }) =>
      Effect.gen(function*() {
        const edit = yield* editOf(request)
        return yield* problems(lessons.restore(params.id, params.lesson_id, params.revision_id, edit)).pipe(Effect.flatMap(withEtag))
      })
  })
}))

/** The `sections` group. Needs `Lessons`. */
export const layerSections = HttpApiBuilder.group(CoursekitApi, "sections", Effect.fn(function*(handlers) {
  const lessons = yield* Lessons
  return handlers.handleAll({
    create: ({ params, payload }) => problems(lessons.createSection(params.id, payload)).pipe(Effect.flatMap(withEtag)),
    list: ({ params }) => problems(lessons.listSections(params.id)),
    update: ({ params, payload, request }) =>
      Effect.gen(function*() {
        const edit = yield* editOf(request)
        return yield* problems(lessons.updateSection(params.id, params.section_id, payload, edit)).pipe(Effect.flatMap(withEtag))
      }),
    delete: ({ params, query, request }) =>
      Effect.flatMap(editOf(request), (edit) => problems(lessons.deleteSection(params.id, params.section_id, query.lessons === "detach", edit)))
  })
}))
