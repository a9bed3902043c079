/**
 * Where browsers reach the object store, for the Studio's Content-Security-Policy: the
 * origins of stored files' URLs (thumbnails, videos, signed reads) and of upload URLs
 * (a bucket's endpoint). Provided by whoever wires the store — `DefaultServices` in
 * `@coursekit/server` for its stores — and read when a Studio response is written.
 *
 * @since 0.1.0
 */
import { Context } from "effect"

/** The origins (`https://files.example.com`) of a store's URLs. */
export interface StoreOriginList {
  /** Where stored files are read from: the page may show images and play media from them. */
  readonly files: ReadonlyArray<string>
  /** Where uploads are sent: the page may send requests to them. */
  readonly uploads: ReadonlyArray<string>
}

/**
 * The store's origins, read on every Studio response (a server on port 0 knows its own
 * address only once it listens). Default: none, so the Studio's page reaches only its
 * own origin — right for a store served by the same app at the same address (the local
 * store's `/files` and `/storage`). Provide it beside the services:
 * `Layer.succeed(StoreOrigins, () => ({ files: ["https://cdn.example.com"], uploads: ["https://bucket.s3.eu-west-1.amazonaws.com"] }))`.
 */
export const StoreOrigins = Context.Reference<() => StoreOriginList>("@coursekit/http/StoreOrigins", {
  defaultValue: () => () => ({ files: [], uploads: [] })
})
