import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/**
 * Multipart uploads are upload intents too: their API id (unique, the path of their
 * endpoints), the store's id of the upload, and the part size the service chose.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE upload_intents ADD COLUMN upload_id text UNIQUE`
  yield* sql`ALTER TABLE upload_intents ADD COLUMN store_upload_id text`
  yield* sql`ALTER TABLE upload_intents ADD COLUMN part_size bigint CHECK (part_size > 0)`
  yield* sql`
    ALTER TABLE upload_intents ADD CONSTRAINT upload_intents_multipart_check
      CHECK ((upload_id IS NULL) = (store_upload_id IS NULL) AND (upload_id IS NULL) = (part_size IS NULL))
  `
})
