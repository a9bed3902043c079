// Coursekit for this app: one handler per server process, mounted at /api/coursekit,
// following the app's own session (the `sid` cookie set by /login).
import { MemoryCoursekit, signedInViewer, UserId } from "@coursekit/core"
import { anonymousIdentity, CoursekitHttp } from "@coursekit/http"
import { resolve } from "node:path"

// The app's sessions. A real app has its own (NextAuth/Auth.js, Clerk, iron-session, …).
export const sessions = globalThis.__coursekitExampleSessions ??= new Map()

const identify = (request) => {
  const sid = /(?:^|;\s*)sid=([\w-]+)/.exec(request.headers.get("cookie") ?? "")?.[1]
  const session = sid === undefined ? undefined : sessions.get(sid)
  return session === undefined ? anonymousIdentity : { viewer: signedInViewer(UserId.make(session.user)), admin: session.admin }
}

// Kept on globalThis so that a dev-mode reload of this module does not build a second one.
// This app provides its own layers, in memory (nothing persists); the Express, Fastify and
// Hono examples take the defaults instead (`DefaultServices.layer` from @coursekit/server:
// PGlite and local disk), and docs/embedding.md shows PostgreSQL and S3.
export const coursekit = globalThis.__coursekitExampleHandler ??= CoursekitHttp.webHandler(
  CoursekitHttp.layerHostServices(MemoryCoursekit.layerMemory()),
  // Coursekit Studio at /api/coursekit/studio/, from the build `npm run build` writes
  // (`next dev` runs in the repository's root; a real app names where it put the build).
  { prefix: "/api/coursekit", identify, studio: { dir: resolve("packages/studio/dist") } }
)
