/**
 * Demo only: viewer tokens minted by an example's front server. `POST /demo/viewer-token`
 * with `{"user_id": "…"}` answers `{"token": "…"}`, an HS256 JWT signed with the
 * `JWT_SECRET` the example gives its service (as `npm run viewer-token` signs one). A real
 * app's sign-in, or its identity provider, issues viewer tokens; never expose this route.
 */
import { createHmac } from "node:crypto"
import type { IncomingMessage } from "node:http"
import { type ExampleRoute, guarded, problem } from "./FrontServer.ts"

/** As the service accepts a token's `sub` (core's UserId): 1 to 255 characters, no control characters. */
const userIdPattern = /^[^\u0000-\u001f\u007f]{1,255}$/

/** A viewer token as an identity provider would issue it: HS256 with `secret`, `sub` the user, an hour. */
export const viewerToken = (secret: string, userId: string) => {
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

/** The example `name`'s `POST /demo/viewer-token`, signing with `jwtSecret`. */
export const demoViewerTokenRoute = (name: string, jwtSecret: string): ExampleRoute => (request, response) => {
  if (request.method !== "POST" || request.url?.split("?")[0] !== "/demo/viewer-token") return false
  void jsonBody(request).then((body) =>
    guarded(name, response, () => {
      const userId = (body as { user_id?: unknown } | undefined)?.user_id
      if (typeof userId !== "string" || !userIdPattern.test(userId)) {
        return problem(request, response, 400, "Bad Request", "Send {\"user_id\": \"…\"}: 1 to 255 characters, no control characters.")
      }
      response.writeHead(200, { "content-type": "application/json", "cache-control": "no-store" })
      response.end(JSON.stringify({ token: viewerToken(jwtSecret, userId) }))
    }), () => response.destroy()) // the request broke off mid-body: its client is gone
  return true
}
