/**
 * An existing Express app — its own pages and its own login — with Coursekit mounted at
 * /api/coursekit. The app's session decides who is an admin and who is a signed-in
 * student; Coursekit never sees a password or a token of its own.
 *
 * Run: npm run example:express   (PORT, default 3001)
 */
import { MemoryCoursekit, signedInViewer, UserId } from "@coursekit/core"
import { anonymousIdentity, CoursekitHttp, type HostIdentity } from "@coursekit/http"
import { coursekit } from "@coursekit/http/express"
import express from "express"
import { randomUUID } from "node:crypto"
import { once } from "node:events"
import type { AddressInfo } from "node:net"
import { fileURLToPath } from "node:url"

// The host's sessions. A real app has its own (express-session, Passport, Auth0, …);
// Coursekit only needs `identify` to say who the request's user is.
const sessions = new Map<string, { readonly user: string; readonly admin: boolean }>()
const sessionOf = (cookie: string | undefined) => sessions.get(/(?:^|;\s*)sid=([\w-]+)/.exec(cookie ?? "")?.[1] ?? "")

const identify = (request: express.Request): HostIdentity => {
  const session = sessionOf(request.headers.cookie)
  return session === undefined ? anonymousIdentity : { viewer: signedInViewer(UserId.make(session.user)), admin: session.admin }
}

/** Starts the app on `port` (0: any free one). */
export const start = async (port: number) => {
  // In-memory here; in production pass the PostgreSQL/S3 layers (docs/embedding.md).
  const kit = coursekit(CoursekitHttp.layerHostServices(MemoryCoursekit.layerMemory()), { prefix: "/api/coursekit", identify })
  const app = express()
  app.use(kit) // before body parsers: Coursekit reads its own bodies
  app.use(express.json())
  app.get("/", (_request, response) => {
    response.type("text/plain").send("The host app. POST /login {\"user\": \"admin\"}; Coursekit is at /api/coursekit (docs: /api/coursekit/docs).")
  })
  app.post("/login", (request, response) => {
    const user = String(request.body?.user ?? "")
    if (!/^[a-z0-9_-]{1,32}$/.test(user)) return void response.status(400).json({ error: "user: 1-32 of a-z 0-9 _ -" })
    const sid = randomUUID()
    sessions.set(sid, { user, admin: user === "admin" })
    response.setHeader("set-cookie", `sid=${sid}; HttpOnly; SameSite=Lax; Path=/`)
    response.json({ user, admin: user === "admin" })
  })
  await kit.ready
  const server = app.listen(port)
  await once(server, "listening")
  // Coursekit's layers are released with the host's server.
  server.on("close", () => void kit.dispose())
  return { url: `http://localhost:${(server.address() as AddressInfo).port}`, server }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { url, server } = await start(Number(process.env.PORT ?? 3001))
  console.log(`Express host listening on ${url}; Coursekit at ${url}/api/coursekit`)
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => server.close(() => process.exit(0)))
}
