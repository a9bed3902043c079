/**
 * A purchase: a user may see every lesson of a course.
 *
 * @since 0.1.0
 */
import { CourseId } from "../catalogue/Course.ts"
import * as RecordVariants from "../shared/RecordVariants.ts"
import { UserId } from "../shared/Viewer.ts"

/** A purchase, defined once (see `RecordVariants`). */
export const PurchaseFields = RecordVariants.Struct({
  course_id: RecordVariants.generated(CourseId, ["api"]),
  user_id: RecordVariants.generated(UserId, ["api"]),
  purchased_at: RecordVariants.timestamp(["api"], "When it was first recorded.")
})

/** A purchase as stored. */
export const PurchaseRecord = RecordVariants.extract(PurchaseFields, "stored")
export type PurchaseRecord = typeof PurchaseRecord.Type

/** A recorded purchase, as `PUT /admin/courses/{id}/purchases/{user_id}` answers it. */
export const Purchase = RecordVariants.extract(PurchaseFields, "api").annotate({ identifier: "Purchase" })
export type Purchase = typeof Purchase.Type
