import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { indexMissing } from "../PgCourseSearch.ts"

/**
 * Catalogue search: one search document per course (see `PgCourseSearch`), removed with
 * its course. `document` holds all the course's words and is GIN-indexed;
 * `title_words` and `description_words` give the score; `visible_from` is a copy of the
 * course's visibility, so a search filters and ranks on this table alone and reads
 * `courses` for one page of rows only.
 *
 * Triggers keep the table true to `courses`, whoever writes them: a document takes its
 * course's `visible_from` when written, and follows its `status` and `publish_at`; a
 * change of a course's text drops its document (Coursekit writes the new one in the
 * same transaction; after a plain SQL change, the next start does), so a course is never
 * found by words it no longer has.
 *
 * The words are computed in TypeScript (the slug's transliteration, the text of the
 * HTML), so existing courses are indexed here by the same code, in batches.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE course_search_documents (
      course_id integer PRIMARY KEY REFERENCES courses (id) ON DELETE CASCADE,
      visible_from timestamptz,
      document tsvector NOT NULL,
      title_words tsvector NOT NULL,
      description_words tsvector NOT NULL
    )
  `
  yield* sql`CREATE INDEX course_search_documents_document ON course_search_documents USING gin (document)`
  // Without statistics on `document` the planner estimates few matches for every query
  // and reads them through the index, which answers exactly: no document is read. With
  // them, a word most courses hold gets a sequential scan that reads (detoasts) every
  // document to test it: 91 ms instead of 14 ms over 10,000 courses (docs/benchmarks.md).
  yield* sql`ALTER TABLE course_search_documents ALTER COLUMN document SET STATISTICS 0`
  // From when the public sees a course: PgCourseRepo.visibleNow as an instant, so that
  // `visible_from <= now()` is that rule. Null: a draft, never.
  yield* sql`
    CREATE FUNCTION coursekit_visible_from(status text, publish_at timestamptz) RETURNS timestamptz
    LANGUAGE sql IMMUTABLE AS $$
      SELECT CASE WHEN status = 'published' THEN coalesce(publish_at, '-infinity'::timestamptz) END
    $$
  `
  yield* sql`
    CREATE FUNCTION coursekit_search_document_visibility() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      SELECT coursekit_visible_from(status, publish_at) INTO NEW.visible_from FROM courses WHERE id = NEW.course_id;
      RETURN NEW;
    END
    $$
  `
  yield* sql`
    CREATE TRIGGER course_search_documents_visibility
    BEFORE INSERT ON course_search_documents
    FOR EACH ROW EXECUTE FUNCTION coursekit_search_document_visibility()
  `
  yield* sql`
    CREATE FUNCTION coursekit_follow_course() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF (OLD.title, OLD.description, OLD.content_html) IS DISTINCT FROM (NEW.title, NEW.description, NEW.content_html) THEN
        DELETE FROM course_search_documents WHERE course_id = NEW.id;
      ELSE
        UPDATE course_search_documents SET visible_from = coursekit_visible_from(NEW.status, NEW.publish_at)
        WHERE course_id = NEW.id;
      END IF;
      RETURN NULL;
    END
    $$
  `
  yield* sql`
    CREATE TRIGGER courses_search_document
    AFTER UPDATE ON courses
    FOR EACH ROW
    WHEN ((OLD.title, OLD.description, OLD.content_html, OLD.status, OLD.publish_at)
      IS DISTINCT FROM (NEW.title, NEW.description, NEW.content_html, NEW.status, NEW.publish_at))
    EXECUTE FUNCTION coursekit_follow_course()
  `
  yield* indexMissing
})
