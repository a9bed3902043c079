// The app's own login (demo: no password). Sets the session cookie Coursekit follows.
import { randomUUID } from "node:crypto"
import { sessions } from "../../lib/coursekit.mjs"

export const runtime = "nodejs"

export async function POST(request) {
  const body = await request.json().catch(() => ({}))
  const user = String(body.user ?? "")
  if (!/^[a-z0-9_-]{1,32}$/.test(user)) return Response.json({ error: "user: 1-32 of a-z 0-9 _ -" }, { status: 400 })
  const sid = randomUUID()
  sessions.set(sid, { user, admin: user === "admin" })
  return Response.json({ user, admin: user === "admin" }, { headers: { "set-cookie": `sid=${sid}; HttpOnly; SameSite=Lax; Path=/` } })
}
