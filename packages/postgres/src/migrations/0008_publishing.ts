import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/**
 * Drafts and scheduled releases: courses and lessons get `status` and `publish_at`.
 * Existing rows are published at once, as they were visible before. The partial index
 * answers "the next scheduled release" (part of the catalogue version) with one probe.
 * The version shows that instant only hashed with `release_salt`, a random value every
 * instance reads from here: ETags are public, the launch date of a hidden course is not.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  for (const table of ["courses", "lessons"]) {
    yield* sql`
      ALTER TABLE ${sql(table)}
        ADD COLUMN status text NOT NULL DEFAULT 'published' CHECK (status IN ('draft', 'published')),
        ADD COLUMN publish_at timestamptz
    `
  }
  yield* sql`
    ALTER TABLE coursekit_catalogue_version ADD COLUMN release_salt text NOT NULL DEFAULT gen_random_uuid()::text
  `
  yield* sql`
    CREATE INDEX courses_scheduled_release ON courses (publish_at)
    WHERE status = 'published' AND publish_at IS NOT NULL
  `
})
