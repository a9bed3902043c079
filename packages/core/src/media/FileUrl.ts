/**
 * Public addresses of stored files. A stored key (`courses/12/…jpg`) becomes a URL
 * under the CDN base (`{cdn_url}` in the specification).
 *
 * @since 0.1.0
 */
import { Config, Context, Effect, Layer } from "effect"

/** Keys that `encodeURIComponent` leaves as they are, segment by segment (slashes kept). */
const unreserved = /^[A-Za-z0-9\-_.!~*'()/]*$/

/** Turns a storage key into the permanent public URL of the file. */
export class FileUrl extends Context.Service<FileUrl, {
  publicUrl(key: string): string
}>()("@coursekit/core/FileUrl") {
  /** Files served under `baseUrl` (a trailing slash is optional). */
  static readonly layer = (baseUrl: string): Layer.Layer<FileUrl> => {
    const base = baseUrl.endsWith("/") ? baseUrl : `${baseUrl}/`
    return Layer.succeed(FileUrl, FileUrl.of({
      // Each key segment is escaped; the slashes between them stay. Keys are built by
      // Coursekit from safe characters, so most need no escaping (a list page asks ten times).
      publicUrl: (key) => base + (unreserved.test(key) ? key : key.split("/").map(encodeURIComponent).join("/"))
    }))
  }

  /** Reads the base from `CDN_URL`. */
  static readonly layerConfig: Layer.Layer<FileUrl, Config.ConfigError> = Layer.unwrap(
    Effect.map(Config.String("CDN_URL"), FileUrl.layer)
  )
}
