/**
 * What the learner-progress baseline (`progress-bare.mjs`) does per request, apart from
 * HTTP and the viewer (`public-course-common.mjs`'s `viewerOf`): the body read as
 * `ProgressUpdate` reads it (an object with `completed`, a boolean, and/or
 * `position_seconds`, a finite number of 0–604,800; else a 400), and one transaction with
 * the statements of Coursekit's `PgProgressRepo.record`, each prepared once per connection:
 *   1. the access check: the lesson and its course visible now (published, `publish_at`
 *      null or passed), the viewer's purchase, and whether it is open now (a preview, or
 *      bought and released by drip: `purchased_at` + `available_after_days` days) — no
 *      row is a 404, closed a 403 (with `available_at` when drip will open it);
 *   2. the course's progress upserted first (its row lock queues the learner's writes to
 *      one course);
 *   3. the lesson's progress upserted;
 *   4. for a completion while the course is not completed: the course completed if every
 *      lesson visible now is.
 * The answer is the lesson's progress as Coursekit writes it (`LessonProgress`, the same
 * keys in the same order); a refusal Coursekit's problem, the same bytes (a 400's detail
 * aside: Coursekit's names Schema's check).
 */
const maxPositionSeconds = 604_800

/** Visible now, for the row alias `alias`. */
const visible = (alias) => `${alias}.status = 'published' AND (${alias}.publish_at IS NULL OR ${alias}.publish_at <= now())`
/** When lesson `l` opens for the purchase `p` (drip). */
const opensAtSql = `(p.purchased_at + coalesce(l.available_after_days, 0) * interval '1 day')`

export const accessSql = `
  SELECT l.course_id, (l.is_preview OR (p.purchased_at IS NOT NULL AND ${opensAtSql} <= now())) AS open,
         CASE WHEN NOT l.is_preview AND ${opensAtSql} > now() THEN ${opensAtSql} END AS opens_at
  FROM coursekit.lessons l
  JOIN coursekit.courses c ON c.id = l.course_id AND ${visible("c")}
  LEFT JOIN coursekit.purchases p ON p.course_id = l.course_id AND p.user_id = $1
  WHERE l.id = $2 AND ${visible("l")}`

export const courseSql = `
  INSERT INTO coursekit.course_progress (user_id, course_id) VALUES ($1, $2)
  ON CONFLICT (user_id, course_id) DO UPDATE SET last_activity_at = now()
  RETURNING completed_at`

export const lessonSql = `
  INSERT INTO coursekit.lesson_progress AS lp (user_id, lesson_id, course_id, completed_at, position_seconds)
  VALUES ($1, $2, $3, CASE WHEN $4::boolean THEN now() END, coalesce($5::double precision, 0))
  ON CONFLICT (user_id, lesson_id) DO UPDATE SET
    completed_at = CASE WHEN $4::boolean IS NULL THEN lp.completed_at
                        WHEN $4::boolean THEN coalesce(lp.completed_at, now()) END,
    position_seconds = coalesce($5::double precision, lp.position_seconds),
    updated_at = now()
  RETURNING lesson_id, course_id, completed_at IS NOT NULL AS completed, completed_at, position_seconds, updated_at`

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

/** `PgProgressRepo.record`'s transaction on a connection of `pool`; answers `{ status, headers, body }`. */
export const recordProgress = async (pool, userId, lessonId, { completed, position }) => {
  const client = await pool.connect()
  try {
    await client.query("BEGIN")
    const access = await client.query({ name: "access", text: accessSql, values: [userId, lessonId] })
    if (access.rows.length === 0) {
      await client.query("ROLLBACK")
      return problem(404, "Not Found", `No lesson with id ${lessonId} is visible now.`)
    }
    const { course_id: courseId, open, opens_at: opensAt } = access.rows[0]
    if (!open) {
      await client.query("ROLLBACK")
      return problem(403, "Forbidden", opensAt === null
        ? `Lesson ${lessonId} is open only to buyers of its course.`
        : `Lesson ${lessonId} opens for you at ${opensAt.toISOString()}.`, { available_at: opensAt === null ? null : opensAt.toISOString() })
    }
    // First, and locking: the learner's writes to this course queue here.
    const course = await client.query({ name: "course", text: courseSql, values: [userId, courseId] })
    const { rows: [row] } = await client.query({ name: "lesson", text: lessonSql, values: [userId, lessonId, courseId, completed, position] })
    if (completed === true && course.rows[0].completed_at === null) {
      await client.query({ name: "completion", text: completionSql, values: [userId, courseId] })
    }
    await client.query("COMMIT")
    return {
      status: 200,
      headers: json,
      body: JSON.stringify({
        lesson_id: row.lesson_id,
        course_id: row.course_id,
        completed: row.completed,
        completed_at: row.completed_at === null ? null : row.completed_at.toISOString(),
        position_seconds: row.position_seconds,
        updated_at: row.updated_at.toISOString()
      })
    }
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {})
    throw error
  } finally {
    client.release()
  }
}
