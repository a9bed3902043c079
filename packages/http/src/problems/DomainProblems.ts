/**
 * The one place where the core's errors meet HTTP: a table keyed by error tag that says
 * which problem (status, title, body) each error becomes. The contract's declared error
 * responses ({@link problemsFor}) and the handlers' mapping ({@link problems}) are both
 * derived from it, and the type checker proves it covers every error of
 * {@link DomainError}. Store failures are logged with their cause here and answered 503
 * without it.
 *
 * @since 0.1.0
 */
import type {
  CourseNotFound,
  CourseSlugNotFound,
  CourseVersionMismatch,
  InvalidLearnerCursor,
  LessonLocked,
  UnknownLesson,
  LessonVersionMismatch,
  RevisionNotFound,
  SectionVersionMismatch,
  FileTooLarge,
  GenerationFailed,
  GenerationInterrupted,
  HtmlTooComplex,
  HtmlTooLong,
  InvalidSearchCursor,
  LessonNotFound,
  MediaInUse,
  MediaNotFound,
  MultipartCompleted,
  MultipartNotFound,
  NoModelConfigured,
  PersistenceError,
  PartOutOfRange,
  PartRejected,
  PublicVideoOnPaidLesson,
  SanitizerOverloaded,
  SectionNotEmpty,
  SectionNotFound,
  StorageError,
  UnknownSection,
  UnsupportedFileType,
  UploadExpired,
  UploadNotFound,
  UploadNotReceived,
  VideoNotFound
} from "@coursekit/core"
import { Effect } from "effect"
import { HttpServerRespondable, type HttpServerResponse } from "effect/http"
import {
  BadGateway,
  Conflict,
  ContentTooLarge,
  CoursePreconditionFailed,
  LessonPreconditionFailed,
  SectionPreconditionFailed,
  Gone,
  InUse,
  LessonLockedProblem,
  NotFound,
  PartConflict,
  ServiceUnavailable,
  UnprocessableContent,
  UnsupportedMediaType,
  ValidationProblem
} from "./Problems.ts"

/** The core's errors that reach the HTTP edge. */
export type DomainError =
  | CourseNotFound
  | CourseVersionMismatch
  | LessonVersionMismatch
  | SectionVersionMismatch
  | RevisionNotFound
  | UnknownLesson
  | LessonLocked
  | InvalidLearnerCursor
  | CourseSlugNotFound
  | LessonNotFound
  | SectionNotFound
  | UnknownSection
  | SectionNotEmpty
  | VideoNotFound
  | PublicVideoOnPaidLesson
  | MediaNotFound
  | MediaInUse
  | MultipartNotFound
  | MultipartCompleted
  | PartOutOfRange
  | PartRejected
  | PersistenceError
  | StorageError
  | UploadNotFound
  | UploadNotReceived
  | UploadExpired
  | FileTooLarge
  | UnsupportedFileType
  | GenerationFailed
  | GenerationInterrupted
  | NoModelConfigured
  | InvalidSearchCursor
  | HtmlTooComplex
  | HtmlTooLong
  | SanitizerOverloaded

/** How one error becomes a problem: the problem class (for the contract) and the instance. */
interface ProblemRule<E> {
  readonly problem: { readonly prototype: unknown }
  readonly render: (error: E) => unknown
  /** What is logged when the error is answered (store failures keep their cause here). */
  readonly log?: (error: E) => Effect.Effect<void>
}

type Rules = { readonly [Tag in DomainError["_tag"]]: ProblemRule<Extract<DomainError, { readonly _tag: Tag }>> }

/** A row whose problem says the error's message and nothing more. */
const withMessage = <C extends new (fields: { readonly detail: string }) => object>(problem: C) => ({
  problem,
  // `new` on a type parameter answers its constraint's instance; the class's own is the same.
  render: (error: { readonly message: string }) => new problem({ detail: error.message }) as InstanceType<C>
})

/** A 422 whose one issue is the input at `path`. */
const unprocessableAt = (path: string, detail: string) => new UnprocessableContent({ detail, errors: [{ path, message: detail }] })

/** A cursor this service did not write: answered as a query that fails its schema is, naming the parameter. */
const invalidCursor = {
  problem: ValidationProblem,
  render: (error: { readonly message: string }) =>
    new ValidationProblem({ detail: `Invalid request query: query.cursor: ${error.message}`, errors: [{ path: "query.cursor", message: error.message }] })
}

/** The table. */
export const domainProblems = {
  CourseNotFound: withMessage(NotFound),
  CourseSlugNotFound: withMessage(NotFound),
  LessonNotFound: withMessage(NotFound),
  SectionNotFound: withMessage(NotFound),
  RevisionNotFound: withMessage(NotFound),
  UnknownLesson: withMessage(NotFound),
  LessonLocked: {
    problem: LessonLockedProblem,
    render: (error) => new LessonLockedProblem({ detail: error.message, available_at: error.available_at })
  },
  InvalidLearnerCursor: invalidCursor,
  // The record as it is now travels with the refusal: the client merges, then writes with its version.
  CourseVersionMismatch: {
    problem: CoursePreconditionFailed,
    render: (error) => new CoursePreconditionFailed({ detail: error.message, current_version: error.current.version, current: error.current })
  },
  LessonVersionMismatch: {
    problem: LessonPreconditionFailed,
    render: (error) => new LessonPreconditionFailed({ detail: error.message, current_version: error.current.version, current: error.current })
  },
  SectionVersionMismatch: {
    problem: SectionPreconditionFailed,
    render: (error) => new SectionPreconditionFailed({ detail: error.message, current_version: error.current.version, current: error.current })
  },
  UnknownSection: {
    problem: UnprocessableContent,
    render: (error) => unprocessableAt("body.section_id", error.message)
  },
  SectionNotEmpty: {
    problem: Conflict,
    // The core names no routes: how to detach the lessons is the HTTP API's to say.
    render: (error) =>
      new Conflict({
        detail: `Section ${error.id} still has ${error.lessons} lesson${error.lessons === 1 ? "" : "s"}: move them out ` +
          "first, or delete it with ?lessons=detach to make them loose lessons of the course (appended, in their order)."
      })
  },
  UploadNotFound: withMessage(NotFound),
  VideoNotFound: {
    problem: UnprocessableContent,
    render: (error) => {
      // The core names no routes: where to upload a video is the HTTP API's to say.
      const detail = `video_key ${JSON.stringify(error.video_key)} names no finalized media file: upload it through ` +
        "/admin/media/upload-url and /admin/media/finalize-upload first."
      return unprocessableAt("body.video_key", detail)
    }
  },
  PublicVideoOnPaidLesson: {
    problem: UnprocessableContent,
    render: (error) => unprocessableAt("body.video_key", error.message)
  },
  MediaNotFound: withMessage(NotFound),
  MediaInUse: {
    problem: InUse,
    render: (error) => new InUse({ detail: error.message, lessons: error.lessons, thumbnail_of: error.thumbnail_of })
  },
  MultipartNotFound: withMessage(NotFound),
  MultipartCompleted: withMessage(Conflict),
  PartOutOfRange: {
    problem: UnprocessableContent,
    // Each request's own field: part URLs name `part_numbers`, completion `parts`.
    render: (error) => unprocessableAt(`body.${error.field}`, error.message)
  },
  PartRejected: {
    problem: PartConflict,
    render: (error) => new PartConflict({ detail: error.message, part_number: error.part_number })
  },
  UploadNotReceived: withMessage(Conflict),
  UploadExpired: withMessage(Gone),
  FileTooLarge: {
    problem: ContentTooLarge,
    // The core names no routes: where the parts go is the HTTP API's to say.
    render: (error) =>
      new ContentTooLarge({
        detail: error.multipart_max_bytes === undefined ? error.message : `${error.message} Start one with POST /admin/media/multipart.`
      })
  },
  UnsupportedFileType: withMessage(UnsupportedMediaType),
  PersistenceError: {
    problem: ServiceUnavailable,
    render: (error) => new ServiceUnavailable({ detail: `${error.message} Try again shortly.` }),
    log: (error) => Effect.logError("database operation failed", error.operation, error.cause)
  },
  StorageError: {
    problem: ServiceUnavailable,
    render: (error) => new ServiceUnavailable({ detail: `${error.message} Nothing was recorded; try again shortly.` }),
    log: (error) => Effect.logError("object storage operation failed", error.operation, error.cause)
  },
  NoModelConfigured: withMessage(ServiceUnavailable),
  InvalidSearchCursor: invalidCursor,
  HtmlTooComplex: {
    problem: UnprocessableContent,
    // The core says which HTML; every HTML field of the API is content_html.
    render: (error) => unprocessableAt("body.content_html", error.message)
  },
  HtmlTooLong: {
    problem: UnprocessableContent,
    render: (error) => unprocessableAt("body.content_html", error.message)
  },
  SanitizerOverloaded: {
    problem: ServiceUnavailable,
    // Retry-After goes on every 503 (the edge middleware).
    render: (error) => new ServiceUnavailable({ detail: `${error.message} Nothing was stored.` }),
    log: () => Effect.logWarning("the HTML sanitizer's queue is full")
  },
  GenerationFailed: {
    problem: BadGateway,
    // The attempts hold provider, model, outcome and timing: never a key or a provider's own error text.
    render: (error) => new BadGateway({ detail: error.message, attempts: error.attempts }),
    log: (error) => Effect.logWarning("every language model failed", error.attempts)
  },
  GenerationInterrupted: {
    problem: BadGateway,
    render: (error) => new BadGateway({ detail: error.message, attempts: error.attempts }),
    log: (error) => Effect.logWarning("a language model failed mid-answer", error.attempts)
  }
} as const satisfies Rules

type Table = typeof domainProblems

/** The problem each domain error becomes. */
export type ProblemOf<E> = E extends { readonly _tag: infer Tag extends keyof Table } ? ReturnType<Table[Tag]["render"]>
  : never

/**
 * The problem classes an endpoint declares for the domain errors it can answer, each
 * once, in the order given: `error: problemsFor("CourseNotFound", "PersistenceError")`.
 */
export const problemsFor = <const Tags extends ReadonlyArray<DomainError["_tag"]>>(
  ...tags: Tags
): ReadonlyArray<Table[Tags[number]]["problem"]> => [...new Set(tags.map((tag) => domainProblems[tag].problem))]

/** The problem of one domain error, logged as its rule says. */
export const problemOf = <E extends DomainError>(error: E): Effect.Effect<ProblemOf<E>> => {
  // Indexing by a union tag loses the tag–error correlation; the table's type keeps it.
  const rule = domainProblems[error._tag] as ProblemRule<E>
  const problem = rule.render(error) as ProblemOf<E>
  return rule.log === undefined ? Effect.succeed(problem) : Effect.as(rule.log(error), problem)
}

/** The response of one domain error, as the API writes its problem: for answers written at the edge. */
export const problemResponseOf = <E extends DomainError>(error: E): Effect.Effect<HttpServerResponse.HttpServerResponse> =>
  Effect.flatMap(problemOf(error), HttpServerRespondable.toResponse)

/** Maps the domain errors of `effect` to their problems. */
export const problems = <A, E extends DomainError, R>(
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A, ProblemOf<E>, R> =>
  Effect.catch(effect, (error: E) => Effect.flatMap(problemOf(error), Effect.fail))
