/**
 * What the list baselines (`bare-node.mjs`, `fastify.mjs`, `effect-router.mjs`) share: `GET /courses` for the
 * public as Coursekit answers it — the same statement (the page of courses visible now
 * and the catalogue version it was read at, in one snapshot: `PgCourseRepo.list`), the
 * same JSON byte for byte, and the same `Link`, ETag (version and page), Cache-Control
 * and Vary; `If-None-Match` naming the ETag is a 304. One round trip per request, a
 * statement prepared once per connection.
 */
const cdn = "http://localhost/files/"
const positiveInt = /^[1-9][0-9]{0,9}$/

export const listSql = `
  SELECT listed.version, page.id, page.title, page.slug, page.thumbnail_key
  FROM coursekit.coursekit_catalogue_token() AS listed(version)
  LEFT JOIN LATERAL (
    SELECT id, title, slug, thumbnail_key FROM coursekit.courses
    WHERE id >= $1 AND status = 'published' AND (publish_at IS NULL OR publish_at <= now())
    ORDER BY id
    LIMIT $2
  ) AS page ON true
  ORDER BY page.id`

/** The page `url` (path and query) asks for, or a 400 response for a query Coursekit refuses. */
export const pageOf = (url) => {
  const params = new URLSearchParams(url.includes("?") ? url.slice(url.indexOf("?") + 1) : "")
  const cursor = params.get("cursor") ?? "0"
  const limit = params.get("limit") ?? "10"
  if ((cursor !== "0" && !positiveInt.test(cursor)) || !positiveInt.test(limit) || Number(limit) > 50) {
    return { refused: { status: 400, headers: { "content-type": "application/problem+json" }, body: '{"status":400}' } }
  }
  return { cursor, limit, values: [Number(cursor), Number(limit) + 1] }
}

/**
 * The response for `page` from the rows of `listSql`: `{ status, headers, body }`, the
 * items written by `serialize` (`JSON.stringify` unless a response schema's serializer
 * is given).
 */
export const pageResponse = (rows, page, ifNoneMatch, serialize = JSON.stringify) => {
  const size = Number(page.limit)
  const version = rows[0].version
  const found = rows[0].id === null ? [] : rows
  const headers = { etag: `"${version}.${page.cursor}.${page.limit}"`, "cache-control": "no-cache", vary: "authorization, cookie" }
  const notModified = ifNoneMatch !== undefined &&
    ifNoneMatch.split(",").some((tag) => tag.trim() === "*" || tag.trim().replace(/^W\//, "") === headers.etag)
  if (notModified) return { status: 304, headers, body: "" }
  if (found.length > size) headers.link = `</courses?cursor=${found[size].id}&limit=${size}>; rel="next"`
  const items = found.slice(0, size).map((row) => ({
    id: row.id,
    title: row.title,
    slug: row.slug,
    thumbnail_url: row.thumbnail_key === null ? null : cdn + row.thumbnail_key.split("/").map(encodeURIComponent).join("/")
  }))
  return { status: 200, headers: { "content-type": "application/json", ...headers }, body: serialize(items) }
}

/**
 * The response to `url` read through a `pg` pool. `production` (the `fastify-prod`
 * peer): `checkRows` sees the rows before they are used, `serialize` writes the items.
 */
export const listPage = async (pool, url, ifNoneMatch, production = {}) => {
  const page = pageOf(url)
  if (page.refused !== undefined) return page.refused
  // Named, so prepared once per connection, as Coursekit's driver prepares its statements.
  const { rows } = await pool.query({ name: "list", text: listSql, values: page.values })
  production.checkRows?.(rows)
  return pageResponse(rows, page, ifNoneMatch, production.serialize)
}

/** JSON schema of a row of `listSql` (the page's rows, or one row of nulls past the end). */
export const listRowSchema = {
  type: "object",
  required: ["version", "id", "title", "slug", "thumbnail_key"],
  properties: {
    version: { type: "string" },
    id: { type: ["integer", "null"] },
    title: { type: ["string", "null"] },
    slug: { type: ["string", "null"] },
    thumbnail_key: { type: ["string", "null"] }
  }
}

/** JSON schema of a page's items, as the response schema of `fastify-prod`. */
export const listItemsSchema = {
  type: "array",
  items: {
    type: "object",
    required: ["id", "title", "slug", "thumbnail_url"],
    properties: {
      id: { type: "integer" },
      title: { type: "string" },
      slug: { type: "string" },
      thumbnail_url: { type: ["string", "null"] }
    }
  }
}
