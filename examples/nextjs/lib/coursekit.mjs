// Coursekit for this app: one handler per server process, mounted at /api/coursekit,
// following the app's own session (the `sid` cookie set by /login).
import { MemoryCoursekit, signedInViewer, UserId } from "@coursekit/core"
import { anonymousIdentity, CoursekitHttp } from "@coursekit/http"

// The app's sessions. A real app has its own (NextAuth/Auth.js, Clerk, iron-session, …).
export const sessions = globalThis.__coursekitExampleSessions ??= new Map()

const identify = (request) => {
  const sid = /(?:^|;\s*)sid=([\w-]+)/.exec(request.headers.get("cookie") ?? "")?.[1]
  const session = sid === undefined ? undefined : sessions.get(sid)
  return session === undefined ? anonymousIdentity : { viewer: signedInViewer(UserId.make(session.user)), admin: session.admin }
}

// Kept on globalThis so that a dev-mode reload of this module does not build a second one.
// In production pass the PostgreSQL/S3 layers (docs/embedding.md).
export const coursekit = globalThis.__coursekitExampleHandler ??= CoursekitHttp.webHandler(
  CoursekitHttp.layerHostServices(MemoryCoursekit.layerMemory()),
  { prefix: "/api/coursekit", identify }
)
