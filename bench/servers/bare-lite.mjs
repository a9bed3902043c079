/**
 * The list benchmark's earlier baseline, kept for comparison: bare `node:http` + `pg` serving
 * the list with less than Coursekit does — no visibility filter, no catalogue version, no
 * ETag, Cache-Control or Vary — so it answers the same bytes only while every course is public.
 */
import { createServer } from "node:http"
import pg from "pg"

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.POOL_SIZE ?? 10) })
const cdn = "http://localhost/files/"

createServer(async (req, res) => {
  const url = new URL(req.url ?? "/", "http://x")
  if (url.pathname !== "/courses") {
    res.writeHead(404).end()
    return
  }
  const cursor = Number(url.searchParams.get("cursor") ?? 0)
  const limit = Number(url.searchParams.get("limit") ?? 10)
  const { rows } = await pool.query(
    "SELECT id, title, slug, thumbnail_key FROM coursekit.courses WHERE id >= $1 ORDER BY id LIMIT $2",
    [cursor, limit + 1]
  )
  const items = rows.slice(0, limit).map((row) => ({
    id: row.id,
    title: row.title,
    slug: row.slug,
    thumbnail_url: row.thumbnail_key === null ? null : cdn + row.thumbnail_key
  }))
  const headers = { "content-type": "application/json" }
  if (rows.length > limit) headers.link = `</courses?cursor=${rows[limit].id}&limit=${limit}>; rel="next"`
  res.writeHead(200, headers).end(JSON.stringify(items))
}).listen(Number(process.env.PORT), "127.0.0.1", () => console.log("ready"))
