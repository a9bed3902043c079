/**
 * The browser upload example: Coursekit's standalone service (embedded PGlite, files on
 * local disk) behind a small front server that serves the page and forwards everything
 * else to the service — one origin for the page, the API and the storage URLs, as a
 * reverse proxy would give in production (examples/shared/FrontServer.ts). The page
 * creates a course and uploads its thumbnail straight to storage with a progress bar,
 * using `@coursekit/client`; then adds a paid lesson whose video is uploaded as a private
 * file, and plays it as a buyer.
 *
 * Run: npm run example:browser-upload   (PORT, default 3004), then open the printed URL.
 */
import { defaultUploadLimits, thumbnailContentTypes } from "@coursekit/core"
import { randomBytes } from "node:crypto"
import { fileURLToPath } from "node:url"
import { demoViewerTokenRoute } from "../shared/DemoViewerToken.ts"
import { runExample, startFrontServer } from "../shared/FrontServer.ts"

/** Starts the example on `port` (0: any free one). */
export const start = (port: number) => {
  // Demo only: the front server signs viewer tokens for whichever user the page names
  // (POST /demo/viewer-token). A real app's sign-in, or its identity provider, issues them.
  const jwtSecret = randomBytes(32).toString("base64url")
  // What the service accepts as a thumbnail, handed to the page so that it can refuse a
  // file before it creates a course for it (the service checks again, whatever the page says).
  const thumbnailRules = { contentTypes: thumbnailContentTypes, maxBytes: defaultUploadLimits.thumbnailMaxBytes }
  return startFrontServer({
    name: "browser-upload",
    directory: import.meta.dirname,
    port,
    globals: { COURSEKIT_THUMBNAIL_RULES: thumbnailRules },
    settings: { JWT_SECRET: jwtSecret, UPLOAD_THUMBNAIL_MAX_BYTES: String(thumbnailRules.maxBytes) },
    route: demoViewerTokenRoute("browser-upload", jwtSecret)
  })
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await runExample("Browser upload example", start, 3004)
