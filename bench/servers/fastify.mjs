/**
 * Comparison (c), plain JavaScript run by node directly: Fastify + the same `pg` client as the baseline, same query and output.
 */
import Fastify from "fastify"
import pg from "pg"

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.POOL_SIZE ?? 10) })
const cdn = "http://localhost/files/"
const app = Fastify({ logger: false })

app.get("/courses", async (request, reply) => {
  const cursor = Number(request.query.cursor ?? 0)
  const limit = Number(request.query.limit ?? 10)
  const { rows } = await pool.query(
    "SELECT id, title, slug, thumbnail_key FROM courses WHERE id >= $1 ORDER BY id LIMIT $2",
    [cursor, limit + 1]
  )
  if (rows.length > limit) reply.header("link", `</courses?cursor=${rows[limit].id}&limit=${limit}>; rel="next"`)
  return rows.slice(0, limit).map((row) => ({
    id: row.id,
    title: row.title,
    slug: row.slug,
    thumbnail_url: row.thumbnail_key === null ? null : cdn + row.thumbnail_key
  }))
})

app.listen({ port: Number(process.env.PORT), host: "127.0.0.1" }).then(() => console.log("ready"))
