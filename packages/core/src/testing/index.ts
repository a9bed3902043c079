/**
 * Conformance suites for adapter authors: run the suite of each port you implement
 * (`courseRepoSuite("my adapter", MyRepo.layer)`) inside a Vitest file.
 *
 * @since 0.1.0
 */
export * from "./CourseRepoSuite.ts"
export * from "./CourseSearchSuite.ts"
export * from "./ObjectStoreSuite.ts"
export * from "./UploadRepoSuite.ts"
export * from "./MediaRepoSuite.ts"
export * from "./LessonRepoSuite.ts"
export * from "./PurchaseRepoSuite.ts"
export * from "./PublicCourseRowsSuite.ts"
export * from "./ProviderCooldownsSuite.ts"
export * from "./LlmProviderSuite.ts"
export * from "./ModelScript.ts"
export * as ScriptedLlmProvider from "./ScriptedLlmProvider.ts"
export { ScriptedStep } from "./ScriptedLlmProvider.ts"
