/**
 * Coursekit's core: the domain schemas, the ports (Effect services) adapters provide,
 * and the use cases built on them. It imports no SDK and reads no environment.
 *
 * @since 0.1.0
 */
export * as Deadline from "./shared/Deadline.ts"
export * from "./shared/PersistenceError.ts"
export * as RecordVariants from "./shared/RecordVariants.ts"
export * from "./shared/StorableText.ts"
export * from "./shared/Viewer.ts"

export * from "./editing/Edit.ts"
export * from "./editing/Revision.ts"

export * from "./catalogue/Course.ts"
export * from "./catalogue/CourseRepo.ts"
export * from "./catalogue/CourseSearch.ts"
export * from "./catalogue/Courses.ts"
export * from "./catalogue/Publishing.ts"
export * from "./catalogue/Section.ts"
export * as Slug from "./catalogue/Slug.ts"

export * from "./lessons/Entitlements.ts"
export * from "./lessons/Lesson.ts"
export * from "./lessons/LessonRepo.ts"
export * from "./lessons/Lessons.ts"
export * from "./lessons/PublicCourse.ts"
export * from "./lessons/PublicCourseRows.ts"
export * from "./lessons/PublicCourses.ts"
export * from "./lessons/Purchase.ts"
export * from "./lessons/PurchaseRepo.ts"
export * from "./lessons/Purchases.ts"

export * from "./media/FileUrl.ts"
export * from "./media/MediaRepo.ts"
export * from "./media/MediaUrls.ts"
export * from "./media/Multipart.ts"
export * from "./media/ObjectStore.ts"
export * from "./media/Upload.ts"
export * from "./media/UploadRepo.ts"
export * from "./media/UploadSweep.ts"
export * from "./media/Uploads.ts"

export * from "./generation/ContentGenerator.ts"
export * from "./generation/LlmChain.ts"
export * from "./generation/LlmProvider.ts"
export * from "./generation/ProviderCooldowns.ts"

export * from "./progress/Progress.ts"
export * from "./progress/ProgressRepo.ts"
export * from "./progress/Learning.ts"

export * from "./sessions/AdminSessionRepo.ts"

export * from "./html/HtmlAllowList.ts"
export * from "./html/HtmlSanitizer.ts"
export { makeEmbedAttributes } from "./html/iframeEmbeds.ts"

export * from "./CoreServices.ts"
export * as MemoryCoursekit from "./MemoryCoursekit.ts"
