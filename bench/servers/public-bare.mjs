/**
 * Baseline of the public-course benchmark, plain JavaScript run by node directly: bare
 * `node:http` + `pg` answering `GET /public/courses/{slug}` with the same viewer check,
 * queries, JSON and caching headers as Coursekit (`public-course-common.mjs`) — no
 * framework, no middleware.
 */
import { createServer } from "node:http"
import pg from "pg"
import { publicCourse, viewerOf } from "./public-course-common.mjs"

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.POOL_SIZE ?? 10) })
const prefix = "/public/courses/"

const send = (res, { status, headers, body }) => res.writeHead(status, headers).end(body)

createServer(async (req, res) => {
  const path = (req.url ?? "/").split("?")[0]
  if (req.method !== "GET" || !path.startsWith(prefix) || path.length === prefix.length) {
    res.writeHead(404).end()
    return
  }
  try {
    const viewer = await viewerOf(req.headers.authorization)
    send(res, await publicCourse(pool, decodeURIComponent(path.slice(prefix.length)), viewer, req.headers["if-none-match"]))
  } catch (error) {
    if (error?.status === 401) send(res, { status: 401, headers: { "www-authenticate": "Bearer" }, body: "" })
    else send(res, { status: 503, headers: {}, body: "" })
  }
}).listen(Number(process.env.PORT), "127.0.0.1", () => console.log("ready"))
