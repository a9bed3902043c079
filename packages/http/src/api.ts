/**
 * The HTTP contract alone — endpoints, schemas, auth definition and problems — with no
 * server code, for typed clients (`HttpApiClient.make(CoursekitApi)`) in Node or browsers.
 *
 * @since 0.1.0
 */
export * from "./auth/AdminAuth.ts"
export * from "./problems/ApiProblems.ts"
export * from "./auth/CatalogueAuth.ts"
export * from "./CoursekitApi.ts"
export * from "./handlers/GenerationEventStream.ts"
export * from "./problems/Problems.ts"
export * from "./auth/ViewerAuth.ts"
