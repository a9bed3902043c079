/**
 * The Uppy example: Uppy's Dashboard uploads large files in parts through Coursekit's
 * multipart endpoints. The standalone service (embedded PGlite, files on local disk) runs
 * behind the examples' front server (examples/shared/FrontServer.ts), which serves the
 * page, its script and Uppy's CSS, bundled from node_modules, on the service's origin.
 *
 * Run: npm run example:uppy-upload   (PORT, default 3006), then open the printed URL.
 */
import { defaultUploadLimits, mediaContentTypes } from "@coursekit/core"
import { fileURLToPath } from "node:url"
import { runExample, startFrontServer } from "../shared/FrontServer.ts"

/** Starts the example on `port` (0: any free one). */
export const start = (port: number) => {
  // What the service accepts as a media file, handed to the page for Uppy's restrictions
  // (the service checks again, whatever the page says).
  const mediaRules = { contentTypes: mediaContentTypes, maxBytes: defaultUploadLimits.mediaMaxBytes }
  return startFrontServer({
    name: "uppy-upload",
    directory: import.meta.dirname,
    port,
    globals: { COURSEKIT_MEDIA_RULES: mediaRules },
    settings: { UPLOAD_MEDIA_MAX_BYTES: String(mediaRules.maxBytes) }
  })
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await runExample("Uppy upload example", start, 3006)
