/**
 * Coursekit's `ObjectStore` on S3 and S3-compatible storage (AWS S3, Cloudflare R2,
 * MinIO): `S3ObjectStore.layer(options)`, or `S3ObjectStore.layerConfig` from `S3_*`
 * variables.
 *
 * @since 0.1.0
 */
export * as S3ObjectStore from "./S3ObjectStore.ts"
