/**
 * Handlers of the health endpoints.
 *
 * @since 0.1.0
 */
import { Deadline } from "@coursekit/core"
import { Duration, Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { CoursekitApi, NotReady } from "../CoursekitApi.ts"
import { Readiness } from "./Readiness.ts"

/**
 * How long one readiness probe may take before it counts as down. The answer comes at
 * the deadline: a late probe is interrupted without waiting for its clean-up.
 */
export const readinessTimeout = Duration.seconds(2)

/** The `system` group: `GET /` and `GET /health/ready`. */
export const layer = HttpApiBuilder.group(CoursekitApi, "system", Effect.fn(function*(handlers) {
  const { checks } = yield* Readiness
  return handlers.handleAll({
    welcome: () => Effect.succeed({ message: "Welcome to Coursekit, the course content service." }),
    ready: () =>
      Effect.gen(function*() {
        const results = yield* Effect.forEach(checks, ({ check, name }) =>
          check.pipe(
            Deadline.within(readinessTimeout, () => new Error(`no answer within ${Duration.format(readinessTimeout)}`)),
            Effect.match({
              onFailure: (error) => ({
                name,
                status: "down" as const,
                detail: error instanceof Error ? error.message : String(error)
              }),
              onSuccess: () => ({ name, status: "up" as const })
            })
          ), { concurrency: "unbounded" })
        const down = results.filter((result) => result.status === "down")
        if (down.length > 0) {
          return yield* new NotReady({
            detail: `Not ready: ${down.map((result) => result.name).join(", ")} did not answer.`,
            checks: results
          })
        }
        return { status: "ready" as const, checks: results }
      })
  })
}))
