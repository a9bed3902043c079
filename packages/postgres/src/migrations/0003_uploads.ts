import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/**
 * Upload intents (keys issued with a presigned PUT) and media files (confirmed uploads,
 * keyed by storage key). Intents of a deleted course go with it; its objects are then
 * reconciled by the sweep. Media files stay: they are the library, thumbnails included.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE upload_intents (
      key text PRIMARY KEY,
      purpose text NOT NULL CHECK (purpose IN ('thumbnail', 'media')),
      course_id integer REFERENCES courses (id) ON DELETE CASCADE,
      file_name text NOT NULL,
      content_type text NOT NULL,
      size_bytes bigint CHECK (size_bytes >= 0),
      expires_at timestamptz NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      finalized_at timestamptz,
      CHECK ((purpose = 'thumbnail') = (course_id IS NOT NULL))
    )
  `
  // The sweep reads the oldest unfinalized intents.
  yield* sql`CREATE INDEX upload_intents_abandoned ON upload_intents (expires_at) WHERE finalized_at IS NULL`
  yield* sql`
    CREATE TABLE media_files (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      key text NOT NULL UNIQUE,
      name text NOT NULL,
      size_bytes bigint NOT NULL CHECK (size_bytes >= 0),
      content_type text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )
  `
})
