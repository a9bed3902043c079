/**
 * Coursekit's HTTP API: the contract (shareable with clients), its handlers, and ways to
 * serve it.
 *
 * @since 0.1.0
 */
export * from "./AdminAccess.ts"
export * from "./AdminAuth.ts"
export * as AdminAuthLive from "./AdminAuthLive.ts"
export * from "./AdminTokens.ts"
export * from "./ApiProblems.ts"
export * from "./CatalogueAuth.ts"
export * as CatalogueAuthLive from "./CatalogueAuthLive.ts"
export * from "./CoursekitApi.ts"
export * from "./CourseListCache.ts"
export * as CoursekitHttp from "./CoursekitHttp.ts"
export * from "./Problems.ts"
export * from "./Readiness.ts"
export * from "./RequestLimits.ts"
export * from "./RequestLogger.ts"
export * from "./RouteTable.ts"
export * from "./ViewerAuth.ts"
export * as JwtViewerResolver from "./JwtViewerResolver.ts"
export * as ViewerAuthLive from "./ViewerAuthLive.ts"
export * from "./ViewerResolver.ts"
export * from "./HostIdentity.ts"
export type { HandlerOptions, HostServices, HostServicesOptions, MountOptions, NodeHandler, NodeRequestListener, RouteServices, UseCases } from "./CoursekitHttp.ts"
