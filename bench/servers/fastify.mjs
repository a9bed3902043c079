/**
 * Comparison (c) of the list benchmark, plain JavaScript run by node directly: Fastify +
 * the same `pg` client, statement, JSON and headers as the bare baseline (`list-common.mjs`).
 */
import Fastify from "fastify"
import pg from "pg"
import { listPage } from "./list-common.mjs"

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.POOL_SIZE ?? 10) })
const app = Fastify({ logger: false })

app.get("/courses", async (request, reply) => {
  const { status, headers, body } = await listPage(pool, request.url, request.headers["if-none-match"])
  // A Buffer: Fastify adds "; charset=utf-8" to a string's type, and Coursekit writes none.
  return reply.code(status).headers(headers).send(Buffer.from(body))
})

app.listen({ port: Number(process.env.PORT), host: "127.0.0.1" }).then(() => console.log("ready"))
