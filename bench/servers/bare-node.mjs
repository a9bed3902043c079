/**
 * Baseline (b) of the list benchmark, plain JavaScript run by node directly: bare
 * `node:http` + `pg` answering the public's `GET /courses` with the same statement, JSON
 * and headers as Coursekit (`list-common.mjs`) — no framework, no middleware.
 */
import { createServer } from "node:http"
import pg from "pg"
import { listPage } from "./list-common.mjs"

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.POOL_SIZE ?? 10) })

createServer(async (req, res) => {
  const url = req.url ?? "/"
  if (req.method !== "GET" || url.split("?")[0] !== "/courses") {
    res.writeHead(404).end()
    return
  }
  try {
    const { status, headers, body } = await listPage(pool, url, req.headers["if-none-match"])
    res.writeHead(status, headers).end(body)
  } catch {
    res.writeHead(503).end()
  }
}).listen(Number(process.env.PORT), "127.0.0.1", () => console.log("ready"))
