/**
 * The browser examples' front server: Coursekit's standalone service (embedded PGlite,
 * files on local disk) behind a small server that serves an example's page and script and
 * forwards everything else to the service — one origin for the page, the API and the
 * storage URLs, as a reverse proxy would give in production. browser-upload and
 * uppy-upload run on it; each adds its page's globals, its service settings and, when it
 * needs them, routes of its own.
 */
import { ServerConfig, StandaloneServer } from "@coursekit/server"
import { ConfigProvider, Effect, ManagedRuntime } from "effect"
import { HttpServer } from "effect/http"
import { build } from "esbuild"
import { randomBytes } from "node:crypto"
import { once } from "node:events"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { createServer, type IncomingMessage, request as forward, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { pipeline } from "node:stream"

/** A running example: its URL, the admin token its service accepts, and how to stop it. */
export interface FrontServer {
  readonly url: string
  /** Demo only: handed to the page too. A real admin UI signs its admins in. */
  readonly adminToken: string
  readonly close: () => Promise<void>
}

/** An example's own routes: answers `true` when it took the request, `false` to leave it to the front server. */
export type ExampleRoute = (request: IncomingMessage, response: ServerResponse) => boolean

export interface FrontServerOptions {
  /** The example's name, for its log lines and its data directory: "browser-upload". */
  readonly name: string
  /** The example's directory: its `index.html` and `app.ts`. */
  readonly directory: string
  /** Where to listen on 127.0.0.1 (0: any free port). */
  readonly port: number
  /** Handed to the page as `window.<name>`, besides `COURSEKIT_DEMO_ADMIN_TOKEN` (unless `adminTokenToPage` is false). */
  readonly globals?: Readonly<Record<string, unknown>> | undefined
  /**
   * Whether the page gets the admin token as `window.COURSEKIT_DEMO_ADMIN_TOKEN` (default
   * true: the upload pages act as admins). A learner's page is no admin's: false.
   */
  readonly adminTokenToPage?: boolean | undefined
  /** The service's settings (as environment variables) besides the front server's own. */
  readonly settings?: Readonly<Record<string, string>> | undefined
  /** Routes of the example, asked after the page's files and before the service. */
  readonly route?: ExampleRoute | undefined
}

/** The page's script for browsers, `app.ts` and what it imports in one ES module, and the CSS it imports (if any). */
const bundle = async (directory: string) => {
  const result = await build({
    entryPoints: [join(directory, "app.ts")],
    bundle: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    conditions: ["@coursekit/source"],
    // Names the outputs (app.js, app.css); nothing is written.
    outdir: join(directory, "dist"),
    write: false,
    minify: true,
    logLevel: "silent"
  })
  const output = (extension: string) => result.outputFiles.find((file) => file.path.endsWith(extension))?.text
  return { script: output(".js")!, style: output(".css") }
}

/** An RFC 9457 problem, as Coursekit's own errors are. */
export const problem = (request: IncomingMessage, response: ServerResponse, status: number, title: string, detail: string) => {
  request.resume() // an unread body would hold the connection
  response.writeHead(status, { "content-type": "application/problem+json" })
  response.end(request.method === "HEAD" ? undefined : JSON.stringify({ type: "about:blank", title, status, detail }))
}

/**
 * Runs a step of the request handler of example `name`: whatever it throws is answered
 * 500 (or ends the response when it has begun) and logged, never left to kill the process.
 */
export const guarded = (name: string, response: ServerResponse, step: () => void) => {
  try {
    step()
  } catch (cause) {
    console.error(`${name}: request failed`, cause)
    if (response.headersSent) return void response.destroy()
    response.writeHead(500, { "content-type": "application/problem+json" }).end(JSON.stringify({
      type: "about:blank",
      title: "Internal Server Error",
      status: 500,
      detail: "The example's front server failed on this request; its log says why."
    }))
  }
}

/** Starts the front server, then the service behind it. */
export const startFrontServer = async (options: FrontServerOptions): Promise<FrontServer> => {
  const { name } = options
  const { script, style } = await bundle(options.directory)
  // Demo only: the page gets the admin token. A real admin UI signs its admins in.
  const adminToken = randomBytes(24).toString("base64url")
  const globals = Object.entries({ ...(options.adminTokenToPage === false ? {} : { COURSEKIT_DEMO_ADMIN_TOKEN: adminToken }), ...options.globals })
    .map(([key, value]) => `window.${key} = ${JSON.stringify(value)}`)
    .join("; ")
  const page = readFileSync(join(options.directory, "index.html"), "utf8").replace(
    "<script type=\"module\"",
    `<script>${globals}</script>\n  <script type="module"`
  )
  // The service starts after the front listens (its public URL is the front's address), so
  // for its first seconds requests for it are answered 503 with Retry-After.
  let backendPort: number | undefined
  const front = createServer((request, response) => guarded(name, response, () => route(request, response)))
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
    if (reading && path === "/app.css" && style !== undefined) {
      return void response.writeHead(200, { "content-type": "text/css; charset=utf-8", "cache-control": "no-store" }).end(style)
    }
    // Browsers ask for it unprompted; the page has none.
    if (reading && path === "/favicon.ico") {
      return void response.writeHead(204, { "cache-control": "public, max-age=86400" }).end()
    }
    if (options.route?.(request, response) === true) return
    // Only origin-form targets ("/path") are forwarded: "*" or "http://elsewhere/…" are not
    // paths of this origin.
    if (!url.startsWith("/")) return problem(request, response, 400, "Bad Request", "The request target must be a path.")
    if (backendPort === undefined) {
      response.setHeader("retry-after", "1")
      return problem(request, response, 503, "Service Unavailable", "Coursekit is starting; retry in a moment.")
    }
    // Everything else is Coursekit's: the API, the signed PUTs, the files.
    const upstream = forward({ host: "127.0.0.1", port: backendPort, method: request.method, path: url, headers: request.headers }, (answer) =>
      guarded(name, response, () => {
        response.writeHead(answer.statusCode ?? 502, answer.headers)
        pipeline(answer, response, () => undefined)
      }))
    // A client that goes away mid-request ends the forwarded one too (and the reverse).
    pipeline(request, upstream, (error) =>
      guarded(name, response, () => {
        if (error === undefined || error === null) return
        if (response.headersSent) response.destroy()
        else problem(request, response, 502, "Bad Gateway", "Coursekit did not answer.")
      }))
  }
  front.listen(options.port, "127.0.0.1")
  await once(front, "listening")
  const url = `http://127.0.0.1:${(front.address() as AddressInfo).port}`

  // The service, configured as `npm start` would be from these variables; its public URL
  // is the front's, so upload URLs and file URLs go through the front.
  const dataDir = mkdtempSync(join(process.env.COURSEKIT_TEST_TMP ?? tmpdir(), `${name}-`))
  const env = {
    PORT: "0",
    HOST: "127.0.0.1",
    DATA_DIR: dataDir,
    PUBLIC_URL: url,
    ADMIN_TOKENS: adminToken,
    LOG_LEVEL: "Warn",
    ...options.settings
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

  return { url, adminToken, close: stop }
}

/**
 * Runs an example as its npm script does: starts it on `PORT` (default `defaultPort`),
 * says where it listens, and stops it cleanly on SIGINT or SIGTERM.
 */
export const runExample = async (title: string, start: (port: number) => Promise<FrontServer>, defaultPort: number) => {
  const started = start(Number(process.env.PORT ?? defaultPort))
  // A signal during start-up stops the example once it can be closed cleanly.
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => void started.then(({ close }) => close()).then(() => process.exit(0), () => process.exit(1)))
  }
  const { url } = await started
  console.log(`${title} listening on ${url}; open it in a browser`)
}
