/**
 * The search documents of courses on PostgreSQL and PGlite, by the rules of core's
 * `CourseSearch`, with nothing but built-in full-text types (no extension, so PGlite runs
 * the same SQL). The query itself is `PgCourseRepo.search`.
 *
 * Each course has one row in `course_search_documents` (migration 0010): `document`, all
 * its searchable words (GIN-indexed: it finds the matches), `title_words` and
 * `description_words` (small: they give the score), and `visible_from`, the course's
 * visibility as an instant, kept by triggers (`visible_from <= now()` is
 * `PgCourseRepo.visibleNow`). The words are computed in
 * TypeScript (`searchDocument`: transliteration, text of the HTML) and written as
 * `tsvector` literals, never through a text-search parser: PostgreSQL's parser splits
 * `12e3x` into `12e3` and `x`; a literal keeps exactly the words the in-memory store
 * sees. A query is a `tsquery` literal of the same words, ANDed, the last as a prefix
 * (`'creme' & 'bru':*`).
 *
 * The score needs no position and reads neither `document` nor the body: per query
 * word, the title's weight when `title_words` has it, else the description's when
 * `description_words` has it, else the body's (it matched, so the body has it).
 *
 * A course written beside Coursekit has no document: an insert by plain SQL writes
 * none, and an update of `title`, `description` or `content_html` by plain SQL drops it
 * (trigger of migration 0010), so no course is found by words it no longer has. Such
 * courses are not found by search until {@link indexMissing} writes their documents:
 * at every start, after the migrations. A plain SQL change of `status` or `publish_at`
 * shows at once (trigger).
 *
 * @since 0.2.0
 */
import { CourseRecord, type SearchDocument, searchDocument } from "@coursekit/core"
import { Array as Arr, Effect, Schema, Struct } from "effect"
import { SqlClient } from "effect/sql"
import { PgSchema, type PgTables, tablesOf } from "./PgSchema.ts"

const decodeSources = Schema.decodeUnknownEffect(
  Schema.Array(CourseRecord.mapFields(Struct.pick(["id", "title", "description", "content_html"])))
)

/** A word as a quoted lexeme of a `tsvector` or `tsquery` literal. Words are letters and digits; quoting is for safety. */
const lexeme = (word: string) => `'${word.replace(/\\/g, "\\\\").replace(/'/g, "''")}'`

const tsvector = (words: Iterable<string>) => Array.from(words, lexeme).join(" ")

/** The columns of a course's row in `course_search_documents`. */
const columnsOf = (courseId: number, document: SearchDocument) => ({
  course_id: courseId,
  document: tsvector(new Set([...document.title, ...document.description, ...document.body])),
  title_words: tsvector(document.title),
  description_words: tsvector(document.description)
})

/**
 * Writes the search documents of `courses`: `replace` the ones there (a write through the
 * repository, which knows the course's current text), or `keep` them (a catch-up, which
 * must not overwrite a newer one).
 */
export const writeDocuments = (
  sql: SqlClient.SqlClient,
  t: PgTables,
  courses: Arr.NonEmptyReadonlyArray<{ readonly id: number; readonly document: SearchDocument }>,
  onConflict: "replace" | "keep"
) =>
  sql`
    INSERT INTO ${t.course_search_documents} ${sql.insert(Arr.map(courses, ({ document, id }) => columnsOf(id, document)))}
    ON CONFLICT (course_id) DO ${
    onConflict === "keep"
      ? sql`NOTHING`
      : sql`UPDATE SET document = EXCLUDED.document, title_words = EXCLUDED.title_words,
          description_words = EXCLUDED.description_words, visible_from = EXCLUDED.visible_from`
  }
  `

/**
 * The query of `terms` as `tsquery` literals: each term alone (for its score), and all
 * of them ANDed (for the match); the last matches the beginning of a word.
 */
export const termQueries = (terms: ReadonlyArray<string>) => {
  const each = terms.map((term, index) => `${lexeme(term)}${index === terms.length - 1 ? ":*" : ""}`)
  return { each, all: each.join(" & ") }
}

/** Courses indexed per transaction by {@link indexMissing}. */
const batchSize = 100

/**
 * Writes the search document of every course that has none (courses written by plain
 * SQL, or all of them when migration 0010 runs), in batches of 100 courses, each in a
 * transaction that holds their rows (`FOR SHARE`) so that no update changes their text
 * meanwhile. A document written meanwhile by the repository is kept. Answers how many
 * were written.
 */
export const indexMissing = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const t = tablesOf(sql, yield* PgSchema)
  let written = 0
  for (;;) {
    const found = yield* Effect.gen(function*() {
      const courses = yield* decodeSources(
        yield* sql`
          SELECT c.id, c.title, c.description, c.content_html FROM ${t.courses} c
          WHERE NOT EXISTS (SELECT 1 FROM ${t.course_search_documents} d WHERE d.course_id = c.id)
          ORDER BY c.id
          LIMIT ${batchSize}
          FOR SHARE OF c
        `
      ).pipe(Effect.orDie) // A stored course that does not decode is a bug, not an outage.
      if (Arr.isReadonlyArrayNonEmpty(courses)) {
        yield* writeDocuments(sql, t, Arr.map(courses, (course) => ({ id: course.id, document: searchDocument(course) })), "keep")
      }
      return courses.length
    }).pipe(sql.withTransaction)
    written += found
    if (found < batchSize) return written
  }
}).pipe(Effect.withSpan("PgCourseSearch.indexMissing"))
