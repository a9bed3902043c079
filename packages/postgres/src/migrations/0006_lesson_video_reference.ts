import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/**
 * A lesson's video is a media file: the reference keeps a media file from being deleted
 * while a lesson plays it, also when both happen at once. `NOT VALID`: lessons stored
 * before the reference existed are not checked (the service always required a finalized
 * file, but a host may have written rows beside it); every new or changed lesson is.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    ALTER TABLE lessons ADD CONSTRAINT lessons_video_key_fkey
      FOREIGN KEY (video_key) REFERENCES media_files (key) NOT VALID
  `
  // Which lessons use a file: the reference's check on delete, and the 409's names.
  yield* sql`CREATE INDEX lessons_video_key ON lessons (video_key) WHERE video_key IS NOT NULL`
})
