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
import { createHmac, randomBytes } from "node:crypto"
import type { IncomingMessage } from "node:http"
import { fileURLToPath } from "node:url"
import { guarded, problem, runExample, startFrontServer } from "../shared/FrontServer.ts"

/** As the service accepts a token's `sub` (core's UserId): 1 to 255 characters, no control characters. */
const userIdPattern = /^[^\u0000-\u001f\u007f]{1,255}$/

/** A viewer token as an identity provider would issue it: HS256 with `secret`, `sub` the user, an hour. */
const viewerToken = (secret: string, userId: string) => {
  const now = Math.floor(Date.now() / 1000)
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url")
  const unsigned = `${part({ alg: "HS256", typ: "JWT" })}.${part({ sub: userId, iat: now, exp: now + 3600 })}`
  return `${unsigned}.${createHmac("sha256", secret).update(unsigned).digest("base64url")}`
}

/** The body of a small JSON request (at most 4 KiB), parsed; undefined when it is not that. */
const jsonBody = async (request: IncomingMessage): Promise<unknown> => {
  const chunks: Array<Buffer> = []
  let size = 0
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length
    if (size > 4096) return undefined
    chunks.push(chunk)
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8"))
  } catch {
    return undefined
  }
}

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
    route: (request, response) => {
      if (request.method !== "POST" || request.url?.split("?")[0] !== "/demo/viewer-token") return false
      void jsonBody(request).then((body) =>
        guarded("browser-upload", response, () => {
          const userId = (body as { user_id?: unknown } | undefined)?.user_id
          if (typeof userId !== "string" || !userIdPattern.test(userId)) {
            return problem(request, response, 400, "Bad Request", "Send {\"user_id\": \"…\"}: 1 to 255 characters, no control characters.")
          }
          response.writeHead(200, { "content-type": "application/json", "cache-control": "no-store" })
          response.end(JSON.stringify({ token: viewerToken(jwtSecret, userId) }))
        }), () => response.destroy()) // the request broke off mid-body: its client is gone
      return true
    }
  })
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await runExample("Browser upload example", start, 3004)
