/**
 * The browser upload example: Coursekit's standalone service (embedded PGlite, files on
 * local disk) behind a small front server that serves the page and forwards everything
 * else to the service — one origin for the page, the API and the storage URLs, as a
 * reverse proxy would give in production. The page creates a course and uploads its
 * thumbnail straight to storage with a progress bar, using `@coursekit/client`.
 *
 * Run: npm run example:browser-upload   (PORT, default 3004), then open the printed URL.
 */
import { ServerConfig, StandaloneServer } from "@coursekit/server"
import { ConfigProvider, Effect, ManagedRuntime } from "effect"
import { HttpServer } from "effect/http"
import { build } from "esbuild"
import { randomBytes } from "node:crypto"
import { once } from "node:events"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { createServer, request as forward } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
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

/** Starts the example on `port` (0: any free one). */
export const start = async (port: number) => {
  const script = await bundle()
  // Demo only: the page gets the admin token. A real admin UI signs its admins in.
  const adminToken = randomBytes(24).toString("base64url")
  const page = readFileSync(join(here, "index.html"), "utf8").replace(
    "<script type=\"module\"",
    `<script>window.COURSEKIT_DEMO_ADMIN_TOKEN = ${JSON.stringify(adminToken)}</script>\n  <script type="module"`
  )
  let backend = ""
  const front = createServer((request, response) => {
    if (request.method === "GET" && (request.url === "/" || request.url === "/index.html")) {
      return void response.writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" }).end(page)
    }
    if (request.method === "GET" && request.url === "/app.js") {
      return void response.writeHead(200, { "content-type": "text/javascript; charset=utf-8", "cache-control": "no-store" }).end(script)
    }
    // Everything else is Coursekit's: the API, the signed PUTs, the files.
    const upstream = forward(`${backend}${request.url}`, { method: request.method, headers: request.headers }, (answer) => {
      response.writeHead(answer.statusCode ?? 502, answer.headers)
      answer.pipe(response)
    })
    upstream.on("error", () => response.headersSent ? response.destroy() : response.writeHead(502).end())
    request.pipe(upstream)
  })
  front.listen(port, "127.0.0.1")
  await once(front, "listening")
  const url = `http://127.0.0.1:${(front.address() as AddressInfo).port}`

  // The service, configured as `npm start` would be from these variables; its public URL
  // is the front's, so upload URLs and thumbnail URLs go through the front.
  const dataDir = mkdtempSync(join(process.env.COURSEKIT_TEST_TMP ?? tmpdir(), "browser-upload-"))
  const settings = await Effect.runPromise(ServerConfig.settings.parse(ConfigProvider.fromEnv({
    env: { PORT: "0", HOST: "127.0.0.1", DATA_DIR: dataDir, PUBLIC_URL: url, ADMIN_TOKENS: adminToken, LOG_LEVEL: "Warn" }
  })))
  const runtime = ManagedRuntime.make(StandaloneServer.layerFrom(settings))
  const address = await runtime.runPromise(Effect.gen(function*() {
    return (yield* HttpServer.HttpServer).address
  }))
  backend = `http://127.0.0.1:${(address as { port: number }).port}`

  return {
    url,
    close: async () => {
      front.closeAllConnections()
      await new Promise<void>((done) => front.close(() => done()))
      await runtime.dispose()
      rmSync(dataDir, { recursive: true, force: true })
    }
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { url, close } = await start(Number(process.env.PORT ?? 3004))
  console.log(`Browser upload example listening on ${url}; open it in a browser`)
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => void close().then(() => process.exit(0)))
}
