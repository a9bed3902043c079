/**
 * Handlers of the AI endpoints of the admin API, over the core's {@link ContentGenerator}.
 *
 * @since 0.1.0
 */
import { ContentGenerator } from "@coursekit/core"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { CoursekitApi } from "./CoursekitApi.ts"
import { problems } from "./DomainProblems.ts"

/** The `ai` group. Needs `ContentGenerator`. */
export const layer = HttpApiBuilder.group(CoursekitApi, "ai", Effect.fn(function*(handlers) {
  const generator = yield* ContentGenerator
  return handlers.handleAll({
    generate: ({ payload }) => problems(generator.generate(payload))
  })
}))
