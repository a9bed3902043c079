/**
 * An existing Fastify app — its own routes and its own login — with Coursekit registered
 * as a plugin at /api/coursekit on the defaults: PGlite and files on local disk in
 * examples/fastify/data (or DATA_DIR). The app's session decides who is an admin and who
 * is a signed-in student; Coursekit's layers close with the app.
 *
 * Run: npm run example:fastify   (PORT, default 3002)
 */
import { signedInViewer, UserId } from "@coursekit/core"
import { anonymousIdentity, type HostIdentity } from "@coursekit/http"
import { coursekitPlugin } from "@coursekit/http/fastify"
import { DefaultServices, ServerConfig } from "@coursekit/server"
import Fastify, { type FastifyRequest } from "fastify"
import { randomUUID } from "node:crypto"
import { fileURLToPath } from "node:url"

// The host's sessions (a real app: @fastify/session, @fastify/jwt, …).
const sessions = new Map<string, { readonly user: string; readonly admin: boolean }>()
const sessionOf = (cookie: string | undefined) => sessions.get(/(?:^|;\s*)sid=([\w-]+)/.exec(cookie ?? "")?.[1] ?? "")

const identify = (request: FastifyRequest): HostIdentity => {
  const session = sessionOf(request.headers.cookie)
  return session === undefined ? anonymousIdentity : { viewer: signedInViewer(UserId.make(session.user)), admin: session.admin }
}

/** Starts the app on `port` (0: any free one), its data in `dataDir`. */
export const start = async (port: number, dataDir = fileURLToPath(new URL("data", import.meta.url))) => {
  // The plugin is ready once Coursekit's services are: a first PGlite start (initdb) can
  // take longer than Fastify's 10 s default on a busy machine.
  const app = Fastify({ pluginTimeout: 60_000 })
  // The upload and file URLs Coursekit signs point at this app; with port 0 its URL is known once it listens.
  let url = `http://127.0.0.1:${port}`
  const services = DefaultServices.layer({ publicUrl: () => `${url}/api/coursekit`, dataDir })
  // Coursekit Studio at /api/coursekit/studio/, from the build `npm run build` writes.
  await app.register(coursekitPlugin(services, { identify, studio: { dir: ServerConfig.defaultStudioDir } }), { prefix: "/api/coursekit" })
  app.get("/", async () => "The host app. POST /login {\"user\": \"admin\"}; Coursekit is at /api/coursekit (docs: /api/coursekit/docs).")
  app.post<{ Body: { user?: unknown } }>("/login", async (request, reply) => {
    const user = String(request.body?.user ?? "")
    if (!/^[a-z0-9_-]{1,32}$/.test(user)) return reply.code(400).send({ error: "user: 1-32 of a-z 0-9 _ -" })
    const sid = randomUUID()
    sessions.set(sid, { user, admin: user === "admin" })
    return reply.header("set-cookie", `sid=${sid}; HttpOnly; SameSite=Lax; Path=/`).send({ user, admin: user === "admin" })
  })
  url = await app.listen({ port, host: "127.0.0.1" })
  return { url, close: () => app.close() }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { url, close } = await start(Number(process.env.PORT ?? 3002), process.env.DATA_DIR)
  console.log(`Fastify host listening on ${url}; Coursekit at ${url}/api/coursekit`)
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => void close().then(() => process.exit(0)))
}
