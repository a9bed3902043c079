/**
 * The server side of {@link ApiProblems}: schema decoding failures of a request become a
 * 400 {@link ValidationProblem} listing every invalid value; a response that fails to
 * encode is our bug and becomes a 500 without internals.
 *
 * @since 0.1.0
 */
import { Effect, SchemaIssue } from "effect"
import { HttpApiMiddleware } from "effect/http-api"
import { ApiProblems } from "./ApiProblems.ts"
import { InternalProblem, ValidationProblem } from "./Problems.ts"

const formatIssues = SchemaIssue.makeFormatterStandardSchemaV1()
const slotNames = { Params: "path", Query: "query", Headers: "header", Payload: "body" } as const

/** Renders request decoding failures as validation problems. */
export const layer = HttpApiMiddleware.layerSchemaErrorTransform(ApiProblems, (error) =>
  Effect.gen(function*() {
    if (error.kind === "Body" || error.kind === "ResponseHeaders") {
      yield* Effect.logError("response failed to encode", error.cause)
      return yield* new InternalProblem({ detail: "The server could not produce a valid response." })
    }
    const slot = slotNames[error.kind]
    const errors = formatIssues(error.cause.issue).issues.map((issue) => ({
      path: [slot, ...(issue.path ?? []).map((segment) => String(typeof segment === "object" ? segment.key : segment))]
        .join("."),
      message: issue.message
    }))
    const summary = errors.map((entry) => `${entry.path}: ${entry.message}`).join("; ")
    return yield* new ValidationProblem({ detail: `Invalid request ${slot}: ${summary}`, errors })
  }))
