/**
 * A purchase: a user may see every lesson of a course.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { CourseId } from "./Course.ts"
import { UserId } from "./Viewer.ts"

/** A recorded purchase, as `PUT /admin/courses/{id}/purchases/{user_id}` answers it. */
export const Purchase = Schema.Struct({
  course_id: CourseId,
  user_id: UserId,
  purchased_at: Schema.DateTimeUtcFromString.annotate({ description: "When it was first recorded." })
}).annotate({ identifier: "Purchase" })
export type Purchase = typeof Purchase.Type
