/**
 * Coursekit's object store on local disk, the embedded default: the `ObjectStore`
 * layer and the receiver of signed uploads and reads (private files at signed read URLs
 * only). The HTTP routes that put it on a server are `@coursekit/http/local-storage`.
 *
 * @since 0.1.0
 */
export * as LocalObjectStore from "./LocalObjectStore.ts"
export { ServedKeys } from "./ServedKeys.ts"
export {
  type IncomingRead,
  type IncomingUpload,
  isPartUpload,
  LocalTransfers,
  type ReadAccess,
  type ReadRefusalReason,
  ReadRefused,
  type RefusalReason,
  type ServedObject,
  type StoredUpload,
  type StoredUploadPart,
  type UploadBody,
  UploadRefused
} from "./LocalTransfers.ts"
/**
 * The former name of {@link LocalTransfers}: it receives uploads and serves reads, so
 * "uploads" said half of it and collided with core's `Uploads`.
 *
 * @deprecated since 0.3.0: use `LocalTransfers`.
 */
export { LocalTransfers as LocalUploads } from "./LocalTransfers.ts"
