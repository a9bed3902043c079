/**
 * Conformance suites for adapter authors: run the suite of each port you implement
 * (`courseRepoSuite("my adapter", MyRepo.layer)`) inside a Vitest file. Also the shared
 * test data other packages check themselves against (`benignCourseHtml`).
 *
 * @since 0.1.0
 */
export * from "./catalogue/CourseRepoSuite.ts"
export * from "./catalogue/CourseSearchSuite.ts"
export * from "./editing/RevisionsSuite.ts"
export * from "./html/BenignCourseHtml.ts"
export * from "./media/ObjectStoreSuite.ts"
export * from "./media/UploadRepoSuite.ts"
export * from "./media/MediaRepoSuite.ts"
export * from "./lessons/LessonRepoSuite.ts"
export * from "./lessons/PurchaseRepoSuite.ts"
export * from "./lessons/PublicCourseRowsSuite.ts"
export * from "./progress/ProgressRepoSuite.ts"
export * from "./sessions/AdminSessionRepoSuite.ts"
export * from "./generation/ProviderCooldownsSuite.ts"
export * from "./generation/LlmProviderSuite.ts"
export * from "./generation/ModelScript.ts"
export * as ScriptedLlmProvider from "./generation/ScriptedLlmProvider.ts"
export { ScriptedStep } from "./generation/ScriptedLlmProvider.ts"
