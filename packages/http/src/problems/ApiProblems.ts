/**
 * The contract's declaration that any endpoint may answer 400 (invalid request) or 500.
 * Its server side (`ApiProblemsLive.ts`) turns schema decoding failures into
 * {@link ValidationProblem}s.
 *
 * @since 0.1.0
 */
import { HttpApiMiddleware } from "effect/http-api"
import { InternalProblem, ValidationProblem } from "./Problems.ts"

/** Declares the 400 and 500 problems every endpoint can answer. */
export class ApiProblems extends HttpApiMiddleware.Service<ApiProblems>()("@coursekit/http/ApiProblems", {
  error: [ValidationProblem, InternalProblem]
}) {}
