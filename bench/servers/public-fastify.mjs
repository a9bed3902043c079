/**
 * Comparison in the public-course benchmark, plain JavaScript run by node directly:
 * Fastify + the same `pg` client, viewer check, queries, JSON and caching headers as the
 * bare baseline (`public-course-common.mjs`).
 */
import Fastify from "fastify"
import pg from "pg"
import { publicCourse, viewerOf } from "./public-course-common.mjs"

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.POOL_SIZE ?? 10) })
const app = Fastify({ logger: false })

app.get("/public/courses/:slug", async (request, reply) => {
  let viewer
  try {
    viewer = await viewerOf(request.headers.authorization)
  } catch {
    return reply.code(401).header("www-authenticate", "Bearer").send("")
  }
  const { status, headers, body } = await publicCourse(pool, request.params.slug, viewer, request.headers["if-none-match"])
  return reply.code(status).headers(headers).send(body)
})

app.listen({ port: Number(process.env.PORT), host: "127.0.0.1" }).then(() => console.log("ready"))
