/**
 * The rows behind the public course, read together: the course visible now by its slug,
 * whether the viewer bought it, and its lessons visible now as that viewer may read them
 * (`LessonRepo.listForViewer`: a locked lesson's body and video key are not read).
 *
 * `PublicCourses` reads through whichever reader the layers provide; which one is the
 * composer's choice, made where the layers are wired:
 * - {@link PublicCourseRows.layerFromPorts}: the ports one by one, three questions for
 *   a signed-in viewer (the course, the `Entitlements` port, the lessons). Use it with an
 *   `Entitlements` of the host's own (its payment provider), and in memory.
 * - an adapter's reader that asks all of it at once from its own tables
 *   (`@coursekit/postgres`'s `PgPublicCourseRows.layer`: one statement, one snapshot,
 *   the purchase read from its purchases table, so it goes with `PgPurchaseRepo.layer`'s
 *   `Entitlements`).
 *
 * @since 0.2.0
 */
import { Context, Effect, Layer } from "effect"
import { CoursePublicView, CourseRecord, type CourseSlugNotFound } from "../catalogue/Course.ts"
import { CourseRepo } from "../catalogue/CourseRepo.ts"
import { Entitlements } from "./Entitlements.ts"
import type { ViewerLesson } from "./Lesson.ts"
import { LessonRepo } from "./LessonRepo.ts"
import type { PersistenceError } from "../shared/PersistenceError.ts"
import * as RecordVariants from "../shared/RecordVariants.ts"
import type { Viewer } from "../shared/Viewer.ts"

/** What the public course shows of the course row, and the key its thumbnail's URL is made from. */
export const PublicCourseRow = RecordVariants.storedFor(CourseRecord, CoursePublicView, ["thumbnail_key"])
export type PublicCourseRow = typeof PublicCourseRow.Type

/** The course, whether the viewer bought it, and its lessons in outline order. */
export interface PublicCourseRead {
  readonly course: PublicCourseRow
  readonly purchased: boolean
  readonly lessons: ReadonlyArray<ViewerLesson>
}

/** Reads the rows behind the public course of `slug` for `viewer`. */
export type ReadPublicCourse = (slug: string, viewer: Viewer) => Effect.Effect<PublicCourseRead, CourseSlugNotFound | PersistenceError>

export class PublicCourseRows extends Context.Service<PublicCourseRows, {
  readonly read: ReadPublicCourse
}>()("@coursekit/core/PublicCourseRows") {
  /** The ports' read: the course, then the entitlement (signed in only), then the lessons. */
  static readonly layerFromPorts: Layer.Layer<PublicCourseRows, never, CourseRepo | LessonRepo | Entitlements> = Layer.effect(
    PublicCourseRows,
    Effect.gen(function*() {
      return PublicCourseRows.of({ read: readFromPorts(yield* CourseRepo, yield* LessonRepo, yield* Entitlements) })
    })
  )
}

/** The ports' read (see {@link PublicCourseRows.layerFromPorts}). */
export const readFromPorts = (
  courses: CourseRepo["Service"],
  lessons: LessonRepo["Service"],
  entitlements: Entitlements["Service"]
): ReadPublicCourse =>
  Effect.fnUntraced(function*(slug: string, viewer: Viewer) {
    const course = yield* courses.findBySlug(slug, { visibleOnly: true })
    // Asked on every request: a purchase or a refund counts at once.
    const purchasedAt = viewer._tag === "User" ? yield* entitlements.purchasedAt(viewer.id, course.id) : undefined
    return { course, purchased: purchasedAt !== undefined, lessons: yield* lessons.listForViewer(course.id, purchasedAt ?? null) }
  })
