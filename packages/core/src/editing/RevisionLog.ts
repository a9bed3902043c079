/**
 * The in-memory repositories' revisions: each record's, newest first, changed only
 * through {@link recordRevision}, which follows `nextRevisionStep` as the SQL stores do.
 * Snapshots are kept encoded (JSON values), as a database keeps them.
 *
 * @since 0.3.0
 */
import { DateTime, Duration } from "effect"
import type { RevisionPolicy } from "./Edit.ts"
import {
  differingFields,
  type LatestRevision,
  nextRevisionStep,
  type RevisionId,
  type RevisionPageRequest,
  type RevisionSummary,
  type RevisionWrite
} from "./Revision.ts"

/** A stored revision: its summary, when its autosave run began, and its encoded snapshot. */
export interface StoredRevision extends RevisionSummary {
  readonly run_started_at: DateTime.Utc
  readonly record: Readonly<Record<string, unknown>>
}

/** Every record's revisions (newest first), and the next revision id. */
export interface RevisionLogs {
  readonly nextId: number
  readonly byRecord: ReadonlyMap<number, ReadonlyArray<StoredRevision>>
}

export const emptyRevisionLogs: RevisionLogs = { nextId: 1, byRecord: new Map() }

/** `logs` with the write of `record` (now at `write.version`, `snapshot` encoded) recorded as the rules say. */
export const recordRevision = (
  logs: RevisionLogs,
  recordId: number,
  snapshot: Readonly<Record<string, unknown>>,
  write: RevisionWrite,
  fields: ReadonlyArray<string>,
  now: DateTime.Utc,
  policy: RevisionPolicy
): RevisionLogs => {
  const log = logs.byRecord.get(recordId) ?? []
  const windowStart = DateTime.toEpochMillis(now) - Duration.toMillis(policy.autosaveWindow)
  const latest = log.slice(0, 2).map((revision): LatestRevision => ({
    ...revision,
    inWindow: DateTime.toEpochMillis(revision.run_started_at) > windowStart,
    differs: differingFields(fields, revision.record, snapshot)
  }))
  const step = nextRevisionStep(latest, write, fields)
  if (step._tag === "None") return logs
  const base = { version: write.version, created_at: now, author: write.author, autosave: write.autosave, note: write.note, record: snapshot }
  const byRecord = new Map(logs.byRecord)
  if (step._tag === "Replace") {
    const replaced: StoredRevision = { ...log[0]!, ...base, changed: step.changed }
    byRecord.set(recordId, [replaced, ...log.slice(1)])
    return { ...logs, byRecord }
  }
  const added: StoredRevision = { ...base, revision_id: logs.nextId as RevisionId, run_started_at: now, changed: step.changed }
  byRecord.set(recordId, [added, ...log].slice(0, policy.keep))
  return { nextId: logs.nextId + 1, byRecord }
}

/** `logs` without `recordId`'s revisions (the record was deleted). */
export const dropRevisions = (logs: RevisionLogs, recordId: number): RevisionLogs => {
  if (!logs.byRecord.has(recordId)) return logs
  const byRecord = new Map(logs.byRecord)
  byRecord.delete(recordId)
  return { ...logs, byRecord }
}

/** One page of a record's revisions (newest first, ids ≤ cursor), one row past the page when there is one. */
export const revisionRows = (logs: RevisionLogs, recordId: number, request: RevisionPageRequest): ReadonlyArray<StoredRevision> =>
  (logs.byRecord.get(recordId) ?? [])
    .filter((revision) => request.cursor === undefined || revision.revision_id <= request.cursor)
    .slice(0, request.limit)

/** A revision's summary: the stored revision without its snapshot and run start. */
export const summaryOf = ({ record: _record, run_started_at: _run, ...summary }: StoredRevision): RevisionSummary => summary
