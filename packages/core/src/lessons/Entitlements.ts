/**
 * The entitlements port: has this user bought this course? The public course asks it on
 * every request (no cache), so a purchase or a refund counts at once. The PostgreSQL
 * adapter answers from the purchases table; an embedding app can answer from its
 * payment provider instead.
 *
 * @since 0.1.0
 */
import { Context, type Effect } from "effect"
import type { CourseId } from "../catalogue/Course.ts"
import type { PersistenceError } from "../shared/PersistenceError.ts"
import type { UserId } from "../shared/Viewer.ts"

export class Entitlements extends Context.Service<Entitlements, {
  hasPurchased(userId: UserId, courseId: CourseId): Effect.Effect<boolean, PersistenceError>
}>()("@coursekit/core/Entitlements") {}
