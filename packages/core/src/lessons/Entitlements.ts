/**
 * The entitlements port: when did this user buy this course, if they did? The public
 * course asks it on every request (no cache), so a purchase or a refund counts at once;
 * the instant starts the course's drip (`available_after_days`). A host that does not
 * know when a purchase was made answers the Unix epoch: drip then releases every lesson. The PostgreSQL
 * adapter answers from the purchases table; an embedding app can answer from its
 * payment provider instead.
 *
 * @since 0.1.0
 */
import { Context, type DateTime, type Effect } from "effect"
import type { CourseId } from "../catalogue/Course.ts"
import type { PersistenceError } from "../shared/PersistenceError.ts"
import type { UserId } from "../shared/Viewer.ts"

export class Entitlements extends Context.Service<Entitlements, {
  /** The instant of the user's purchase of the course; undefined when they have none. */
  purchasedAt(userId: UserId, courseId: CourseId): Effect.Effect<DateTime.Utc | undefined, PersistenceError>
}>()("@coursekit/core/Entitlements") {}
