/**
 * Revisions in SQL, for `PgCourseRepo` and `PgLessonRepo`: written inside the
 * transaction of the write they record (after the record's row is written, under its
 * lock, so a record's revisions are written one at a time), and read back a page or one
 * at a time. Which step a write takes is `nextRevisionStep`'s to say: this module only
 * asks the table for the newest revision (two for an autosave, which may continue a
 * run), compared with the write's snapshot by the database (so no snapshot travels
 * back), and the window by the database's clock.
 *
 * @since 0.3.0
 */
import {
  type LatestRevision,
  nextRevisionStep,
  RevisionId,
  type RevisionPageRequest,
  type RevisionPolicy,
  RevisionSummary,
  type RevisionWrite
} from "@coursekit/core"
import { Duration, Effect, Schema } from "effect"
import type { SqlClient } from "effect/sql"
import type { PgTables } from "./PgSchema.ts"

/** The revisions of one kind of record: its table, the column naming the record, and the snapshot's fields. */
export interface RevisionTable {
  readonly table: "course_revisions" | "lesson_revisions"
  readonly owner: "course_id" | "lesson_id"
  readonly fields: ReadonlyArray<string>
}

const LatestRow = Schema.Struct({
  revision_id: RevisionId,
  version: Schema.Int,
  author: Schema.String,
  autosave: Schema.Boolean,
  note: Schema.NullOr(Schema.String),
  in_window: Schema.Boolean,
  differs: Schema.Array(Schema.String)
})
const decodeLatest = Schema.decodeUnknownEffect(Schema.Array(LatestRow))

/** A listed revision as a row holds it: its instant a `Date`. */
export const RevisionRow = RevisionSummary.mapFields((fields) => ({ ...fields, created_at: Schema.DateTimeUtcFromDate }))
const decodeRows = Schema.decodeUnknownEffect(Schema.Array(RevisionRow))

/**
 * Records the write that left `recordId` at `write.version` with `snapshot` (encoded),
 * as `nextRevisionStep` decides, and removes revisions past `policy.keep`. Runs in the
 * caller's transaction.
 */
export const writeRevision = (
  sql: SqlClient.SqlClient,
  t: PgTables,
  kind: RevisionTable,
  recordId: number,
  snapshot: Readonly<Record<string, unknown>>,
  write: RevisionWrite,
  policy: RevisionPolicy
) =>
  Effect.gen(function*() {
    const table = t[kind.table]
    const owner = sql(kind.owner)
    const json = JSON.stringify(snapshot)
    const rows = yield* decodeLatest(yield* sql`
      SELECT r.id AS revision_id, r.version, r.author, r.autosave, r.note,
        r.run_started_at > now() - ${Duration.toMillis(policy.autosaveWindow)} * interval '1 millisecond' AS in_window,
        ARRAY(SELECT n.key FROM jsonb_each(${json}::jsonb) n WHERE r.snapshot -> n.key IS DISTINCT FROM n.value) AS differs
      FROM ${table} r WHERE r.${owner} = ${recordId}
      ORDER BY r.id DESC LIMIT ${write.autosave ? 2 : 1}
    `)
    // In the fields' own order, as the in-memory store says them.
    const latest = rows.map((row): LatestRevision => ({ ...row, inWindow: row.in_window, differs: kind.fields.filter((field) => row.differs.includes(field)) }))
    const step = nextRevisionStep(latest, write, kind.fields)
    // Field names travel as JSON: an array parameter is typed differently by each driver.
    const changed = step._tag === "None" ? sql`` : sql`ARRAY(SELECT jsonb_array_elements_text(${JSON.stringify(step.changed)}::jsonb))`
    switch (step._tag) {
      case "None":
        return
      case "Replace":
        yield* sql`
          UPDATE ${table} SET version = ${write.version}, created_at = now(), snapshot = ${json}::jsonb, changed = ${changed}
          WHERE id = ${step.revision_id}`
        return
      case "Append":
        yield* sql`
          INSERT INTO ${table} (${owner}, version, author, autosave, changed, note, snapshot)
          VALUES (${recordId}, ${write.version}, ${write.author}, ${write.autosave}, ${changed}, ${write.note}, ${json}::jsonb)`
        // The newest `keep` stay; the rest go in the same transaction.
        yield* sql`
          DELETE FROM ${table} WHERE ${owner} = ${recordId} AND id < (
            SELECT id FROM ${table} WHERE ${owner} = ${recordId} ORDER BY id DESC OFFSET ${policy.keep - 1} LIMIT 1
          )`
    }
  })

/** One page of a record's revisions, newest first (ids ≤ cursor). */
export const revisionPage = (sql: SqlClient.SqlClient, t: PgTables, kind: RevisionTable, recordId: number, request: RevisionPageRequest) =>
  sql`
    SELECT id AS revision_id, version, created_at, author, autosave, changed, note
    FROM ${t[kind.table]}
    WHERE ${sql(kind.owner)} = ${recordId} ${request.cursor === undefined ? sql`` : sql`AND id <= ${request.cursor}`}
    ORDER BY id DESC LIMIT ${request.limit}
  `.pipe(Effect.flatMap(decodeRows))

/** One revision of a record with its snapshot, decoded by `snapshot`; empty when there is none. */
export const revisionWithSnapshot = <S extends Schema.Top & { readonly DecodingServices: never }>(
  sql: SqlClient.SqlClient,
  t: PgTables,
  kind: RevisionTable,
  recordId: number,
  revisionId: RevisionId,
  snapshot: S
) => {
  const decode = Schema.decodeUnknownEffect(Schema.Array(RevisionRow.mapFields((fields) => ({ ...fields, record: snapshot }))))
  return sql`
    SELECT id AS revision_id, version, created_at, author, autosave, changed, note, snapshot AS record
    FROM ${t[kind.table]} WHERE ${sql(kind.owner)} = ${recordId} AND id = ${revisionId}
  `.pipe(Effect.flatMap(decode))
}
