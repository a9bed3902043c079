/**
 * Public addresses of stored files. A stored key (`courses/12/…jpg`) becomes a URL
 * under the CDN base (`{cdn_url}` in the specification).
 *
 * @since 0.1.0
 */
import { Config, Context, Effect, Layer } from "effect"

/** Turns a storage key into the permanent public URL of the file. */
export class FileUrl extends Context.Service<FileUrl, {
  publicUrl(key: string): string
}>()("@coursekit/core/FileUrl") {
  /**
   * Files served under `baseUrl` (a trailing slash is optional). A function is read on
   * every use: a server on an ephemeral port knows its URL only once it listens.
   */
  static readonly layer = (baseUrl: string | (() => string)): Layer.Layer<FileUrl> => {
    const base = () => {
      const url = typeof baseUrl === "string" ? baseUrl : baseUrl()
      return url.endsWith("/") ? url : `${url}/`
    }
    return Layer.succeed(FileUrl, FileUrl.of({
      // Each key segment is escaped; the slashes between them stay.
      publicUrl: (key) => base() + key.split("/").map(encodeURIComponent).join("/")
    }))
  }

  /** Reads the base from `CDN_URL`. */
  static readonly layerConfig: Layer.Layer<FileUrl, Config.ConfigError> = Layer.unwrap(
    Effect.map(Config.String("CDN_URL"), FileUrl.layer)
  )
}
