/**
 * Coursekit's object store on local disk, the embedded default: the `ObjectStore`
 * layer, the receiver of signed uploads, and the HTTP routes that accept uploads and
 * serve files (private ones at signed read URLs only).
 *
 * @since 0.1.0
 */
export * as LocalObjectStore from "./LocalObjectStore.ts"
export * as LocalStorageRoutes from "./LocalStorageRoutes.ts"
export { ServedKeys } from "./ServedKeys.ts"
export {
  type IncomingRead,
  type IncomingUpload,
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
