/**
 * The one place where domain errors of the core become HTTP problems. Store failures are
 * logged with their cause here and answered 503 without it.
 *
 * @since 0.1.0
 */
import type {
  CourseNotFound,
  CourseSlugNotFound,
  FileTooLarge,
  GenerationFailed,
  LessonNotFound,
  NoModelConfigured,
  PersistenceError,
  StorageError,
  UnsupportedFileType,
  UploadExpired,
  UploadNotFound,
  UploadNotReceived,
  VideoNotFound
} from "@coursekit/core"
import { Effect } from "effect"
import {
  BadGateway,
  Conflict,
  ContentTooLarge,
  Gone,
  NotFound,
  ServiceUnavailable,
  UnprocessableContent,
  UnsupportedMediaType
} from "./Problems.ts"

/** Domain errors the HTTP layer knows how to answer. */
export type DomainError =
  | CourseNotFound
  | CourseSlugNotFound
  | LessonNotFound
  | VideoNotFound
  | PersistenceError
  | StorageError
  | UploadNotFound
  | UploadNotReceived
  | UploadExpired
  | FileTooLarge
  | UnsupportedFileType
  | GenerationFailed
  | NoModelConfigured

/** The problem each domain error becomes. */
export type ProblemOf<E> = E extends CourseNotFound | CourseSlugNotFound | LessonNotFound | UploadNotFound ? NotFound
  : E extends VideoNotFound ? UnprocessableContent
  : E extends PersistenceError | StorageError | NoModelConfigured ? ServiceUnavailable
  : E extends GenerationFailed ? BadGateway
  : E extends UploadNotReceived ? Conflict
  : E extends UploadExpired ? Gone
  : E extends FileTooLarge ? ContentTooLarge
  : E extends UnsupportedFileType ? UnsupportedMediaType
  : never

const fail = <E>(problem: unknown) => Effect.fail(problem as ProblemOf<E>)

/** Maps the domain errors of `effect` to their problems. */
export const problems = <A, E extends DomainError, R>(
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A, ProblemOf<E>, R> =>
  Effect.catch(effect, (error: DomainError) => {
    switch (error._tag) {
      case "CourseNotFound":
      case "CourseSlugNotFound":
      case "LessonNotFound":
      case "UploadNotFound":
        return fail<E>(new NotFound({ detail: error.message }))
      case "VideoNotFound":
        return fail<E>(new UnprocessableContent({ detail: error.message, errors: [{ path: "body.video_key", message: error.message }] }))
      case "UploadNotReceived":
        return fail<E>(new Conflict({ detail: error.message }))
      case "UploadExpired":
        return fail<E>(new Gone({ detail: error.message }))
      case "FileTooLarge":
        return fail<E>(new ContentTooLarge({ detail: error.message }))
      case "UnsupportedFileType":
        return fail<E>(new UnsupportedMediaType({ detail: error.message }))
      case "PersistenceError":
        return Effect.logError("database operation failed", error.operation, error.cause).pipe(
          Effect.andThen(fail<E>(new ServiceUnavailable({ detail: `${error.message} Try again shortly.` })))
        )
      case "NoModelConfigured":
        return fail<E>(new ServiceUnavailable({ detail: error.message }))
      case "GenerationFailed":
        // The attempts hold provider, model, outcome and timing: never a key or a
        // provider's own error text.
        return Effect.logWarning("every language model failed", error.attempts).pipe(
          Effect.andThen(fail<E>(new BadGateway({ detail: error.message, attempts: error.attempts })))
        )
      case "StorageError":
        return Effect.logError("object storage operation failed", error.operation, error.cause).pipe(
          Effect.andThen(fail<E>(new ServiceUnavailable({ detail: `${error.message} Nothing was recorded; try again shortly.` })))
        )
    }
  })
