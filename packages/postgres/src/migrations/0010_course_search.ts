import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { indexMissing } from "../PgCourseSearch.ts"

/**
 * Catalogue search: one search document per course (see `PgCourseSearch`), removed with
 * its course. `document` holds all the course's words and is GIN-indexed;
 * `title_words` and `description_words` give the score. A change of a course's text that
 * does not come with a new document (plain SQL) drops the old one, so a course is never
 * found by words it no longer has; the next start writes it again.
 *
 * The words are computed in TypeScript (the slug's transliteration, the text of the
 * HTML), so existing courses are indexed here by the same code, in batches.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE course_search_documents (
      course_id integer PRIMARY KEY REFERENCES courses (id) ON DELETE CASCADE,
      document tsvector NOT NULL,
      title_words tsvector NOT NULL,
      description_words tsvector NOT NULL
    )
  `
  yield* sql`CREATE INDEX course_search_documents_document ON course_search_documents USING gin (document)`
  yield* sql`
    CREATE FUNCTION coursekit_drop_search_document() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      DELETE FROM course_search_documents WHERE course_id = NEW.id;
      RETURN NULL;
    END
    $$
  `
  // Coursekit's own updates write the new document after this, in the same transaction.
  yield* sql`
    CREATE TRIGGER courses_drop_stale_search_document
    AFTER UPDATE OF title, description, content_html ON courses
    FOR EACH ROW
    WHEN (OLD.title IS DISTINCT FROM NEW.title OR OLD.description IS DISTINCT FROM NEW.description
      OR OLD.content_html IS DISTINCT FROM NEW.content_html)
    EXECUTE FUNCTION coursekit_drop_search_document()
  `
  yield* indexMissing
})
