/**
 * Handlers of the Studio's sign-in and sign-out, over {@link AdminSessions}. Where there
 * is none (embedded in an app) both answer 404: the app's own login decides admin access,
 * and the Studio uses the app's session as it is.
 *
 * @since 0.3.0
 */
import { Effect, Option, Redacted } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { AdminSessions } from "../auth/AdminSessions.ts"
import { CoursekitApi } from "../CoursekitApi.ts"
import { NotFound } from "../problems/Problems.ts"

/** The answer where sessions are not Coursekit's to keep. */
const signInElsewhere = new NotFound({
  detail: "Coursekit keeps no sessions here: the app's own login decides admin access, and the Studio uses the app's session as it is."
})

/** The `session` group. Uses `AdminSessions` when the services hold it. */
export const layer = HttpApiBuilder.group(CoursekitApi, "session", Effect.fn(function*(handlers) {
  const sessions = yield* Effect.serviceOption(AdminSessions)
  return handlers.handleAll({
    signIn: ({ payload, request }) =>
      Option.isNone(sessions) ? Effect.fail(signInElsewhere) : sessions.value.signIn(request, Redacted.make(payload.token)),
    signOut: ({ request }) => Option.isNone(sessions) ? Effect.fail(signInElsewhere) : sessions.value.signOut(request)
  })
}))
