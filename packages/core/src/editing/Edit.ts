/**
 * What a write carries besides its changes: the precondition it holds under (the
 * `If-Match` of HTTP), who writes, and whether it is an autosave. Records count
 * `version` (1 on creation, one more on every change); a precondition names the versions
 * the writer last saw, and a write whose record has moved on since changes nothing.
 *
 * @since 0.3.0
 */
import { Context, Data, Duration } from "effect"

/**
 * The versions a write may apply to: `"any"` for any existing record (`If-Match: *`), or
 * a list (a write whose record is at none of them is refused with {@link StaleRecord}).
 */
export type Precondition = "any" | ReadonlyArray<number>

/** Whether a record at `version` meets `precondition` (absent: every version does). */
export const meets = (precondition: Precondition | undefined, version: number): boolean =>
  precondition === undefined || precondition === "any" || precondition.includes(version)

/** Who writes, under which precondition, and whether it is an autosave. */
export interface Edit {
  /** Who writes: stored as each revision's `author`. */
  readonly author: string
  /** The versions the writer saw; absent: the write goes through whatever the version. */
  readonly ifMatch?: Precondition | undefined
  /** An autosave: consecutive ones of one author coalesce into one revision (see `Revision`). */
  readonly autosave?: boolean | undefined
  /** Said in the revision the write stores (a restore names the revision it came from). */
  readonly note?: string | undefined
}

/** The author of writes made without one (a repository called directly, a migration's first revision). */
export const systemAuthor = "system"

/** An edit by {@link systemAuthor}, with no precondition. */
export const systemEdit: Edit = { author: systemAuthor }

/**
 * A repository's refusal of a write whose precondition the record no longer meets; it
 * carries the record as stored now. The use cases answer it as the record's own error
 * (`CourseVersionMismatch`, …), with the record as the API shows it.
 */
export class StaleRecord<R> extends Data.TaggedError("StaleRecord")<{ readonly current: R }> {}

/** The message of a write refused for a stale version: the record's kind, id and version now. */
export const staleMessage = (kind: string, id: number, version: number): string =>
  `The ${kind} ${id} is at version ${version} now, not at the version this write names: someone changed it meanwhile. ` +
  `Nothing was written; current holds the ${kind} as it is now.`

/** How revisions are kept: how many per record, and how long an autosave run lasts. */
export interface RevisionPolicy {
  /** Revisions kept per record (`REVISIONS_KEEP`); older ones are removed as new ones are written. */
  readonly keep: number
  /** Consecutive autosaves within this time of a run's first one keep one revision. */
  readonly autosaveWindow: Duration.Duration
}

/** The default policy: 100 revisions per record, autosave runs of 10 minutes. */
export const defaultRevisionPolicy: RevisionPolicy = { keep: 100, autosaveWindow: Duration.minutes(10) }

/**
 * The revision policy the repositories follow; provide another (`Layer.succeed(RevisionPolicies, …)`)
 * before building them to change it.
 */
export const RevisionPolicies = Context.Reference<RevisionPolicy>("@coursekit/core/RevisionPolicies", {
  defaultValue: () => defaultRevisionPolicy
})
