import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/**
 * Lessons, in a dense order per course, and purchases. Both go with their course. The
 * position constraint is checked at commit, so one statement can shift a run of lessons.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE lessons (
      id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      course_id integer NOT NULL REFERENCES courses (id) ON DELETE CASCADE,
      title text NOT NULL,
      content_html text NOT NULL,
      video_key text,
      is_preview boolean NOT NULL DEFAULT false,
      position integer NOT NULL CHECK (position >= 1),
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT lessons_course_position_key UNIQUE (course_id, position) DEFERRABLE INITIALLY DEFERRED
    )
  `
  yield* sql`
    CREATE TABLE purchases (
      user_id text NOT NULL,
      course_id integer NOT NULL REFERENCES courses (id) ON DELETE CASCADE,
      purchased_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (user_id, course_id)
    )
  `
  // A course's deletion finds its purchases through this index.
  yield* sql`CREATE INDEX purchases_course_id ON purchases (course_id)`
})
