/**
 * Handlers of the lesson and section endpoints of the admin API, over the core's
 * {@link Lessons}.
 *
 * @since 0.1.0
 */
import { Lessons } from "@coursekit/core"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { CoursekitApi } from "../CoursekitApi.ts"
import { problems } from "../problems/DomainProblems.ts"

/** The `lessons` group. Needs `Lessons`. */
export const layer = HttpApiBuilder.group(CoursekitApi, "lessons", Effect.fn(function*(handlers) {
  const lessons = yield* Lessons
  return handlers.handleAll({
    create: ({ params, payload }) => problems(lessons.create(params.id, payload)),
    list: ({ params }) => problems(lessons.list(params.id)),
    update: ({ params, payload }) => problems(lessons.update(params.id, params.lesson_id, payload)),
    delete: ({ params }) => problems(lessons.delete(params.id, params.lesson_id))
  })
}))

/** The `sections` group. Needs `Lessons`. */
export const layerSections = HttpApiBuilder.group(CoursekitApi, "sections", Effect.fn(function*(handlers) {
  const lessons = yield* Lessons
  return handlers.handleAll({
    create: ({ params, payload }) => problems(lessons.createSection(params.id, payload)),
    list: ({ params }) => problems(lessons.listSections(params.id)),
    update: ({ params, payload }) => problems(lessons.updateSection(params.id, params.section_id, payload)),
    delete: ({ params, query }) => problems(lessons.deleteSection(params.id, params.section_id, query.lessons === "detach"))
  })
}))
