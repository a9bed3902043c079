/**
 * The browser upload example: Coursekit's standalone service (embedded PGlite, files on
 * local disk) behind a small front server that serves the page and forwards everything
 * else to the service — one origin for the page, the API and the storage URLs, as a
 * reverse proxy would give in production. The page creates a course and uploads its
 * thumbnail straight to storage with a progress bar, using `@coursekit/client`; then adds
 * a paid lesson whose video is uploaded as a private file, and plays it as a buyer.
 *
 * Run: npm run example:browser-upload   (PORT, default 3004), then open the printed URL.
 */
import { defaultUploadLimits, thumbnailContentTypes } from "@coursekit/core"
import { ServerConfig, StandaloneServer } from "@coursekit/server"
import { ConfigProvider, Effect, ManagedRuntime } from "effect"
import { HttpServer } from "effect/http"
import { build } from "esbuild"
import { createHmac, randomBytes } from "node:crypto"
import { once } from "node:events"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { createServer, type IncomingMessage, request as forward, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { pipeline } from "node:stream"
import { fileURLToPath } from "node:url"

const here = import.meta.dirname

/** The page's script for browsers: app.ts and the client, in one ES module. */
const bundle = async () => {
  const result = await build({
    entryPoints: [join(here, "app.ts")],
    bundle: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    conditions: ["@coursekit/source"],
    write: false,
    minify: true,
    logLevel: "silent"
  })
  return result.outputFiles[0]!.text
}

/** An RFC 9457 problem, as Coursekit's own errors are. */
const problem = (request: IncomingMessage, response: ServerResponse, status: number, title: string, detail: string) => {
  request.resume() // an unread body would hold the connection
  response.writeHead(status, { "content-type": "application/problem+json" })
  response.end(request.method === "HEAD" ? undefined : JSON.stringify({ type: "about:blank", title, status, detail }))
}

/**
 * Runs a step of the request handler: whatever it throws is answered 500 (or ends the
 * response when it has begun) and logged, never left to kill the process.
 */
const guarded = (response: ServerResponse, step: () => void) => {
  try {
    step()
  } catch (cause) {
    console.error("browser-upload: request failed", cause)
    if (response.headersSent) return void response.destroy()
    response.writeHead(500, { "content-type": "application/problem+json" }).end(JSON.stringify({
      type: "about:blank",
      title: "Internal Server Error",
      status: 500,
      detail: "The example's front server failed on this request; its log says why."
    }))
  }
}

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
export const start = async (port: number) => {
  const script = await bundle()
  // Demo only: the page gets the admin token. A real admin UI signs its admins in.
  const adminToken = randomBytes(24).toString("base64url")
  // Demo only: the front server signs viewer tokens for whichever user the page names
  // (POST /demo/viewer-token). A real app's sign-in, or its identity provider, issues them.
  const jwtSecret = randomBytes(32).toString("base64url")
  // What the service accepts as a thumbnail, handed to the page so that it can refuse a
  // file before it creates a course for it (the service checks again, whatever the page says).
  const thumbnailRules = { contentTypes: thumbnailContentTypes, maxBytes: defaultUploadLimits.thumbnailMaxBytes }
  const globals = `window.COURSEKIT_DEMO_ADMIN_TOKEN = ${JSON.stringify(adminToken)}; window.COURSEKIT_THUMBNAIL_RULES = ${JSON.stringify(thumbnailRules)}`
  const page = readFileSync(join(here, "index.html"), "utf8").replace(
    "<script type=\"module\"",
    `<script>${globals}</script>\n  <script type="module"`
  )
  // The service starts after the front listens (its public URL is the front's address), so
  // for its first seconds requests for it are answered 503 with Retry-After.
  let backendPort: number | undefined
  const front = createServer((request, response) => guarded(response, () => route(request, response)))
  const route = (request: IncomingMessage, response: ServerResponse) => {
    const url = request.url ?? "/"
    const path = url.split("?")[0]
    const reading = request.method === "GET" || request.method === "HEAD"
    if (reading && (path === "/" || path === "/index.html")) {
      return void response.writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" }).end(page)
    }
    if (reading && path === "/app.js") {
      return void response.writeHead(200, { "content-type": "text/javascript; charset=utf-8", "cache-control": "no-store" }).end(script)
    }
    // Browsers ask for it unprompted; the page has none.
    if (reading && path === "/favicon.ico") {
      return void response.writeHead(204, { "cache-control": "public, max-age=86400" }).end()
    }
    if (request.method === "POST" && path === "/demo/viewer-token") {
      return void jsonBody(request).then((body) =>
        guarded(response, () => {
          const userId = (body as { user_id?: unknown } | undefined)?.user_id
          if (typeof userId !== "string" || !userIdPattern.test(userId)) {
            return problem(request, response, 400, "Bad Request", "Send {\"user_id\": \"…\"}: 1 to 255 characters, no control characters.")
          }
          response.writeHead(200, { "content-type": "application/json", "cache-control": "no-store" })
          response.end(JSON.stringify({ token: viewerToken(jwtSecret, userId) }))
        }), () => response.destroy()) // the request broke off mid-body: its client is gone
    }
    // Only origin-form targets ("/path") are forwarded: "*" or "http://elsewhere/…" are not
    // paths of this origin.
    if (!url.startsWith("/")) return problem(request, response, 400, "Bad Request", "The request target must be a path.")
    if (backendPort === undefined) {
      response.setHeader("retry-after", "1")
      return problem(request, response, 503, "Service Unavailable", "Coursekit is starting; retry in a moment.")
    }
    // Everything else is Coursekit's: the API, the signed PUTs, the files.
    const upstream = forward({ host: "127.0.0.1", port: backendPort, method: request.method, path: url, headers: request.headers }, (answer) =>
      guarded(response, () => {
        response.writeHead(answer.statusCode ?? 502, answer.headers)
        pipeline(answer, response, () => undefined)
      }))
    // A client that goes away mid-request ends the forwarded one too (and the reverse).
    pipeline(request, upstream, (error) =>
      guarded(response, () => {
        if (error === undefined || error === null) return
        if (response.headersSent) response.destroy()
        else problem(request, response, 502, "Bad Gateway", "Coursekit did not answer.")
      }))
  }
  front.listen(port, "127.0.0.1")
  await once(front, "listening")
  const url = `http://127.0.0.1:${(front.address() as AddressInfo).port}`

  // The service, configured as `npm start` would be from these variables; its public URL
  // is the front's, so upload URLs and thumbnail URLs go through the front.
  const dataDir = mkdtempSync(join(process.env.COURSEKIT_TEST_TMP ?? tmpdir(), "browser-upload-"))
  const env = {
    PORT: "0",
    HOST: "127.0.0.1",
    DATA_DIR: dataDir,
    PUBLIC_URL: url,
    ADMIN_TOKENS: adminToken,
    JWT_SECRET: jwtSecret,
    LOG_LEVEL: "Warn",
    UPLOAD_THUMBNAIL_MAX_BYTES: String(thumbnailRules.maxBytes)
  }
  let disposeService: (() => Promise<void>) | undefined
  const stop = async () => {
    front.closeAllConnections()
    await new Promise<void>((done) => front.close(() => done()))
    await disposeService?.()
    rmSync(dataDir, { recursive: true, force: true })
  }
  try {
    const settings = await Effect.runPromise(ServerConfig.settings.parse(ConfigProvider.fromEnv({ env })))
    const service = ManagedRuntime.make(StandaloneServer.layerFrom(settings))
    disposeService = () => service.dispose()
    const address = await service.runPromise(Effect.gen(function*() {
      return (yield* HttpServer.HttpServer).address
    }))
    backendPort = (address as { port: number }).port
  } catch (cause) {
    // Nothing is left listening or on disk when the service cannot start.
    await stop()
    throw cause
  }

  return { url, close: stop }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const started = start(Number(process.env.PORT ?? 3004))
  // A signal during start-up stops the example once it can be closed cleanly.
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => void started.then(({ close }) => close()).then(() => process.exit(0), () => process.exit(1)))
  }
  const { url } = await started
  console.log(`Browser upload example listening on ${url}; open it in a browser`)
}
