/**
 * The HTTP contract alone — endpoints, schemas, auth definition and problems — with no
 * server code, for typed clients (`HttpApiClient.make(CoursekitApi)`) in Node or browsers.
 *
 * @since 0.1.0
 */
export * from "./AdminAuth.ts"
export * from "./ApiProblems.ts"
export * from "./CatalogueAuth.ts"
export * from "./CoursekitApi.ts"
export * from "./GenerationEventStream.ts"
export * from "./Problems.ts"
export * from "./ViewerAuth.ts"
