import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/**
 * Learners: drip (`lessons.available_after_days`: a buyer's lesson opens that many days
 * after the purchase), each learner's progress per lesson (completion and resume
 * position), and per course (completion, last activity). Progress goes with its lesson
 * and course, not with the purchase: a revoked and renewed purchase finds it again.
 * Lesson revisions written before drip get the field, null, so every snapshot decodes.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE lessons ADD COLUMN available_after_days integer CHECK (available_after_days BETWEEN 0 AND 3650)`
  yield* sql`UPDATE lesson_revisions SET snapshot = snapshot || '{"available_after_days": null}'::jsonb`
  yield* sql`
    CREATE TABLE lesson_progress (
      user_id text NOT NULL,
      lesson_id integer NOT NULL REFERENCES lessons (id) ON DELETE CASCADE,
      course_id integer NOT NULL REFERENCES courses (id) ON DELETE CASCADE,
      completed_at timestamptz,
      position_seconds double precision NOT NULL DEFAULT 0 CHECK (position_seconds BETWEEN 0 AND 604800),
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (user_id, lesson_id)
    )`
  yield* sql`CREATE INDEX lesson_progress_course_user ON lesson_progress (course_id, user_id)`
  yield* sql`CREATE INDEX lesson_progress_lesson ON lesson_progress (lesson_id)`
  yield* sql`
    CREATE TABLE course_progress (
      user_id text NOT NULL,
      course_id integer NOT NULL REFERENCES courses (id) ON DELETE CASCADE,
      completed_at timestamptz,
      last_activity_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (user_id, course_id)
    )`
  yield* sql`CREATE INDEX course_progress_course ON course_progress (course_id)`
})
