/**
 * Coursekit's core: the domain schemas, the ports (Effect services) adapters provide,
 * and the use cases built on them. It imports no SDK and reads no environment.
 *
 * @since 0.1.0
 */
export * from "./Catalogue.ts"
export * from "./ContentGenerator.ts"
export * from "./Course.ts"
export * from "./CourseRepo.ts"
export * from "./Entitlements.ts"
export * from "./FileUrl.ts"
export * from "./HtmlAllowList.ts"
export * from "./HtmlSanitizer.ts"
export * from "./Lesson.ts"
export * from "./LessonRepo.ts"
export * from "./Lessons.ts"
export * from "./LlmProvider.ts"
export * from "./ModelScript.ts"
export * from "./MediaRepo.ts"
export * from "./PersistenceError.ts"
export * from "./PublicCourses.ts"
export * from "./Purchase.ts"
export * from "./PurchaseRepo.ts"
export * from "./Purchases.ts"
export * as Slug from "./Slug.ts"
export * from "./Upload.ts"
export * from "./UploadRepo.ts"
export * from "./Uploads.ts"
export * from "./StorableText.ts"
export * from "./Viewer.ts"
export * from "./ObjectStore.ts"
export * as Deadline from "./Deadline.ts"
export * as MemoryCoursekit from "./MemoryCoursekit.ts"
