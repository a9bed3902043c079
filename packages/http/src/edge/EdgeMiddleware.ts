/**
 * The middleware around every route, Coursekit's and any added beside it:
 * request ids, one log line per request, problem details for everything the typed API
 * does not render itself (unknown paths, a method a known path does not answer — 405
 * with `Allow`, from the {@link RouteTable} —, unsupported media types, defects), and
 * the hot paths answered here rather than by the typed API: the public course page
 * (`PublicCoursePages`), the course list cache and a learner's progress write
 * (`ProgressWrites`).
 *
 * @since 0.1.0
 */
import { ByteSize, Cause, Context, Effect, Exit, Stream } from "effect"
import { HttpBody, HttpRouter, HttpServerError, HttpServerRequest, HttpServerResponse, ProblemDetails } from "effect/http"
import { CatalogueReaders } from "../auth/CatalogueReaders.ts"
import { CourseListCache } from "./CourseListCache.ts"
import { ProgressWrites } from "./ProgressWrites.ts"
import { PublicCoursePages } from "./PublicCoursePages.ts"
import { RequestLogger } from "./RequestLogger.ts"
import { problemBody } from "../problems/Problems.ts"
import { maxBodySize } from "./RequestLimits.ts"
import { MountPrefix, pathOf } from "./RequestPath.ts"
import { RouteTable } from "./RouteTable.ts"

/** The detail of a 500: the cause goes to the log only, never into an answer. */
export const unexpectedErrorDetail = "An unexpected error occurred. It has been logged."

/** The `Retry-After` of every 503, in seconds: long enough for a busy queue to drain, short against an outage's first minute. */
export const retryAfterSeconds = 2
const retryAfter = { "retry-after": String(retryAfterSeconds) }

/** A problem response with the status's title. */
export const problem = (status: number, detail: string) => ProblemDetails.toResponse(problemBody(status, detail))

const isProblem = (response: HttpServerResponse.HttpServerResponse) =>
  "contentType" in response.body && response.body.contentType?.startsWith(ProblemDetails.contentType) === true

const validRequestId = /^[\w.:-]{1,128}$/

/**
 * No route for the request: 405 with `Allow` when its path is served for other methods
 * (RFC 9110 §15.5.6), else 404.
 */
const noRoute = (routes: RouteTable["Service"], request: HttpServerRequest.HttpServerRequest) => {
  const path = pathOf(request.url)
  const allowed = routes.allowed(request.url)
  if (allowed.length === 0) return problem(404, `No route for ${request.method} ${path}.`)
  return HttpServerResponse.setHeader(
    problem(405, `${request.method} is not allowed on ${path}; it allows ${allowed.join(", ")}.`),
    "allow",
    allowed.join(", ")
  )
}

/** A 500 whose cause goes to the log only, named by the request's id. */
const unhandled = (cause: Cause.Cause<unknown>, requestId: string) =>
  Effect.as(
    Effect.annotateLogs(Effect.logError("unhandled failure", cause), "requestId", requestId),
    problem(500, unexpectedErrorDetail)
  )

/**
 * The response for a failure (not an interruption): failures of the server itself (no
 * route, an unreadable or oversized body) carry their own status; anything else is a 500
 * whose cause goes to the log only (`requestId` names it), never into the answer.
 */
const failureResponse = (
  routes: RouteTable["Service"],
  cause: Cause.Cause<unknown>,
  requestId: string
): Effect.Effect<HttpServerResponse.HttpServerResponse> => {
  const error = Cause.squash(cause)
  if (HttpServerError.isHttpServerError(error)) {
    const { reason } = error
    if (reason._tag === "RouteNotFound") return Effect.succeed(noRoute(routes, reason.request))
    if (reason._tag === "RequestParseError") {
      return Effect.succeed(
        reason.reason === "BodyTooLarge"
          ? problem(413, `The request body is larger than the server accepts (${ByteSize.format(maxBodySize)}).`)
          : problem(400, "The request body could not be read.")
      )
    }
  }
  return unhandled(cause, requestId)
}

/** An error response that is not already a problem, as one (its own headers kept). */
const asProblem = (response: HttpServerResponse.HttpServerResponse) => {
  if (response.status < 400 || isProblem(response)) return response
  // Keep the response's own headers but not its body's type and length.
  const { "content-type": _type, "content-length": _length, ...headers } = response.headers
  const body = response.body._tag === "Uint8Array" ? new TextDecoder().decode(response.body.body) : ""
  const fallback = problemBody(response.status, body)
  return HttpServerResponse.setHeaders(problem(response.status, body || fallback.title), headers)
}

/**
 * The status a streamed body's log line says, by how the body ended: the response's own
 * when it was sent whole, 499 when its reader left (or the server's shutdown cut it), as
 * for a request abandoned before its answer, and 500 when producing it failed.
 */
const statusAtEnd = (exit: Exit.Exit<unknown, unknown>, status: number) =>
  Exit.isSuccess(exit) ? status : Cause.hasInterruptsOnly(exit.cause) ? 499 : 500

/**
 * `response`, logged by `logged`: now, or — for a body streamed after the headers (the
 * AI event stream, a file) — as that body ends, since the route's success says nothing
 * of whether its reader stayed to the end.
 */
const loggedWhenSent = (
  response: HttpServerResponse.HttpServerResponse,
  method: string,
  logged: (status: number) => void
): HttpServerResponse.HttpServerResponse => {
  const body = response.body
  if (body._tag !== "Stream" || HttpServerResponse.omitsBody(response, method === "HEAD")) {
    logged(response.status)
    return response
  }
  const ended = Stream.onExit(body.stream, (exit) => Effect.sync(() => logged(statusAtEnd(exit, response.status))))
  return HttpServerResponse.setBody(response, HttpBody.stream(ended, body.contentType, body.contentLength))
}

/**
 * The global middleware: add it beside the routes (`Layer.mergeAll(routes, layer)`), and
 * provide `RouteTable.layer` to both.
 */
export const layer = HttpRouter.middleware(
  Effect.gen(function*() {
    const logger = yield* RequestLogger
    const listCache = yield* CourseListCache
    const coursePages = yield* PublicCoursePages
    const progressWrites = yield* ProgressWrites
    const readers = yield* CatalogueReaders
    const routes = yield* RouteTable
    const prefix = yield* MountPrefix
    return (app) =>
      Effect.withFiber((fiber) => {
        const request = Context.getUnsafe(fiber.context, HttpServerRequest.HttpServerRequest)
        const incoming = request.headers["x-request-id"]
        const requestId = incoming !== undefined && validRequestId.test(incoming) ? incoming : crypto.randomUUID()
        const start = performance.now()
        // Interruptible, as the router makes the routes: the hot reads answered here wait on
        // the viewer and the database, and a request its client abandoned must stop them.
        const cached = Effect.interruptible(progressWrites.around(
          request,
          coursePages.around(
            request,
            listCache.around(
              { method: request.method, url: request.url, ifNoneMatch: request.headers["if-none-match"], prefix },
              readers.audienceOf(request),
              app
            )
          )
        ))
        const logged = (status: number) =>
          logger.log({
            requestId,
            method: request.method,
            path: pathOf(request.url),
            status,
            durationMs: Math.round((performance.now() - start) * 100) / 100
          })
        // One log line and one copy of the headers: this runs on every response.
        const finish = (response: HttpServerResponse.HttpServerResponse) => {
          const caching = readers.cachingOf(request, response)
          // Every 503 is a dependency (or Coursekit itself) that is down or busy now: say when to retry.
          const retry = response.status === 503 && response.headers["retry-after"] === undefined ? retryAfter : undefined
          const answered = caching === undefined && retry === undefined
            ? HttpServerResponse.setHeader(response, "x-request-id", requestId)
            : HttpServerResponse.setHeaders(response, { ...caching, ...retry, "x-request-id": requestId })
          return loggedWhenSent(answered, request.method, logged)
        }
        // A bug in finishing the answer itself (the route table, the caching headers) is
        // still one logged 500 with the request's id, never an unlogged one.
        const crashed = (defect: unknown) => {
          logged(500)
          return Effect.map(unhandled(Cause.die(defect), requestId), HttpServerResponse.setHeader("x-request-id", requestId))
        }
        const finishOrCrash = (response: HttpServerResponse.HttpServerResponse): Effect.Effect<HttpServerResponse.HttpServerResponse> => {
          try {
            return Effect.succeed(finish(asProblem(response)))
          } catch (defect) {
            return crashed(defect)
          }
        }
        // One match for every outcome, not a combinator per concern: this runs on every request.
        // The failure branch sees an interruption because the servers run the middleware
        // uninterruptibly (`HttpEffect.toHandled`; the router makes routes interruptible
        // again): the 499 test checks it.
        return Effect.matchCauseEffect(
          // Every log line written while handling the request names it.
          Effect.annotateLogs(cached, "requestId", requestId),
          {
            onSuccess: finishOrCrash,
            onFailure: (cause) => {
              // Interruption keeps its own handling (client gone, server shutting down).
              if (Cause.hasInterruptsOnly(cause)) {
                logged(499)
                return Effect.failCause(cause)
              }
              let answer: Effect.Effect<HttpServerResponse.HttpServerResponse>
              try {
                answer = failureResponse(routes, cause, requestId)
              } catch (defect) {
                return crashed(defect)
              }
              return Effect.flatMap(answer, finishOrCrash)
            }
          }
        )
      })
  }),
  { global: true }
)
