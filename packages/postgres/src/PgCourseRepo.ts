/**
 * `CourseRepo` on PostgreSQL (and PGlite) through `effect/sql`.
 *
 * Slug uniqueness: an insert runs in a transaction that takes its id from the sequence,
 * takes a transaction-scoped advisory lock on the base slug (so concurrent creates of one
 * title queue instead of colliding), picks the first free candidate, and inserts. The
 * unique constraint stays the source of truth: a collision between different bases
 * (`intro` taking `intro-2` while `Intro 2` wants it) is retried.
 *
 * Search: each insert, and each update that changes `title`, `description` or
 * `content_html`, writes the course's search document in the same transaction (see
 * `PgCourseSearch`).
 *
 * @since 0.1.0
 */
import {
  CourseChanges,
  CourseInsert,
  CourseId,
  CourseNotFound,
  CourseRepo,
  CourseSlugNotFound,
  type CourseListRequest,
  CourseListRow,
  type CourseListRows,
  type CourseLookup,
  CourseRecord,
  type CatalogueAudience,
  type CourseSearchRequest,
  CourseSearchRow,
  CourseSnapshot,
  courseSnapshotFields,
  CourseThumbnail,
  courseSnapshotOf,
  type Edit,
  fieldWeights,
  type NewCourse,
  PersistenceError,
  publicAudience,
  type SearchDocument,
  RecordVariants,
  type RevisionId,
  RevisionNotFound,
  RevisionPolicies,
  revisionWriteOf,
  type RevisionPageRequest,
  searchDocument,
  Slug,
  StaleRecord,
  systemEdit
} from "@coursekit/core"
import { Data, Effect, Layer, Schedule, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { termQueries, writeDocuments } from "./PgCourseSearch.ts"
import { bounded, PgDeadline } from "./PgDeadline.ts"
import { PgSchema, tablesOf } from "./PgSchema.ts"
import { columnList } from "./PgColumns.ts"
import { failStore, storeFailures } from "./PgErrors.ts"
import { revisionPage, type RevisionTable, revisionWithSnapshot, writeRevision } from "./PgRevisions.ts"
import { preconditionOn } from "./PgPreconditions.ts"

const courseRevisions: RevisionTable = { table: "course_revisions", owner: "course_id", fields: courseSnapshotFields }

/** Rows decoded through the record's schemas: a row that does not decode is a store failure. */
const decodeRecords = Schema.decodeUnknownEffect(Schema.Array(CourseRecord))
const decodeListRows = Schema.decodeUnknownEffect(Schema.Array(CourseListRow))
const decodeSearchRows = Schema.decodeUnknownEffect(Schema.Array(CourseSearchRow))
const decodeThumbnails = Schema.decodeUnknownEffect(Schema.Array(CourseThumbnail))
// Only the shapes' keys are written: TypeScript lets objects with extra properties through.
// Writes are encoded through the shapes too (an instant becomes a Date for the driver).
const insertFields = RecordVariants.pick(CourseInsert)
const changedFields = RecordVariants.pick(CourseChanges)
const encodeInsert = Schema.encodeSync(CourseInsert)
const encodeChanges = Schema.encodeSync(CourseChanges)

/**
 * Visible to the public now, by the database's clock: every instance of the service
 * agrees, whatever its own clock says. Of the row `alias` when a statement joins several
 * (courses and lessons alike).
 */
export const visibleNow = (sql: SqlClient.SqlClient, alias?: string) =>
  alias === undefined
    ? sql`status = 'published' AND (publish_at IS NULL OR publish_at <= now())`
    : sql`${sql(alias)}.status = 'published' AND (${sql(alias)}.publish_at IS NULL OR ${sql(alias)}.publish_at <= now())`
const decodeIds = Schema.decodeUnknownEffect(Schema.NonEmptyArray(Schema.Struct({ id: CourseId })))

/**
 * A row of the list statement: the catalogue's version (named apart from a course's own
 * `version`), and a course's columns (null when the page is empty).
 */
interface ListedRow {
  readonly catalogue_version: string
  readonly id: number | null
}

/** An insert lost its slug to a concurrent insert of another base; it is retried. */
class SlugTaken extends Data.TaggedError("SlugTaken") {}

/** The PostgreSQL course repository; needs an `effect/sql` `SqlClient` for PostgreSQL. */
export const make = () => Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const timeout = yield* PgDeadline
  const policy = yield* RevisionPolicies
  const t = tablesOf(sql, yield* PgSchema)
  /** Records in the caller's transaction the write that left `record` as it is. */
  const revise = (record: CourseRecord, edit: Edit) =>
    writeRevision(sql, t, courseRevisions, record.id, courseSnapshotOf(record), revisionWriteOf(record.version, edit), policy)
  /**
   * Why a write under `edit` found no row: the course as stored now when the precondition
   * is what it failed ({@link StaleRecord}), else there is no such course.
   */
  const refusal = (id: CourseId, edit: Edit) =>
    Effect.gen(function*() {
      if (edit.ifMatch === undefined) return yield* new CourseNotFound({ id })
      const rows = yield* decodeRecords(yield* sql`SELECT * FROM ${t.courses} WHERE id = ${id}`)
      if (rows.length === 0) return yield* new CourseNotFound({ id })
      return yield* new StaleRecord({ current: rows[0]! })
    })
  // The list item's stored fields, from the record: a field the list shows is read with no change here.
  const listed = RecordVariants.columnsOf(CourseListRow)
  const listColumns = columnList(sql, listed)
  const pageColumns = columnList(sql, listed, "page")
  const searchColumns = columnList(sql, listed, "c")

  const insertOnce = (course: NewCourse, document: SearchDocument, edit: Edit) =>
    Effect.gen(function*() {
      const [{ id }] = yield* decodeIds(yield* sql`
        SELECT nextval(pg_get_serial_sequence(${t.qualified("courses")}, 'id'))::integer AS id
      `)
      const base = course.slugBase === "" ? Slug.fallback(id) : course.slugBase
      // Per schema: two instances sharing a database never wait on each other's slugs.
      yield* sql`SELECT pg_advisory_xact_lock(hashtextextended(${`coursekit/${t.schema}/slug/${base}`}, 0))`
      // Candidates are looked up by exact value, in batches: a long base is shortened to
      // fit its suffix, so a prefix match would miss some of them.
      let n = 1
      for (;;) {
        const batch = Array.from({ length: 50 }, (_, i) => Slug.candidate(base, n + i))
        const taken = new Set(
          (yield* sql<{ slug: string }>`SELECT slug FROM ${t.courses} WHERE slug IN ${sql.in(batch)}`).map((row) => row.slug)
        )
        const free = batch.findIndex((slug) => !taken.has(slug))
        if (free >= 0) {
          n += free
          break
        }
        n += batch.length
      }
      const fields = encodeInsert(insertFields(course))
      const rows = yield* decodeRecords(yield* sql`
        INSERT INTO ${t.courses} ${sql.insert({ ...fields, id, slug: Slug.candidate(base, n) })}
        ON CONFLICT (slug) DO NOTHING
        RETURNING *
      `)
      if (rows.length === 0) return yield* Effect.fail(new SlugTaken())
      yield* writeDocuments(sql, t, [{ id, document }], "replace")
      yield* revise(rows[0]!, edit)
      return rows[0]!
    }).pipe(sql.withTransaction)

  const insert = Effect.fn("CourseRepo.insert")(function*(course: NewCourse, edit: Edit = systemEdit) {
    const document = searchDocument(course)
    return yield* insertOnce(course, document, edit).pipe(
      Effect.retry({ while: (error) => error instanceof SlugTaken, schedule: Schedule.recurs(20) }),
      Effect.catch((error) =>
        error instanceof SlugTaken
          ? Effect.fail(new PersistenceError({ operation: "insert course", cause: "no free slug after 20 attempts" }))
          : failStore("insert course", error)
      )
    )
  }, bounded(timeout, "insert course"))

  const visibleIf = (lookup: CourseLookup | undefined) => lookup?.visibleOnly === true ? sql`AND ${visibleNow(sql)}` : sql``

  const findById = Effect.fn("CourseRepo.findById")(function*(id: CourseId, lookup?: CourseLookup) {
    const rows = yield* sql`SELECT * FROM ${t.courses} WHERE id = ${id} ${visibleIf(lookup)}`.pipe(
      Effect.flatMap(decodeRecords),
      storeFailures("find course")
    )
    if (rows.length === 0) return yield* new CourseNotFound({ id })
    return rows[0]!
  }, bounded(timeout, "find course"))

  // Spans without `Effect.fn`'s call-site capture on the hot reads (the public course page).
  const findBySlug = Effect.fnUntraced(function*(slug: string, lookup?: CourseLookup) {
    const rows = yield* sql`SELECT * FROM ${t.courses} WHERE slug = ${slug} ${visibleIf(lookup)}`.pipe(
      Effect.flatMap(decodeRecords),
      storeFailures("find course by slug")
    )
    if (rows.length === 0) return yield* new CourseSlugNotFound({ slug })
    return rows[0]!
  }, bounded(timeout, "find course by slug"), Effect.withSpan("CourseRepo.findBySlug"))

  const shownTo = ({ audience }: CourseListRequest) => {
    if (audience._tag === "Public") return sql`AND ${visibleNow(sql)}`
    switch (audience.status) {
      case undefined:
        return sql``
      case "draft":
        return sql`AND status = 'draft'`
      case "published":
        return sql`AND ${visibleNow(sql)}`
      case "scheduled":
        return sql`AND status = 'published' AND publish_at > now()`
    }
  }

  // One statement, so one snapshot: the version is the one the rows were read at (the
  // token function is STABLE, so it reads with the statement's snapshot). Called in FROM
  // it runs once; as a subquery's column it was pulled up and run once per row. The left
  // join keeps the version row when the page is empty.
  // A span without `Effect.fn`'s call-site capture: this is the hottest read.
  const list = Effect.fnUntraced(function*(request: CourseListRequest) {
    const rows = yield* sql<ListedRow>`
      SELECT listed.catalogue_version, ${pageColumns}
      FROM ${t.coursekit_catalogue_token}() AS listed(catalogue_version)
      LEFT JOIN LATERAL (
        SELECT ${listColumns} FROM ${t.courses}
        WHERE id >= ${request.cursor ?? 0} ${shownTo(request)}
        ORDER BY id
        LIMIT ${request.limit}
      ) AS page ON true
      ORDER BY page.id
    `
    const listed: CourseListRows = { rows: yield* decodeListRows(rows[0]!.id === null ? [] : rows), version: rows[0]!.catalogue_version }
    return listed
  }, storeFailures("list courses"), bounded(timeout, "list courses"), Effect.withSpan("CourseRepo.list"))

  /**
   * The search documents `audience` finds, as {@link shownTo} decides for courses, on
   * `visible_from` (migration 0010: null for a draft, `publish_at` or -infinity for a
   * published course), by the database's clock.
   */
  const documentsShownTo = (audience: CatalogueAudience) => {
    if (audience._tag === "Public") return sql`AND d.visible_from <= now()`
    switch (audience.status) {
      case undefined:
        return sql``
      case "draft":
        return sql`AND d.visible_from IS NULL`
      case "published":
        return sql`AND d.visible_from <= now()`
      case "scheduled":
        return sql`AND d.visible_from > now()`
    }
  }

  const search = Effect.fn("CourseRepo.search")(function*(request: CourseSearchRequest) {
    const { after } = request
    const queries = termQueries(request.terms)
    // Weights are literals: parameters in CASE would be typed text.
    const weight = (field: keyof typeof fieldWeights) => sql.literal(String(fieldWeights[field]))
    const score = sql.join(" + ", false)(queries.each.map((query) =>
      sql`CASE WHEN d.title_words @@ ${query}::tsquery THEN ${weight("title")}
        WHEN d.description_words @@ ${query}::tsquery THEN ${weight("description")}
        ELSE ${weight("body")} END`
    ))
    const shown = documentsShownTo(request.audience ?? publicAudience)
    const afterCursor = after === undefined
      ? sql``
      : sql`WHERE m.score < ${after.score} OR (m.score = ${after.score} AND m.course_id > ${after.id})`
    // Matched, filtered, scored and cut to a page on the documents alone (visible_from is
    // the course's visibility, by the database's clock); `courses` is read for the page.
    return yield* sql`
      SELECT ${searchColumns}, s.score
      FROM (
        SELECT m.course_id, m.score
        FROM (
          SELECT d.course_id, ${score} AS score
          FROM ${t.course_search_documents} d
          WHERE d.document @@ ${queries.all}::tsquery ${shown}
        ) m
        ${afterCursor}
        ORDER BY m.score DESC, m.course_id
        LIMIT ${request.limit}
      ) s
      JOIN ${t.courses} c ON c.id = s.course_id
      ORDER BY s.score DESC, c.id
    `.pipe(Effect.flatMap(decodeSearchRows), storeFailures("search courses"))
  }, bounded(timeout, "search courses"))

  const update = Effect.fn("CourseRepo.update")(function*(id: CourseId, changes: CourseChanges, edit: Edit = systemEdit) {
    const set = encodeChanges(RecordVariants.definedOnly(changedFields(changes)))
    const textChanged = changes.title !== undefined || changes.description !== undefined || changes.content_html !== undefined
    const revised = courseSnapshotFields.some((field) => changes[field] !== undefined)
    return yield* Effect.gen(function*() {
      // The precondition is part of the statement: the row's lock makes check and write one step.
      const rows = yield* decodeRecords(yield* sql`
        UPDATE ${t.courses} SET ${Object.keys(set).length === 0 ? sql`` : sql`${sql.update(set)},`} updated_at = now()
        WHERE id = ${id} ${preconditionOn(sql, edit.ifMatch)}
        RETURNING *
      `)
      if (rows.length === 0) return yield* refusal(id, edit)
      // From the row as updated (a PATCH may change the title only), under its lock.
      if (textChanged) yield* writeDocuments(sql, t, [{ id, document: searchDocument(rows[0]!) }], "replace")
      if (revised) yield* revise(rows[0]!, edit)
      return rows[0]!
    }).pipe(sql.withTransaction, storeFailures("update course"))
  }, bounded(timeout, "update course"))

  const delete_ = Effect.fn("CourseRepo.delete")(function*(id: CourseId, edit: Edit = systemEdit) {
    return yield* Effect.gen(function*() {
      const rows = yield* decodeRecords(yield* sql`DELETE FROM ${t.courses} WHERE id = ${id} ${preconditionOn(sql, edit.ifMatch)} RETURNING *`)
      if (rows.length === 0) return yield* refusal(id, edit)
      return rows[0]!
    }).pipe(storeFailures("delete course"))
  }, bounded(timeout, "delete course"))

  const courseExists = (id: CourseId) =>
    Effect.flatMap(sql`SELECT 1 FROM ${t.courses} WHERE id = ${id}`, (rows) => rows.length === 0 ? Effect.fail(new CourseNotFound({ id })) : Effect.void)

  const revisions = Effect.fn("CourseRepo.revisions")(function*(id: CourseId, request: RevisionPageRequest) {
    return yield* Effect.andThen(courseExists(id), revisionPage(sql, t, courseRevisions, id, request)).pipe(
      storeFailures("list course revisions")
    )
  }, bounded(timeout, "list course revisions"))

  const revision = Effect.fn("CourseRepo.revision")(function*(id: CourseId, revisionId: RevisionId) {
    const rows = yield* Effect.andThen(courseExists(id), revisionWithSnapshot(sql, t, courseRevisions, id, revisionId, CourseSnapshot)).pipe(
      storeFailures("read a course revision")
    )
    if (rows.length === 0) return yield* new RevisionNotFound({ revision_id: revisionId })
    return rows[0]!
  }, bounded(timeout, "read a course revision"))

  // Bumped by the triggers of migration 0012 in the same transaction as every change; the
  // next scheduled release (one probe of the partial index of migration 0008) changes it
  // when that instant passes. Counter and instant are hashed with the database's own salt
  // (migration 0014): the version is in public ETags, and neither how many drafts were
  // written nor a hidden course's launch date may be. The function (migration 0008) keeps
  // its plans per session.
  const version = sql<{ version: string }>`
    SELECT ${t.coursekit_catalogue_token}() AS version
  `.pipe(
    Effect.map((rows) => rows[0]!.version),
    storeFailures("read the catalogue version"),
    bounded(timeout, "read the catalogue version"),
    Effect.withSpan("CourseRepo.version")
  )

  // One statement for a page of keys. No index on thumbnail_key: a catalogue is small,
  // and only the admin media list asks.
  const thumbnailsAmong = Effect.fn("CourseRepo.thumbnailsAmong")(function*(keys: ReadonlyArray<string>) {
    if (keys.length === 0) return []
    return yield* sql`
      SELECT id AS course_id, thumbnail_key FROM ${t.courses} WHERE ${sql.in("thumbnail_key", keys)} ORDER BY id
    `.pipe(Effect.flatMap(decodeThumbnails), storeFailures("find courses showing thumbnails"))
  }, bounded(timeout, "find courses showing thumbnails"))

  return CourseRepo.of({ insert, findById, findBySlug, list, search, update, delete: delete_, thumbnailsAmong, revisions, revision, version })
})

/** `CourseRepo` over the `SqlClient` in context. */
export const layer: Layer.Layer<CourseRepo, never, SqlClient.SqlClient> = Layer.effect(CourseRepo, make())
