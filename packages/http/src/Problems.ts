/**
 * RFC 9457 problem details: the body of every error response (`application/problem+json`,
 * `{type, title, status, detail, errors?}`). Domain errors are turned into these at the
 * HTTP edge; the classes are part of the contract, so typed clients decode them too.
 *
 * @since 0.1.0
 */
import { GenerationAttempt } from "@coursekit/core"
import { Schema } from "effect"
import { ProblemDetails } from "effect/http"
import { HttpApiError, HttpApiSchema } from "effect/http-api"

/** One invalid value of a request: where it is (`body.title`, `query.limit`) and why. */
export const ProblemIssue = Schema.Struct({
  path: Schema.String,
  message: Schema.String
}).annotate({ identifier: "ProblemIssue" })

/** 400: the request does not match its schema (body, query or path). */
export class ValidationProblem extends HttpApiError.Problem<ValidationProblem>()("ValidationProblem", {
  type: "about:blank",
  status: 400,
  title: "Bad Request"
}, {
  detail: Schema.String,
  errors: Schema.Array(ProblemIssue)
}) {}

/** 403: the credentials are valid but do not allow this operation. */
export class Forbidden extends HttpApiError.Problem<Forbidden>()("Forbidden", {
  type: "about:blank",
  status: 403,
  title: "Forbidden"
}, { detail: Schema.String }) {}

/** 404: the resource named by the path does not exist. */
export class NotFound extends HttpApiError.Problem<NotFound>()("NotFound", {
  type: "about:blank",
  status: 404,
  title: "Not Found"
}, { detail: Schema.String }) {}

/** 409: the request conflicts with the current state; it may work later (upload first). */
export class Conflict extends HttpApiError.Problem<Conflict>()("Conflict", {
  type: "about:blank",
  status: 409,
  title: "Conflict"
}, { detail: Schema.String }) {}

/** 410: what the request names is gone for good (an expired upload URL never used). */
export class Gone extends HttpApiError.Problem<Gone>()("Gone", {
  type: "about:blank",
  status: 410,
  title: "Gone"
}, { detail: Schema.String }) {}

/** 413: the content (a request body, an uploaded file) is larger than allowed. */
export class ContentTooLarge extends HttpApiError.Problem<ContentTooLarge>()("ContentTooLarge", {
  type: "about:blank",
  status: 413,
  title: "Content Too Large"
}, { detail: Schema.String }) {}

/** 415: the content's type (a request body's, an uploaded file's) is not accepted. */
export class UnsupportedMediaType extends HttpApiError.Problem<UnsupportedMediaType>()("UnsupportedMediaType", {
  type: "about:blank",
  status: 415,
  title: "Unsupported Media Type"
}, { detail: Schema.String }) {}

/** 422: the request is well-formed but names something that cannot be used (a media file never finalized). */
export class UnprocessableContent extends HttpApiError.Problem<UnprocessableContent>()("UnprocessableContent", {
  type: "about:blank",
  status: 422,
  title: "Unprocessable Content"
}, {
  detail: Schema.String,
  errors: Schema.Array(ProblemIssue)
}) {}

/**
 * 502: every upstream the request depended on failed (each language model of the chain);
 * `attempts` says which were tried, how each ended and how long it took.
 */
export class BadGateway extends HttpApiError.Problem<BadGateway>()("BadGateway", {
  type: "about:blank",
  status: 502,
  title: "Bad Gateway"
}, {
  detail: Schema.String,
  attempts: Schema.Array(GenerationAttempt)
}) {}

/** 500: an unexpected failure; the detail never carries internals. */
export class InternalProblem extends HttpApiError.Problem<InternalProblem>()("InternalProblem", {
  type: "about:blank",
  status: 500,
  title: "Internal Server Error"
}, { detail: Schema.String }) {}

/** 503: a dependency (database, storage) did not answer; retrying later may work. */
export class ServiceUnavailable extends HttpApiError.Problem<ServiceUnavailable>()("ServiceUnavailable", {
  type: "about:blank",
  status: 503,
  title: "Service Unavailable"
}, { detail: Schema.String }) {}

/** 401: credentials are missing or wrong. Rendered with a `WWW-Authenticate` challenge. */
export class Unauthorized extends Schema.TaggedError<Unauthorized>()("Unauthorized", {
  detail: Schema.String
}) {}

const UnauthorizedBody = Schema.Struct({
  type: Schema.Literal("about:blank"),
  title: Schema.Literal("Unauthorized"),
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
      body: { type: "about:blank" as const, title: "Unauthorized" as const, status: 401 as const, detail: error.detail },
      headers: { "www-authenticate": bearerChallenge }
    })
  }),
  (schema) => schema.annotate({ identifier: "Unauthorized" })
)
