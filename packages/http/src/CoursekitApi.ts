/**
 * The HTTP contract of Coursekit: every endpoint with its path, inputs, responses and
 * errors. It holds no server code, so a typed client (`HttpApiClient.make(CoursekitApi)`)
 * and the OpenAPI document are derived from it alone.
 *
 * @since 0.1.0
 */
import { Course, CourseCreate, CourseId, CourseListItem, CourseUpdate, maxPageSize } from "@coursekit/core"
import { Schema } from "effect"
import { HttpApi, HttpApiEndpoint, HttpApiError, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { AdminAuth } from "./AdminAuth.ts"
import { ApiProblems } from "./ApiProblems.ts"
import { NotFound, ServiceUnavailable } from "./Problems.ts"

/** The body of `GET /`. */
export const Welcome = Schema.Struct({ message: Schema.String }).annotate({ identifier: "Welcome" })

/** The state of one dependency checked by `GET /health/ready`. */
export const DependencyCheck = Schema.Struct({
  name: Schema.String,
  status: Schema.Literals(["up", "down"]),
  detail: Schema.optionalKey(Schema.String)
}).annotate({ identifier: "DependencyCheck" })

/** The body of a successful `GET /health/ready`. */
export const ReadinessReport = Schema.Struct({
  status: Schema.Literal("ready"),
  checks: Schema.Array(DependencyCheck)
}).annotate({ identifier: "ReadinessReport" })

/** 503 from `GET /health/ready`: which dependency is down. */
export class NotReady extends HttpApiError.Problem<NotReady>()("NotReady", {
  type: "about:blank",
  status: 503,
  title: "Service Unavailable"
}, {
  detail: Schema.String,
  checks: Schema.Array(DependencyCheck)
}) {}

/** Health endpoints, at the root of the client. */
export class SystemApi extends HttpApiGroup.make("system", { topLevel: true })
  .add(
    HttpApiEndpoint.get("welcome", "/", {
      success: Welcome
    }).annotate(OpenApi.Summary, "Liveness: a welcome message"),
    HttpApiEndpoint.get("ready", "/health/ready", {
      success: ReadinessReport,
      error: NotReady
    }).annotate(OpenApi.Summary, "Readiness: 200 when the database and storage answer, else 503")
  )
{}

const PageLimit = Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: maxPageSize })).annotate({
  description: `Page size, 1 to ${maxPageSize}; default 10.`
})

/** The `Link` header of a course page that has a successor. */
const NextLink = { link: Schema.optional(Schema.String).annotate({ description: `<…?cursor=N&limit=L>; rel="next"` }) }

/** The course catalogue. Reads are public; writes need an admin token. */
export class CoursesApi extends HttpApiGroup.make("courses")
  .add(
    HttpApiEndpoint.get("list", "/courses", {
      query: {
        cursor: Schema.optional(CourseId).annotate({
          description: "First course id of the page (inclusive). Omit for the first page."
        }),
        limit: Schema.optional(PageLimit)
      },
      success: HttpApiSchema.WithHeaders(Schema.Array(CourseListItem), NextLink),
      error: ServiceUnavailable
    }).annotate(OpenApi.Summary, "List courses, ascending by id, with cursor pagination").annotate(
      OpenApi.Description,
      "Pages hold the courses with id >= cursor. When more exist, a Link header names the next page. " +
        "Responses carry an ETag (the catalogue version and the page) and Cache-Control: no-cache; " +
        "a request with If-None-Match naming the current ETag is answered 304 Not Modified without a body."
    ),
    HttpApiEndpoint.get("get", "/courses/:id", {
      params: { id: CourseId },
      success: Course,
      error: [NotFound, ServiceUnavailable]
    }).annotate(OpenApi.Summary, "Read one course"),
    HttpApiEndpoint.post("create", "/courses", {
      payload: CourseCreate,
      success: HttpApiSchema.WithHeaders(Course, { location: Schema.String }).pipe(HttpApiSchema.status(201)),
      error: ServiceUnavailable
    }).middleware(AdminAuth).annotate(OpenApi.Summary, "Create a course; the slug is generated from the title"),
    HttpApiEndpoint.patch("update", "/courses/:id", {
      params: { id: CourseId },
      payload: CourseUpdate,
      success: Course,
      error: [NotFound, ServiceUnavailable]
    }).middleware(AdminAuth).annotate(OpenApi.Summary, "Change a course's title or body; the slug stays"),
    HttpApiEndpoint.delete("delete", "/courses/:id", {
      params: { id: CourseId },
      success: HttpApiSchema.NoContent,
      error: [NotFound, ServiceUnavailable]
    }).middleware(AdminAuth).annotate(OpenApi.Summary, "Delete a course")
  )
  .annotateMerge(OpenApi.annotations({ title: "Courses", description: "The course catalogue." }))
{}

/** The whole API. */
export class CoursekitApi extends HttpApi.make("coursekit")
  .add(SystemApi)
  .add(CoursesApi)
  // Applies to the endpoints added above: every one may answer 400 and 500 problems.
  .middleware(ApiProblems)
  // Strict bodies: an unknown field is an error. Query and path stay lenient.
  .annotate(HttpApi.PayloadParseOptions, { onExcessProperty: "error", errors: "all" })
  .annotateMerge(OpenApi.annotations({
    title: "Coursekit",
    version: "0.1.0",
    description: "Course content service: catalogue, uploads, lessons and AI-written HTML. " +
      "Errors are RFC 9457 problem details (application/problem+json)."
  }))
{}
