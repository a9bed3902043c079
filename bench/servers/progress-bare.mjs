/**
 * Baseline of the learner-progress benchmark, plain JavaScript run by node directly: bare
 * `node:http` + `pg` answering `PUT /me/lessons/{lesson_id}/progress` as Coursekit does —
 * no framework, no middleware. The viewer is checked as the public-course baselines check
 * it (`viewerOf` of `public-course-common.mjs`: `jose`, HS256, `sub` and `exp`,
 * `iss`/`aud`; none or a bad token is a 401), the lesson id as a canonical decimal (else a
 * 400); the body and the transaction are `progress-common.mjs`'s. `GET /health/ready`
 * answers 200 once the database does.
 */
import { createServer } from "node:http"
import pg from "pg"
import { anonymous, invalidToken, json, problem, recordProgress, updateOf } from "./progress-common.mjs"
import { viewerOf } from "./public-course-common.mjs"

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.POOL_SIZE ?? 10) })
const route = /^\/me\/lessons\/([^/]+)\/progress$/
const canonicalId = /^[1-9][0-9]{0,9}$/
const maxId = 2_147_483_647

const send = (res, { status, headers, body }) => res.writeHead(status, headers).end(body)

const readBody = (req) =>
  new Promise((done, fail) => {
    const chunks = []
    req.on("data", (chunk) => chunks.push(chunk)).on("end", () => done(Buffer.concat(chunks).toString("utf8"))).on("error", fail)
  })

createServer(async (req, res) => {
  const path = (req.url ?? "/").split("?")[0]
  try {
    if (req.method === "GET" && path === "/health/ready") {
      await pool.query("SELECT 1")
      send(res, { status: 200, headers: json, body: '{"status":"ready"}' })
      return
    }
    const match = route.exec(path)
    if (req.method !== "PUT" || match === null) {
      req.resume()
      send(res, problem(404, "Not Found", "No such route."))
      return
    }
    const text = await readBody(req)
    let viewer
    try {
      viewer = await viewerOf(req.headers.authorization)
    } catch {
      send(res, invalidToken)
      return
    }
    if (viewer === null) {
      send(res, anonymous)
      return
    }
    const update = updateOf(text)
    if (!canonicalId.test(match[1]) || Number(match[1]) > maxId || update === null) {
      send(res, problem(400, "Bad Request", "Invalid request."))
      return
    }
    send(res, await recordProgress(pool, viewer, Number(match[1]), update))
  } catch {
    send(res, { status: 503, headers: {}, body: "" })
  }
}).listen(Number(process.env.PORT), "127.0.0.1", () => console.log("ready"))
