/**
 * Handlers of the purchase endpoints of the admin API, over the core's {@link Purchases}.
 *
 * @since 0.1.0
 */
import { Purchases } from "@coursekit/core"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { CoursekitApi } from "../CoursekitApi.ts"
import { problems } from "../problems/DomainProblems.ts"

/** The `purchases` group. Needs `Purchases`. */
export const layer = HttpApiBuilder.group(CoursekitApi, "purchases", Effect.fn(function*(handlers) {
  const purchases = yield* Purchases
  return handlers.handleAll({
    grant: ({ params }) => problems(purchases.grant(params.id, params.user_id)),
    revoke: ({ params }) => problems(purchases.revoke(params.id, params.user_id))
  })
}))
