/**
 * PostgreSQL adapters for Coursekit's ports, the migrations they need, and the embedded
 * PGlite database that runs the same SQL.
 *
 * @since 0.1.0
 */
export * as PgAdminSessionRepo from "./PgAdminSessionRepo.ts"
export * as PgCourseRepo from "./PgCourseRepo.ts"
export * as PgCourseSearch from "./PgCourseSearch.ts"
export * as PgDatabase from "./PgDatabase.ts"
export * as PgDeadline from "./PgDeadline.ts"
export * as PgLessonRepo from "./PgLessonRepo.ts"
export * as PgMigrations from "./PgMigrations.ts"
export * as PgProviderCooldowns from "./PgProviderCooldowns.ts"
export * as PgPublicCourseRows from "./PgPublicCourseRows.ts"
export * as PgProgressRepo from "./PgProgressRepo.ts"
export * as PgPurchaseRepo from "./PgPurchaseRepo.ts"
export * as PgSchema from "./PgSchema.ts"
export * as PgMediaRepo from "./PgMediaRepo.ts"
export * as PgUploadRepo from "./PgUploadRepo.ts"
export * as DataDirectoryLock from "./DataDirectoryLock.ts"
export * as PgliteDatabase from "./PgliteDatabase.ts"
