/**
 * What the Promise client rejects with: the HTTP status and the problem details the API
 * answered (RFC 9457), or status 0 when no answer arrived.
 *
 * @since 0.1.0
 */
import { Cause } from "effect"

/** A problem the API answered, as sent. */
export interface Problem {
  readonly type?: string
  readonly title?: string
  readonly status?: number
  readonly detail?: string
  readonly [extension: string]: unknown
}

/**
 * A failed call. `status` is the HTTP status of the problem the API answered; 0 means no
 * answer: the request broke the contract before it was sent ("Invalid request"), or the
 * server could not be reached or its answer not read.
 */
export class CoursekitError extends Error {
  override readonly name: string = "CoursekitError"
  readonly status: number
  readonly problem: Problem
  constructor(status: number, problem: Problem, options?: { readonly cause?: unknown }) {
    super(problem.detail ?? problem.title ?? `HTTP ${status}`, options)
    this.status = status
    this.problem = problem
  }
}

/**
 * A write refused because the record changed since the version it named (412): `current`
 * is the record as it is now (what the admin GET shows), at `currentVersion`. Merge, then
 * write again with `ifMatch: currentVersion`.
 */
export class PreconditionFailedError<A = unknown> extends CoursekitError {
  override readonly name: string = "PreconditionFailedError"
  readonly current: A
  readonly currentVersion: number
  constructor(problem: Problem, options?: { readonly cause?: unknown }) {
    super(412, problem, options)
    this.current = problem.current as A
    this.currentVersion = problem.current_version as number
  }
}

const problemFields = (value: object): Problem => {
  const fields: Record<string, unknown> = {}
  for (const [key, field] of Object.entries(value)) if (key !== "_tag" && key !== "stack") fields[key] = field
  return fields as Problem
}

/** The `CoursekitError` of a failed client effect. */
export const fromCause = (cause: Cause.Cause<unknown>): CoursekitError => {
  const error = Cause.squash(cause)
  if (typeof error === "object" && error !== null && typeof (error as { status?: unknown }).status === "number") {
    const status = (error as { status: number }).status
    const problem = { ...problemFields(error), status }
    return status === 412 ? new PreconditionFailedError(problem, { cause: error }) : new CoursekitError(status, problem, { cause: error })
  }
  // Errors without their own status class: 401 (`Unauthorized`) and transport failures.
  if (typeof error === "object" && error !== null && (error as { _tag?: unknown })._tag === "Unauthorized") {
    return new CoursekitError(401, { title: "Unauthorized", status: 401, detail: String((error as { detail?: unknown }).detail ?? "") }, { cause: error })
  }
  const message = error instanceof Error ? error.message : String(error)
  if (typeof error === "object" && error !== null && (error as { _tag?: unknown })._tag === "SchemaError") {
    return new CoursekitError(0, { title: "Invalid request", detail: message }, { cause: error })
  }
  return new CoursekitError(0, { title: "No answer", detail: `The request did not complete: ${message}` }, { cause: error })
}
