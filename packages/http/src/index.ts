/**
 * Coursekit's HTTP API: the contract (shareable with clients), its handlers, and ways to
 * serve it.
 *
 * @since 0.1.0
 */
export * from "./auth/AdminAccess.ts"
export * from "./auth/AdminAuth.ts"
export * from "./auth/AdminSessions.ts"
export * as AdminAuthLive from "./auth/AdminAuthLive.ts"
export * from "./auth/AdminTokens.ts"
export * from "./problems/ApiProblems.ts"
export * from "./auth/CatalogueAuth.ts"
export * as CatalogueAuthLive from "./auth/CatalogueAuthLive.ts"
export * from "./CoursekitApi.ts"
export * from "./edge/CourseListCache.ts"
export * from "./handlers/EditHeaders.ts"
export * as CoursekitHttp from "./CoursekitHttp.ts"
export * from "./problems/Problems.ts"
export * from "./handlers/Readiness.ts"
export * from "./edge/RequestLimits.ts"
export * from "./edge/RequestLogger.ts"
export * from "./edge/RouteTable.ts"
export * from "./studio/StoreOrigins.ts"
export * as StudioRoutes from "./studio/StudioRoutes.ts"
export * from "./auth/ViewerAuth.ts"
export * as JwtViewerResolver from "./auth/JwtViewerResolver.ts"
export * as ViewerAuthLive from "./auth/ViewerAuthLive.ts"
export * from "./auth/ViewerResolver.ts"
export * from "./auth/HostIdentity.ts"
export type { HandlerOptions, HostServices, HostServicesOptions, MountOptions, NodeHandler, NodeRequestListener, RouteServices, UseCases } from "./CoursekitHttp.ts"
