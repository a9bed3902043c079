/**
 * An existing Hono app — its own routes, its own auth middleware — with Coursekit's
 * routes at /api/coursekit, served on Node by @hono/node-server, on the defaults: PGlite
 * and files on local disk in examples/hono/data (or DATA_DIR). The same `coursekitHono`
 * routes run on Bun, Deno and workers (with layers for those runtimes).
 *
 * Run: npm run example:hono   (PORT, default 3003)
 */
import { signedInViewer, UserId } from "@coursekit/core"
import { anonymousIdentity } from "@coursekit/http"
import { coursekitHono } from "@coursekit/http/hono"
import { DefaultServices, ServerConfig } from "@coursekit/server"
import { serve } from "@hono/node-server"
import { Hono } from "hono"
import { getCookie, setCookie } from "hono/cookie"
import { randomUUID } from "node:crypto"
import { once } from "node:events"
import type { AddressInfo } from "node:net"
import { fileURLToPath } from "node:url"

type Session = { readonly user: string; readonly admin: boolean }
// The host's sessions (a real app: its own auth middleware, a JWT, …).
const sessions = new Map<string, Session>()

/** Starts the app on `port` (0: any free one), its data in `dataDir`. */
export const start = async (port: number, dataDir = fileURLToPath(new URL("data", import.meta.url))) => {
  const app = new Hono<{ Variables: { session: Session | undefined } }>()
  // The host's auth middleware: every request gets its session in the context.
  app.use("*", async (context, next) => {
    context.set("session", sessions.get(getCookie(context, "sid") ?? ""))
    await next()
  })
  // The upload and file URLs Coursekit signs point at this app; with port 0 its URL is known once it listens.
  let url = `http://127.0.0.1:${port}`
  const kit = coursekitHono(DefaultServices.layer({ publicUrl: () => `${url}/api/coursekit`, dataDir }), {
    prefix: "/api/coursekit",
    // Coursekit Studio at /api/coursekit/studio/, from the build `npm run build` writes.
    studio: { dir: ServerConfig.defaultStudioDir },
    identify: (context) => {
      const session = context.get("session") as Session | undefined
      return session === undefined ? anonymousIdentity : { viewer: signedInViewer(UserId.make(session.user)), admin: session.admin }
    }
  })
  app.route("/", kit.app)
  app.get("/", (context) => context.text("The host app. POST /login {\"user\": \"admin\"}; Coursekit is at /api/coursekit (docs: /api/coursekit/docs)."))
  app.post("/login", async (context) => {
    const body = await context.req.json<{ user?: unknown }>().catch(() => ({ user: undefined }))
    const user = String(body.user ?? "")
    if (!/^[a-z0-9_-]{1,32}$/.test(user)) return context.json({ error: "user: 1-32 of a-z 0-9 _ -" }, 400)
    const sid = randomUUID()
    sessions.set(sid, { user, admin: user === "admin" })
    setCookie(context, "sid", sid, { httpOnly: true, sameSite: "Lax", path: "/" })
    return context.json({ user, admin: user === "admin" })
  })
  const server = serve({ fetch: app.fetch, port, hostname: "127.0.0.1" })
  await once(server, "listening")
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    url,
    close: () => new Promise<void>((done) => server.close(() => void kit.dispose().then(done)))
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { url, close } = await start(Number(process.env.PORT ?? 3003), process.env.DATA_DIR)
  console.log(`Hono host listening on ${url}; Coursekit at ${url}/api/coursekit`)
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => void close().then(() => process.exit(0)))
}
