/**
 * The core's services by role: the use cases (what the HTTP routes serve, what a host
 * calls) and the ports (what adapters provide). `MemoryCoursekit.layerMemory` provides
 * both in memory; `@coursekit/server`'s `DefaultServices` on PostgreSQL and a store.
 *
 * @since 0.1.0
 */
import type { Courses } from "./catalogue/Courses.ts"
import type { ContentGenerator } from "./generation/ContentGenerator.ts"
import type { CourseRepo } from "./catalogue/CourseRepo.ts"
import type { Entitlements } from "./lessons/Entitlements.ts"
import type { LessonRepo } from "./lessons/LessonRepo.ts"
import type { Lessons } from "./lessons/Lessons.ts"
import type { MediaRepo } from "./media/MediaRepo.ts"
import type { ObjectStore } from "./media/ObjectStore.ts"
import type { ProviderCooldowns } from "./generation/ProviderCooldowns.ts"
import type { PublicCourses } from "./lessons/PublicCourses.ts"
import type { PurchaseRepo } from "./lessons/PurchaseRepo.ts"
import type { Purchases } from "./lessons/Purchases.ts"
import type { Learning } from "./progress/Learning.ts"
import type { ProgressRepo } from "./progress/ProgressRepo.ts"
import type { AdminSessionRepo } from "./sessions/AdminSessionRepo.ts"
import type { UploadRepo } from "./media/UploadRepo.ts"
import type { Uploads } from "./media/Uploads.ts"

/** The use cases of the core. */
export type UseCases = Courses | Uploads | Lessons | PublicCourses | Purchases | Learning | ContentGenerator

/** The ports of the core. */
export type Ports = CourseRepo | LessonRepo | UploadRepo | MediaRepo | PurchaseRepo | Entitlements | ProgressRepo | ObjectStore | ProviderCooldowns | AdminSessionRepo
