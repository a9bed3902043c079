/**
 * What the public-course baselines (`public-bare.mjs`, `public-fastify.mjs`) share: the
 * viewer from an HS256 JWT, checked as Coursekit's `JwtViewerResolver` checks it (with
 * `jose`: HS256 only, `sub` and `exp` required, `iss`/`aud` when set, 5 s of clock
 * tolerance, `sub` a user id), and the course as Coursekit answers it: the same rows,
 * the same JSON byte for byte, the same ETag, Cache-Control and Vary.
 *
 * Two round trips per request, for every caller:
 *   1. the course visible now by its slug, with whether the viewer bought it (an EXISTS on
 *      the purchases' primary key; false without a viewer);
 *   2. its lessons visible now with their sections' titles, in outline order, the bodies
 *      selected only for previews unless the viewer bought the course.
 * Lessons with a video are not handled (the benchmark has none): signing a private video's
 * URL is Coursekit's `MediaUrls`, not reproduced here.
 */
import { createHash } from "node:crypto"
import { jwtVerify } from "jose"

const cdn = "http://localhost/files/"
const secret = new TextEncoder().encode(process.env.JWT_SECRET ?? "")
const verifyOptions = {
  algorithms: ["HS256"],
  requiredClaims: ["sub", "exp"],
  clockTolerance: 5,
  ...(process.env.JWT_ISSUER ? { issuer: process.env.JWT_ISSUER } : {}),
  ...(process.env.JWT_AUDIENCE ? { audience: process.env.JWT_AUDIENCE } : {})
}
// Coursekit's UserId: 1–255 characters, no control characters, no NUL or unpaired surrogates.
const userId = /^[^\u0000-\u001f\u007f]{1,255}$/
const unpaired = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/
const bearer = /^Bearer +([A-Za-z0-9_.~+/=-]+)$/i

export const courseSql = `
  SELECT c.id, c.title, c.slug, c.content_html, c.description, c.thumbnail_key,
         $2::text IS NOT NULL AND EXISTS (SELECT 1 FROM coursekit.purchases p WHERE p.user_id = $2 AND p.course_id = c.id) AS purchased
  FROM coursekit.courses c
  WHERE c.slug = $1 AND c.status = 'published' AND (c.publish_at IS NULL OR c.publish_at <= now())`

export const lessonsSql = `
  SELECT l.id, l.section_id, s.title AS section_title, l.title, l.is_preview,
         CASE WHEN $2 OR l.is_preview THEN l.content_html END AS content_html
  FROM coursekit.lessons l LEFT JOIN coursekit.sections s ON s.id = l.section_id
  WHERE l.course_id = $1 AND l.status = 'published' AND (l.publish_at IS NULL OR l.publish_at <= now())
  ORDER BY coalesce(s.position, 0), l.position`

/** The viewer's user id, null when anonymous; throws `{ status: 401 }` for a token that does not verify. */
export const viewerOf = async (authorization) => {
  if (authorization === undefined || authorization === "") return null
  const match = bearer.exec(authorization.trim())
  if (match === null) throw { status: 401 }
  let payload
  try {
    ;({ payload } = await jwtVerify(match[1], secret, verifyOptions))
  } catch {
    throw { status: 401 }
  }
  if (typeof payload.sub !== "string" || !userId.test(payload.sub) || unpaired.test(payload.sub)) throw { status: 401 }
  return payload.sub
}

const lessonOf = (row, purchased, position) => {
  const access = row.is_preview ? "preview" : purchased ? "purchased" : "locked"
  return {
    id: row.id,
    title: row.title,
    position,
    is_preview: row.is_preview,
    access,
    content_html: access === "locked" ? null : row.content_html,
    video_url: null,
    video_url_expires_at: null,
    // Drip (`available_after_days`) is not handled either: the benchmark's lessons have none, so none is upcoming.
    available_at: null
  }
}

/**
 * The response for `course` (the first statement's row, undefined when none) and its
 * lesson rows (the second's), as `{ status, headers, body }`. Grouped as Coursekit
 * groups: the loose lessons, then the sections in order (only those with a lesson
 * shown), positions 1…n over what is shown.
 */
export const answerOf = (course, rows, viewer, ifNoneMatch, serialize = JSON.stringify) => {
  if (course === undefined) return { status: 404, headers: { "content-type": "application/json" }, body: '{"status":404}' }
  const purchased = course.purchased
  const loose = []
  const sections = []
  let current = null
  for (const row of rows) {
    if (row.section_id === null) {
      loose.push(lessonOf(row, purchased, loose.length + 1))
      continue
    }
    if (current === null || current.id !== row.section_id) {
      current = { id: row.section_id, title: row.section_title, position: sections.length + 1, lessons: [] }
      sections.push(current)
    }
    current.lessons.push(lessonOf(row, purchased, current.lessons.length + 1))
  }
  const body = serialize({
    id: course.id,
    title: course.title,
    slug: course.slug,
    content_html: course.content_html,
    description: course.description,
    thumbnail_url: course.thumbnail_key === null ? null : cdn + course.thumbnail_key.split("/").map(encodeURIComponent).join("/"),
    purchased,
    lessons: loose,
    sections
  })
  const etag = `"${createHash("sha256").update(body).digest("base64url").slice(0, 27)}"`
  const headers = {
    etag,
    "cache-control": viewer === null ? "public, no-cache" : "private, no-cache",
    vary: "authorization"
  }
  const notModified = ifNoneMatch !== undefined &&
    ifNoneMatch.split(",").some((tag) => tag.trim() === "*" || tag.trim().replace(/^W\//, "") === etag)
  if (notModified) return { status: 304, headers, body: "" }
  return { status: 200, headers: { ...headers, "content-type": "application/json" }, body }
}

/**
 * The response for `slug` and `viewer` over a `pg` pool: the two statements, then
 * {@link answerOf}. `production` (the `fastify-prod` peer): `checkCourse` and
 * `checkLessons` see each statement's rows before they are used, `serialize` writes the
 * course.
 */
export const publicCourse = async (pool, slug, viewer, ifNoneMatch, production = {}) => {
  // Named, so prepared once per connection, as Coursekit's driver prepares its statements.
  const courses = await pool.query({ name: "course", text: courseSql, values: [slug, viewer] })
  production.checkCourse?.(courses.rows)
  const course = courses.rows[0]
  if (course === undefined) return answerOf(undefined, [], viewer, ifNoneMatch)
  const { rows } = await pool.query({ name: "lessons", text: lessonsSql, values: [course.id, course.purchased] })
  production.checkLessons?.(rows)
  return answerOf(course, rows, viewer, ifNoneMatch, production.serialize)
}

const text = { type: "string" }
const optionalText = { type: ["string", "null"] }

/** JSON schema of a row of `courseSql`. */
export const courseRowSchema = {
  type: "object",
  required: ["id", "title", "slug", "content_html", "description", "thumbnail_key", "purchased"],
  properties: { id: { type: "integer" }, title: text, slug: text, content_html: text, description: optionalText, thumbnail_key: optionalText, purchased: { type: "boolean" } }
}

/** JSON schema of a row of `lessonsSql`. */
export const lessonRowSchema = {
  type: "object",
  required: ["id", "section_id", "section_title", "title", "is_preview", "content_html"],
  properties: {
    id: { type: "integer" },
    section_id: { type: ["integer", "null"] },
    section_title: optionalText,
    title: text,
    is_preview: { type: "boolean" },
    content_html: optionalText
  }
}

const lessonSchema = {
  type: "object",
  required: ["id", "title", "position", "is_preview", "access", "content_html", "video_url", "video_url_expires_at", "available_at"],
  properties: {
    id: { type: "integer" },
    title: text,
    position: { type: "integer" },
    is_preview: { type: "boolean" },
    access: { type: "string", enum: ["preview", "purchased", "locked", "upcoming"] },
    content_html: optionalText,
    video_url: optionalText,
    video_url_expires_at: optionalText,
    available_at: optionalText
  }
}

/** JSON schema of the public course, as the response schema of `fastify-prod`. */
export const publicCourseSchema = {
  type: "object",
  required: ["id", "title", "slug", "content_html", "description", "thumbnail_url", "purchased", "lessons", "sections"],
  properties: {
    id: { type: "integer" },
    title: text,
    slug: text,
    content_html: text,
    description: optionalText,
    thumbnail_url: optionalText,
    purchased: { type: "boolean" },
    lessons: { type: "array", items: lessonSchema },
    sections: {
      type: "array",
      items: {
        type: "object",
        required: ["id", "title", "position", "lessons"],
        properties: { id: { type: "integer" }, title: text, position: { type: "integer" }, lessons: { type: "array", items: lessonSchema } }
      }
    }
  }
}
