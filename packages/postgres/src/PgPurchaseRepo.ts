/**
 * `PurchaseRepo` on PostgreSQL (and PGlite), and `Entitlements` answered from the same
 * table: one primary-key read per question, no cache, so a grant or a revoke counts for
 * the very next request on every instance. `PgPublicCourseRows` reads the same table
 * within the public course's own statement.
 *
 * @since 0.1.0
 */
import {
  type CourseId,
  CourseNotFound,
  Entitlements,
  PurchaseRecord,
  PurchaseRepo,
  type UserId
} from "@coursekit/core"
import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { bounded, PgDeadline } from "./PgDeadline.ts"
import { PgSchema, tablesOf } from "./PgSchema.ts"
import { storeFailures } from "./PgErrors.ts"

/** Rows decoded through the record's schema: a row that does not decode is a store failure. */
const decodePurchases = Schema.decodeUnknownEffect(Schema.Array(PurchaseRecord))

/** The PostgreSQL purchase repository; needs an `effect/sql` `SqlClient`. */
export const make = () => Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const timeout = yield* PgDeadline
  const t = tablesOf(sql, yield* PgSchema)

  const grant = Effect.fn("PurchaseRepo.grant")(function*(courseId: CourseId, userId: UserId) {
    // Inserted only if the course exists; a concurrent grant of the pair makes this one a no-op.
    const inserted = yield* sql`
      INSERT INTO ${t.purchases} (user_id, course_id)
      SELECT ${userId}, id FROM ${t.courses} WHERE id = ${courseId}
      ON CONFLICT (user_id, course_id) DO NOTHING
      RETURNING *
    `.pipe(Effect.flatMap(decodePurchases), storeFailures("record purchase"))
    if (inserted.length > 0) return inserted[0]!
    const existing = yield* sql`
      SELECT * FROM ${t.purchases} WHERE user_id = ${userId} AND course_id = ${courseId}
    `.pipe(Effect.flatMap(decodePurchases), storeFailures("read purchase"))
    if (existing.length === 0) return yield* new CourseNotFound({ id: courseId })
    return existing[0]!
  }, bounded(timeout, "record purchase"))

  const revoke = Effect.fn("PurchaseRepo.revoke")(function*(courseId: CourseId, userId: UserId) {
    const rows = yield* sql`DELETE FROM ${t.purchases} WHERE user_id = ${userId} AND course_id = ${courseId} RETURNING 1`.pipe(
      storeFailures("remove purchase")
    )
    return rows.length > 0
  }, bounded(timeout, "remove purchase"))

  // A span without `Effect.fn`'s call-site capture: every signed-in view of a course asks.
  const find = Effect.fnUntraced(function*(courseId: CourseId, userId: UserId) {
    const rows = yield* sql`SELECT * FROM ${t.purchases} WHERE user_id = ${userId} AND course_id = ${courseId}`.pipe(
      Effect.flatMap(decodePurchases),
      storeFailures("read purchase")
    )
    return rows[0]
  }, bounded(timeout, "read purchase"), Effect.withSpan("PurchaseRepo.find"))
  const has = (courseId: CourseId, userId: UserId) => Effect.map(find(courseId, userId), (purchase) => purchase !== undefined)

  const buyers = Effect.fn("PurchaseRepo.buyers")(function*(courseId: CourseId) {
    return yield* sql`SELECT * FROM ${t.purchases} WHERE course_id = ${courseId} ORDER BY user_id`.pipe(
      Effect.flatMap(decodePurchases),
      storeFailures("list purchases")
    )
  }, bounded(timeout, "list purchases"))

  return { grant, revoke, has, find, buyers }
})

/**
 * `PurchaseRepo` and `Entitlements` over the `SqlClient` in context. The public course's
 * one-statement reader, which reads the same table, is `PgPublicCourseRows.layer`.
 */
export const layer: Layer.Layer<PurchaseRepo | Entitlements, never, SqlClient.SqlClient> = Layer.effectContext(
  Effect.gen(function*() {
    const repo = yield* make()
    const entitlements = Entitlements.of({
      purchasedAt: (userId, courseId) => Effect.map(repo.find(courseId, userId), (purchase) => purchase?.purchased_at)
    })
    return Context.make(PurchaseRepo, PurchaseRepo.of(repo)).pipe(Context.add(Entitlements, entitlements))
  })
)
