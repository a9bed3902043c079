/**
 * What the learner-progress baseline (`progress-bare.mjs`) does per request, apart from
 * HTTP and the viewer (`public-course-common.mjs`'s `viewerOf`): the body read as
 * `ProgressUpdate` reads it (an object with `completed`, a boolean, and/or
 * `position_seconds`, a finite number of 0–604,800; else a 400), and the statements of
 * Coursekit's `PgProgressRepo.record`, each prepared once per connection:
 *   1. the write, one statement: the access check (the lesson and its course visible now
 *      — published, `publish_at` null or passed —, the viewer's purchase, and whether it
 *      is open now: a preview, or bought and released by drip, `purchased_at` +
 *      `available_after_days` days; no row is a 404, closed a 403 with `available_at`
 *      when drip will open it) and, only when open, the course's progress upserted first
 *      (its row lock queues the learner's writes to one course), then the lesson's;
 *   2. for a completion, in one transaction with the write, while the course is not
 *      completed: the course completed if every lesson visible now is.
 * A position save is the write alone, a transaction of its own.
 * The answer is the lesson's progress as Coursekit writes it (`LessonProgress`, the same
 * keys in the same order); a refusal Coursekit's problem, the same bytes (a 400's detail
 * aside: Coursekit's names Schema's check).
 */
export const maxPositionSeconds = 604_800

/** Visible now, for the row alias `alias`. */
const visible = (alias) => `${alias}.status = 'published' AND (${alias}.publish_at IS NULL OR ${alias}.publish_at <= now())`
/** When lesson `l` opens for the purchase `p` (drip). */
const opensAtSql = `(p.purchased_at + coalesce(l.available_after_days, 0) * interval '1 day')`

export const writeSql = `
  WITH input (user_id, lesson_id, completed, position_seconds) AS (
    VALUES ($1::text, $2::integer, $3::boolean, $4::double precision)
  ), access AS (
    SELECT l.course_id, (l.is_preview OR (p.purchased_at IS NOT NULL AND ${opensAtSql} <= now())) AS open,
           CASE WHEN NOT l.is_preview AND ${opensAtSql} > now() THEN ${opensAtSql} END AS opens_at
    FROM input
    JOIN coursekit.lessons l ON l.id = input.lesson_id AND ${visible("l")}
    JOIN coursekit.courses c ON c.id = l.course_id AND ${visible("c")}
    LEFT JOIN coursekit.purchases p ON p.course_id = l.course_id AND p.user_id = input.user_id
  ), course AS (
    INSERT INTO coursekit.course_progress (user_id, course_id)
    SELECT input.user_id, access.course_id FROM input, access WHERE access.open
    ON CONFLICT (user_id, course_id) DO UPDATE SET last_activity_at = now()
    RETURNING course_id, completed_at
  ), lesson AS (
    INSERT INTO coursekit.lesson_progress AS lp (user_id, lesson_id, course_id, completed_at, position_seconds)
    SELECT input.user_id, input.lesson_id, course.course_id, CASE WHEN input.completed THEN now() END, coalesce(input.position_seconds, 0)
    FROM input, course
    ON CONFLICT (user_id, lesson_id) DO UPDATE SET
      completed_at = CASE WHEN (SELECT completed FROM input) IS NULL THEN lp.completed_at
                          WHEN (SELECT completed FROM input) THEN coalesce(lp.completed_at, now()) END,
      position_seconds = coalesce((SELECT position_seconds FROM input), lp.position_seconds),
      updated_at = now()
    RETURNING lesson_id, course_id, completed_at IS NOT NULL AS completed, completed_at, position_seconds, updated_at
  )
  SELECT a.open, a.opens_at, course.completed_at AS course_completed_at,
         lesson.lesson_id, lesson.course_id, lesson.completed, lesson.completed_at, lesson.position_seconds, lesson.updated_at
  FROM access a LEFT JOIN course ON true LEFT JOIN lesson ON true`

export const completionSql = `
  UPDATE coursekit.course_progress SET completed_at = now()
  WHERE user_id = $1 AND course_id = $2 AND completed_at IS NULL
    AND NOT EXISTS (
      SELECT 1 FROM coursekit.lessons l
      WHERE l.course_id = $2 AND ${visible("l")}
        AND NOT EXISTS (
          SELECT 1 FROM coursekit.lesson_progress done
          WHERE done.user_id = $1 AND done.lesson_id = l.id AND done.completed_at IS NOT NULL))
  RETURNING completed_at`

export const json = { "content-type": "application/json" }
export const problem = (status, title, detail, extra = {}) => ({
  status,
  headers: { "content-type": "application/problem+json" },
  body: JSON.stringify({ detail, ...extra, type: "about:blank", status, title })
})

/** Coursekit's 401 (its fields in its order). */
const unauthorized = (detail) => ({
  status: 401,
  headers: { "content-type": "application/problem+json" },
  body: JSON.stringify({ type: "about:blank", title: "Unauthorized", status: 401, detail })
})
export const anonymous = unauthorized("Progress is a signed-in learner's: sign in (a viewer token, or the app's login) first.")
export const invalidToken = unauthorized("The viewer token is not valid.")

/** The update `{ completed, position }` (null for an absent field), or null when the body is not a `ProgressUpdate`. */
export const updateOf = (text) => {
  let body
  try {
    body = JSON.parse(text)
  } catch {
    return null
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) return null
  const { completed, position_seconds } = body
  if (completed !== undefined && typeof completed !== "boolean") return null
  if (position_seconds !== undefined && !(typeof position_seconds === "number" && position_seconds >= 0 && position_seconds <= maxPositionSeconds)) return null
  if (completed === undefined && position_seconds === undefined) return null
  return { completed: completed ?? null, position: position_seconds ?? null }
}

/** The answer to the write's row (`writeSql`), or null when the lesson was written. */
const refusalOf = (rows, lessonId) => {
  if (rows.length === 0) return problem(404, "Not Found", `No lesson with id ${lessonId} is visible now.`)
  const { open, opens_at: opensAt } = rows[0]
  if (open) return null
  return problem(403, "Forbidden", opensAt === null
    ? `Lesson ${lessonId} is open only to buyers of its course.`
    : `Lesson ${lessonId} opens for you at ${opensAt.toISOString()}.`, { available_at: opensAt === null ? null : opensAt.toISOString() })
}

const written = (row, serialize = JSON.stringify) => ({
  status: 200,
  headers: json,
  body: serialize({
    lesson_id: row.lesson_id,
    course_id: row.course_id,
    completed: row.completed,
    completed_at: row.completed_at === null ? null : row.completed_at.toISOString(),
    position_seconds: row.position_seconds,
    updated_at: row.updated_at.toISOString()
  })
})

const instant = { anyOf: [{ type: "null" }, { type: "object", instanceofDate: true }] }

/** JSON schema of the write's row (`writeSql`), for the production peer's row check: instants are `Date`s or null. */
export const writeRowSchema = {
  type: "object",
  required: ["open", "opens_at", "course_completed_at", "lesson_id", "course_id", "completed", "completed_at", "position_seconds", "updated_at"],
  properties: {
    open: { type: "boolean" },
    opens_at: instant,
    course_completed_at: instant,
    lesson_id: { type: ["integer", "null"] },
    course_id: { type: ["integer", "null"] },
    completed: { type: ["boolean", "null"] },
    completed_at: instant,
    position_seconds: { type: ["number", "null"] },
    updated_at: instant
  }
}

/** JSON schema of the answer (`LessonProgress`), the production peer's response schema. */
export const progressSchema = {
  type: "object",
  required: ["lesson_id", "course_id", "completed", "completed_at", "position_seconds", "updated_at"],
  properties: {
    lesson_id: { type: "integer" },
    course_id: { type: "integer" },
    completed: { type: "boolean" },
    completed_at: { type: ["string", "null"] },
    position_seconds: { type: "number" },
    updated_at: { type: "string" }
  }
}

/**
 * `PgProgressRepo.record`'s statements on a connection of `pool`; answers `{ status, headers, body }`.
 * `production` (the `fastify-prod` peer): `checkRows` sees the write's rows before they are used,
 * `serialize` writes the answer.
 */
export const recordProgress = async (pool, userId, lessonId, { completed, position }, production = {}) => {
  const write = { name: "write", text: writeSql, values: [userId, lessonId, completed, position] }
  // Not a completion: the write alone.
  if (completed !== true) {
    const { rows } = await pool.query(write)
    production.checkRows?.(rows)
    return refusalOf(rows, lessonId) ?? written(rows[0], production.serialize)
  }
  const client = await pool.connect()
  try {
    await client.query("BEGIN")
    const { rows } = await client.query(write)
    production.checkRows?.(rows)
    const refusal = refusalOf(rows, lessonId)
    if (refusal !== null) {
      await client.query("ROLLBACK")
      return refusal
    }
    const [row] = rows
    if (row.course_completed_at === null) {
      await client.query({ name: "completion", text: completionSql, values: [userId, row.course_id] })
    }
    await client.query("COMMIT")
    return written(row, production.serialize)
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {})
    throw error
  } finally {
    client.release()
  }
}
