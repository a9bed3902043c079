import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/**
 * Sections: ordered groups of a course's lessons. A lesson references its section with
 * its own course id too, so a lesson can only be in a section of its course. Lesson
 * positions become dense per section (the loose lessons, `section_id` null, being one
 * group): the constraint is on a generated slot (0 for loose lessons), because a unique
 * constraint treats NULLs as distinct and a unique index cannot be deferred.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE sections (
      id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      course_id integer NOT NULL REFERENCES courses (id) ON DELETE CASCADE,
      title text NOT NULL,
      position integer NOT NULL CHECK (position >= 1),
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT sections_course_position_key UNIQUE (course_id, position) DEFERRABLE INITIALLY DEFERRED,
      CONSTRAINT sections_course_id_id_key UNIQUE (course_id, id)
    )
  `
  yield* sql`ALTER TABLE lessons ADD COLUMN section_id integer`
  yield* sql`
    ALTER TABLE lessons ADD CONSTRAINT lessons_section_fkey
      FOREIGN KEY (course_id, section_id) REFERENCES sections (course_id, id)
  `
  yield* sql`ALTER TABLE lessons ADD COLUMN section_slot integer GENERATED ALWAYS AS (coalesce(section_id, 0)) STORED`
  yield* sql`ALTER TABLE lessons DROP CONSTRAINT lessons_course_position_key`
  yield* sql`
    ALTER TABLE lessons ADD CONSTRAINT lessons_section_position_key
      UNIQUE (course_id, section_slot, position) DEFERRABLE INITIALLY DEFERRED
  `
})
