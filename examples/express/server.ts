/**
 * An existing Express app — its own pages and its own login — with Coursekit mounted at
 * /api/coursekit on the defaults: PGlite and files on local disk in examples/express/data
 * (or DATA_DIR), uploads served under the prefix. The app's session decides who is an
 * admin and who is a signed-in student; Coursekit never sees a password or a token of
 * its own. Coursekit Studio is at /api/coursekit/studio/ (after `npm run build`).
 *
 * Run: npm run example:express   (PORT, default 3001)
 */
import { signedInViewer, UserId } from "@coursekit/core"
import { anonymousIdentity, type HostIdentity } from "@coursekit/http"
import { coursekit } from "@coursekit/http/express"
import { DefaultServices, ServerConfig } from "@coursekit/server"
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

/** Starts the app on `port` (0: any free one), its data in `dataDir`. */
export const start = async (port: number, dataDir = fileURLToPath(new URL("data", import.meta.url))) => {
  // The upload and file URLs Coursekit signs point at this app; with port 0 its URL is known once it listens.
  let url = `http://localhost:${port}`
  const kit = coursekit(DefaultServices.layer({ publicUrl: () => `${url}/api/coursekit`, dataDir }), {
    prefix: "/api/coursekit",
    identify,
    // Coursekit Studio at /api/coursekit/studio/, from the build `npm run build` writes.
    studio: { dir: ServerConfig.defaultStudioDir }
  })
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
  url = `http://localhost:${(server.address() as AddressInfo).port}`
  // Coursekit's layers (the database, the upload sweep) are released with the host's server.
  server.on("close", () => void kit.dispose())
  return { url, server }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { url, server } = await start(Number(process.env.PORT ?? 3001), process.env.DATA_DIR)
  console.log(`Express host listening on ${url}; Coursekit at ${url}/api/coursekit`)
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => server.close(() => process.exit(0)))
}
