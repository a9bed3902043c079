/**
 * The core's services by role: the use cases (what the HTTP routes serve, what a host
 * calls) and the ports (what adapters provide). `MemoryCoursekit.layerMemory` provides
 * both in memory; `@coursekit/server`'s `DefaultServices` on PostgreSQL and a store.
 *
 * @since 0.1.0
 */
import type { Courses } from "./Courses.ts"
import type { ContentGenerator } from "./ContentGenerator.ts"
import type { CourseRepo } from "./CourseRepo.ts"
import type { Entitlements } from "./Entitlements.ts"
import type { LessonRepo } from "./LessonRepo.ts"
import type { Lessons } from "./Lessons.ts"
import type { MediaRepo } from "./MediaRepo.ts"
import type { ObjectStore } from "./ObjectStore.ts"
import type { ProviderCooldowns } from "./ProviderCooldowns.ts"
import type { PublicCourses } from "./PublicCourses.ts"
import type { PurchaseRepo } from "./PurchaseRepo.ts"
import type { Purchases } from "./Purchases.ts"
import type { UploadRepo } from "./UploadRepo.ts"
import type { Uploads } from "./Uploads.ts"

/** The use cases of the core. */
export type UseCases = Courses | Uploads | Lessons | PublicCourses | Purchases | ContentGenerator

/** The ports of the core. */
export type Ports = CourseRepo | LessonRepo | UploadRepo | MediaRepo | PurchaseRepo | Entitlements | ObjectStore | ProviderCooldowns
