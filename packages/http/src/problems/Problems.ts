/**
 * RFC 9457 problem details: the body of every error response (`application/problem+json`,
 * `{type, title, status, detail, errors?}`). Domain errors are turned into these at the
 * HTTP edge; the classes are part of the contract, so typed clients decode them too.
 *
 * @since 0.1.0
 */
import { Course, CourseId, GenerationAttempt, Lesson, LessonUsingFile, Section } from "@coursekit/core"
import { Schema } from "effect"
import { ProblemDetails } from "effect/http"
import { HttpApiError, HttpApiSchema } from "effect/http-api"

/**
 * Every status the API answers with a problem, and its title (RFC 9110's reason phrase):
 * the problem classes below, the edge middleware's problems, the start-up 503 of
 * `nodeHandler` and the local store's routes (`@coursekit/http/local-storage`) all take
 * their titles from here.
 */
export const problemTitles = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  409: "Conflict",
  410: "Gone",
  411: "Length Required",
  412: "Precondition Failed",
  413: "Content Too Large",
  415: "Unsupported Media Type",
  416: "Range Not Satisfiable",
  422: "Unprocessable Content",
  428: "Precondition Required",
  500: "Internal Server Error",
  502: "Bad Gateway",
  503: "Service Unavailable"
} as const

/** A status the API answers problems with. */
export type ProblemStatus = keyof typeof problemTitles

/** A problem class's declaration: `about:blank` with the status's title. */
export const problemDeclaration = <const S extends ProblemStatus>(status: S) =>
  ({ type: "about:blank", status, title: problemTitles[status] }) as const

/** The body of a problem of `status` (for responses built outside the typed API). */
export const problemBody = (status: number, detail: string) => ({
  type: "about:blank",
  title: (problemTitles as Readonly<Record<number, string>>)[status] ?? "Error",
  status,
  detail
})

/** One invalid value of a request: where it is (`body.title`, `query.limit`) and why. */
export const ProblemIssue = Schema.Struct({
  path: Schema.String,
  message: Schema.String
}).annotate({ identifier: "ProblemIssue" })

/** 400: the request does not match its schema (body, query or path). */
export class ValidationProblem extends HttpApiError.Problem<ValidationProblem>()("ValidationProblem", problemDeclaration(400), {
  detail: Schema.String,
  errors: Schema.Array(ProblemIssue)
}) {}

/** 403: the credentials are valid but do not allow this operation. */
export class Forbidden extends HttpApiError.Problem<Forbidden>()("Forbidden", problemDeclaration(403), { detail: Schema.String }) {}

/**
 * 403: the lesson is not open to this learner: bought by others only, or released by
 * drip at `available_at` (null: a purchase is what opens it).
 */
export class LessonLockedProblem extends HttpApiError.Problem<LessonLockedProblem>()("LessonLockedProblem", problemDeclaration(403), {
  detail: Schema.String,
  available_at: Schema.NullOr(Schema.DateTimeUtcFromString)
}) {}

/** 404: the resource named by the path does not exist. */
export class NotFound extends HttpApiError.Problem<NotFound>()("NotFound", problemDeclaration(404), { detail: Schema.String }) {}

/** 409: the request conflicts with the current state; it may work later (upload first). */
export class Conflict extends HttpApiError.Problem<Conflict>()("Conflict", problemDeclaration(409), { detail: Schema.String }) {}

/**
 * 409: what the request would delete is still used; `lessons` (and `thumbnail_of`) name
 * the users, to change first.
 */
export class InUse extends HttpApiError.Problem<InUse>()("InUse", problemDeclaration(409), {
  detail: Schema.String,
  lessons: Schema.Array(LessonUsingFile),
  thumbnail_of: Schema.NullOr(CourseId)
}) {}

/** 409: completing a multipart upload refused; `part_number` names the part at fault. */
export class PartConflict extends HttpApiError.Problem<PartConflict>()("PartConflict", problemDeclaration(409), {
  detail: Schema.String,
  part_number: Schema.NullOr(Schema.Int)
}) {}

/** 410: what the request names is gone for good (an expired upload URL never used). */
export class Gone extends HttpApiError.Problem<Gone>()("Gone", problemDeclaration(410), { detail: Schema.String }) {}

/**
 * 412 for a course: `If-Match` names none of the course's current version; nothing was
 * written. `current` is the course as the admin GET shows it now, at `current_version`.
 */
export class CoursePreconditionFailed extends HttpApiError.Problem<CoursePreconditionFailed>()("CoursePreconditionFailed", problemDeclaration(412), {
  detail: Schema.String,
  current_version: Schema.Int,
  current: Course
}) {}

/** 412 for a lesson, as {@link CoursePreconditionFailed}: `current` is the lesson now. */
export class LessonPreconditionFailed extends HttpApiError.Problem<LessonPreconditionFailed>()("LessonPreconditionFailed", problemDeclaration(412), {
  detail: Schema.String,
  current_version: Schema.Int,
  current: Lesson
}) {}

/** 412 for a section, as {@link CoursePreconditionFailed}: `current` is the section now. */
export class SectionPreconditionFailed extends HttpApiError.Problem<SectionPreconditionFailed>()("SectionPreconditionFailed", problemDeclaration(412), {
  detail: Schema.String,
  current_version: Schema.Int,
  current: Section
}) {}

/** 428: this server requires `If-Match` on the write (`REQUIRE_IF_MATCH`), and the request has none. */
export class PreconditionRequired extends HttpApiError.Problem<PreconditionRequired>()("PreconditionRequired", problemDeclaration(428), {
  detail: Schema.String
}) {}

/** 413: the content (a request body, an uploaded file) is larger than allowed. */
export class ContentTooLarge extends HttpApiError.Problem<ContentTooLarge>()("ContentTooLarge", problemDeclaration(413), { detail: Schema.String }) {}

/** 415: the content's type (a request body's, an uploaded file's) is not accepted. */
export class UnsupportedMediaType extends HttpApiError.Problem<UnsupportedMediaType>()("UnsupportedMediaType", problemDeclaration(415), { detail: Schema.String }) {}

/** 422: the request is well-formed but names something that cannot be used (a media file never finalized). */
export class UnprocessableContent extends HttpApiError.Problem<UnprocessableContent>()("UnprocessableContent", problemDeclaration(422), {
  detail: Schema.String,
  errors: Schema.Array(ProblemIssue)
}) {}

/**
 * 502: every upstream the request depended on failed (each language model of the chain);
 * `attempts` says which were tried, how each ended and how long it took.
 */
export class BadGateway extends HttpApiError.Problem<BadGateway>()("BadGateway", problemDeclaration(502), {
  detail: Schema.String,
  attempts: Schema.Array(GenerationAttempt)
}) {}

/** 500: an unexpected failure; the detail never carries internals. */
export class InternalProblem extends HttpApiError.Problem<InternalProblem>()("InternalProblem", problemDeclaration(500), { detail: Schema.String }) {}

/** 503: a dependency (database, storage) did not answer; retrying later may work. */
export class ServiceUnavailable extends HttpApiError.Problem<ServiceUnavailable>()("ServiceUnavailable", problemDeclaration(503), { detail: Schema.String }) {}

/** 401: credentials are missing or wrong. Rendered with a `WWW-Authenticate` challenge. */
export class Unauthorized extends Schema.TaggedError<Unauthorized>()("Unauthorized", {
  detail: Schema.String
}) {}

const UnauthorizedBody = Schema.Struct({
  type: Schema.Literal("about:blank"),
  title: Schema.Literal(problemTitles[401]),
  status: Schema.Literal(401),
  detail: Schema.String
}).pipe(
  HttpApiSchema.status(401),
  HttpApiSchema.asJson({ contentType: ProblemDetails.contentType })
)

/** The challenge sent with every 401. */
export const bearerChallenge = `Bearer realm="coursekit"`

/** {@link Unauthorized} on the wire: a 401 problem plus the `WWW-Authenticate` header. */
export const UnauthorizedResponse = Unauthorized.pipe(
  HttpApiSchema.encodeToWithHeaders({
    body: UnauthorizedBody,
    headers: { "www-authenticate": Schema.String }
  }, {
    decode: ({ body }) => new Unauthorized({ detail: body.detail }),
    encode: (error) => ({
      body: { type: "about:blank" as const, title: problemTitles[401], status: 401 as const, detail: error.detail },
      headers: { "www-authenticate": bearerChallenge }
    })
  }),
  (schema) => schema.annotate({ identifier: "Unauthorized" })
)
