/**
 * A typed client of the Coursekit HTTP API for Node and browsers: `CoursekitClient` (the
 * Effect client derived from the contract) and `createClient` (the same endpoints as
 * Promises, with `uploadThumbnail`/`uploadMedia` doing URL → PUT → finalize).
 *
 * @since 0.1.0
 */
export * from "./CoursekitClient.ts"
export * from "./CoursekitError.ts"
export * from "./GenerationStream.ts"
export * from "./NextPage.ts"
export * from "./PromiseClient.ts"
export { CurrentWriteOptions, withWriteOptions, type WriteOptions } from "./WriteOptions.ts"
export {
  defaultMultipartThreshold,
  defaultResumeStore,
  localStorageResumeStore,
  memoryResumeStore,
  type MultipartOptions,
  type ResumeEntry,
  type ResumeStore
} from "./MultipartUpload.ts"
export type { UploadOptions, UploadProgress } from "./PutFile.ts"
