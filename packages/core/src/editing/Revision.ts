/**
 * Revisions: snapshots of a record's authored fields, one per change, newest first, to
 * look back at and restore from. The repositories store them in the same step as the
 * write they record; the rules of which step a write takes (a new revision, a coalesced
 * autosave, none) are decided here once, for every store ({@link nextRevisionStep}).
 *
 * @since 0.3.0
 */
import { Schema } from "effect"
import { maxId } from "../shared/Ids.ts"
import type { Edit } from "./Edit.ts"

/** A revision identifier: a positive integer assigned by the store, unique per kind of record. */
export const RevisionId = Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: maxId })).pipe(
  Schema.brand("RevisionId"),
  Schema.annotate({ description: "Revision identifier assigned by the service (a positive integer)." })
)
export type RevisionId = typeof RevisionId.Type

/** The fields of a revision besides its snapshot, as the API shows them. */
const revisionFields = {
  revision_id: RevisionId,
  version: Schema.Int.annotate({ description: "The record's version this revision holds." }),
  created_at: Schema.DateTimeUtcFromString.annotate({
    description: "When it was written, by the database's clock (a coalesced autosave: its latest save)."
  }),
  author: Schema.String.annotate({
    description: "Who wrote it: the host's user id, or an admin token's name (ADMIN_TOKENS name=token; a bare token: " +
      "admin- and the first 8 hex digits of its SHA-256)."
  }),
  autosave: Schema.Boolean.annotate({ description: "Written by an autosave (Coursekit-Autosave: 1)." }),
  changed: Schema.Array(Schema.String).annotate({
    description: "The fields that differ from the previous revision (every field for a record's first one)."
  }),
  note: Schema.NullOr(Schema.String).annotate({
    description: "What else happened: a restore names the revision it came from, and what it could not put back."
  })
}

/** A revision as listed: no snapshot. */
export const RevisionSummary = Schema.Struct(revisionFields).annotate({ identifier: "RevisionSummary" })
export type RevisionSummary = typeof RevisionSummary.Type

/** A revision with its snapshot (`record`), whose schema is the record's snapshot schema. */
export const revisionWith = <S extends Schema.Top>(snapshot: S) => Schema.Struct({ ...revisionFields, record: snapshot })

/** A request for one page of a record's revisions: newest first, ids ≤ `cursor`. */
export interface RevisionPageRequest {
  readonly cursor: RevisionId | undefined
  readonly limit: number
}

/** One page of revisions and the cursor of the next page, if any. */
export interface RevisionPage {
  readonly items: ReadonlyArray<RevisionSummary>
  readonly next: RevisionId | undefined
}

/**
 * The page of `request` from the rows read for it with one more (`limit + 1`): the extra
 * row tells that a next page exists, and is where it starts (the cursor is inclusive).
 */
export const revisionPageOf = (rows: ReadonlyArray<RevisionSummary>, request: RevisionPageRequest): RevisionPage => ({
  items: rows.slice(0, request.limit),
  next: rows[request.limit]?.revision_id
})

/** Page size of the revision list when the caller names none. */
export const defaultRevisionPageSize = 20

/** The record has no revision with this id. */
export class RevisionNotFound extends Schema.TaggedError<RevisionNotFound>()(
  "RevisionNotFound",
  { revision_id: RevisionId },
  { description: "The record has no revision with this id." }
) {
  override get message(): string {
    return `This record has no revision with id ${this.revision_id} (it never had, or it was removed: ` +
      "only the newest REVISIONS_KEEP are kept)."
  }
}

// --- what a write does to the revisions ---------------------------------------------

/** One of a record's newest revisions as a store compares it with a write. */
export interface LatestRevision {
  readonly revision_id: RevisionId
  readonly version: number
  readonly author: string
  readonly autosave: boolean
  readonly note: string | null
  /** Whether the autosave run this revision ends began within the autosave window, by the store's clock. */
  readonly inWindow: boolean
  /** The snapshot's fields whose values differ from the write's snapshot. */
  readonly differs: ReadonlyArray<string>
}

/** A write that changed a record (its version is one more), as the revisions see it. */
export interface RevisionWrite {
  /** The record's version after the write. */
  readonly version: number
  readonly author: string
  readonly autosave: boolean
  readonly note: string | null
}

/** The write of `edit` that left a record at `version`, as the revisions see it. */
export const revisionWriteOf = (version: number, edit: Edit): RevisionWrite => ({
  version,
  author: edit.author,
  autosave: edit.autosave === true,
  note: edit.note ?? null
})

/**
 * What a write does to the revisions: nothing (no authored field changed: a move, or
 * another field), a new revision, or the newest one replaced (an autosave continuing its
 * run). `changed` is what the written revision differs in from the one before it.
 */
export type RevisionStep =
  | { readonly _tag: "None" }
  | { readonly _tag: "Append"; readonly changed: ReadonlyArray<string> }
  | { readonly _tag: "Replace"; readonly revision_id: RevisionId; readonly changed: ReadonlyArray<string> }

/**
 * The step a write takes, from the record's newest revisions (newest first: two for an
 * autosave, one will do otherwise; none for a new record) compared with its snapshot. A
 * write whose snapshot is the newest revision's adds nothing — a restore of the current
 * state included, which the stores then do not write at all. An autosave continues the
 * newest revision's run when that one is an autosave by the same author, of the version
 * just before this write (no other change in between: a move counts), with no note (a
 * restore is never merged into), and its run began within the window; the run then keeps
 * one revision, the latest content. Every other write that changes an authored field adds
 * a revision.
 */
export const nextRevisionStep = (
  latest: ReadonlyArray<LatestRevision>,
  write: RevisionWrite,
  fields: ReadonlyArray<string>
): RevisionStep => {
  const newest = latest[0]
  if (newest === undefined) return { _tag: "Append", changed: fields }
  if (newest.differs.length === 0) return { _tag: "None" }
  const continuesRun = write.autosave && write.note === null && newest.autosave && newest.note === null &&
    newest.author === write.author && newest.version === write.version - 1 && newest.inWindow
  if (continuesRun) return { _tag: "Replace", revision_id: newest.revision_id, changed: latest[1]?.differs ?? fields }
  return { _tag: "Append", changed: newest.differs }
}

/** The fields of `fields` whose values differ between two encoded snapshots (JSON values: compared as JSON). */
export const differingFields = (
  fields: ReadonlyArray<string>,
  before: Readonly<Record<string, unknown>>,
  after: Readonly<Record<string, unknown>>
): ReadonlyArray<string> => fields.filter((field) => JSON.stringify(before[field] ?? null) !== JSON.stringify(after[field] ?? null))
