/**
 * Coursekit's core: the domain schemas, the ports (Effect services) adapters provide,
 * and the use cases built on them. It imports no SDK and reads no environment.
 *
 * @since 0.1.0
 */
export * from "./Catalogue.ts"
export * from "./Course.ts"
export * from "./CourseRepo.ts"
export * from "./FileUrl.ts"
export * from "./HtmlAllowList.ts"
export * from "./HtmlSanitizer.ts"
export * from "./PersistenceError.ts"
export * as Slug from "./Slug.ts"
