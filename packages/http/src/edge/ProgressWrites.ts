/**
 * A learner's progress write, `PUT /me/lessons/{lesson_id}/progress`, answered at the
 * edge: every learner's player sends one every 10 seconds, and the typed API's routing,
 * decoding and middleware around it cost more than the write itself (issue #33's
 * benchmark). The answer is the API's, byte for byte — the same use case
 * (`Learning.record`), the same schemas for the id, the body and the answer, the same
 * problems (`problemResponseOf`); the tests compare the two.
 *
 * Only a request the API would accept is served here: a `PUT` of that path whose lesson
 * id is canonical (`LessonIdParam`), whose body is JSON (`Content-Type` absent or
 * `application/json`, as the API reads it) that decodes as a `ProgressUpdate`, from a
 * signed-in viewer the `ViewerResolver` accepts. Everything else — an anonymous viewer,
 * a token that does not verify, a body that does not decode or cannot be read, a
 * percent-encoded id — goes to the API with the viewer and the body already read, and it
 * answers as it always has (401, 400, 413, 415, 503).
 *
 * @since 0.3.0
 */
import { Learning, LessonProgress, ProgressUpdate } from "@coursekit/core"
import { Context, Effect, Layer, Option, Schema } from "effect"
import { type HttpServerRequest, HttpServerResponse } from "effect/http"
import { contractRoutes } from "../ContractRoutes.ts"
import { payloadParseOptions } from "../CoursekitApi.ts"
import { LessonIdParam } from "../PathParams.ts"
import { problemResponseOf } from "../problems/DomainProblems.ts"
import { resolveOnce } from "../auth/RequestViewer.ts"
import { ViewerResolver } from "../auth/ViewerResolver.ts"
import { pathOf } from "./RequestPath.ts"

const decodeLessonId = Schema.decodeUnknownOption(LessonIdParam)
const decodeUpdate = Schema.decodeUnknownOption(ProgressUpdate, payloadParseOptions)
const encodeProgress = Schema.encodeSync(LessonProgress)

/** Whether the body is JSON as the API reads it: no `Content-Type` is JSON there too. */
const isJson = (contentType: string | undefined) => {
  if (contentType === undefined) return true
  const cut = contentType.indexOf(";")
  return (cut === -1 ? contentType : contentType.slice(0, cut)).trim().toLowerCase() === "application/json"
}

/** The body as a `ProgressUpdate`, or undefined when the API should answer (its 400). */
const updateOf = (text: string): ProgressUpdate | undefined => {
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    return undefined
  }
  return Option.getOrUndefined(decodeUpdate(body))
}

/** Serves learners' progress writes around the routes (see `EdgeMiddleware`). */
export class ProgressWrites extends Context.Service<ProgressWrites, {
  /** The answer to a `PUT /me/lessons/{lesson_id}/progress` it can give as the API would; other requests go to `app`. */
  around<E, R>(
    request: HttpServerRequest.HttpServerRequest,
    app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
  ): Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
}>()("@coursekit/http/ProgressWrites") {
  /** Over `Learning` and the `ViewerResolver` in context. */
  static readonly layer: Layer.Layer<ProgressWrites, never, Learning | ViewerResolver> = Layer.effect(
    ProgressWrites,
    Effect.gen(function*() {
      const learning = yield* Learning
      const viewers = yield* ViewerResolver
      const around = <E, R>(
        request: HttpServerRequest.HttpServerRequest,
        app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
      ): Effect.Effect<HttpServerResponse.HttpServerResponse, E, R> => {
        if (request.method !== "PUT" || request.url.includes("#") || !isJson(request.headers["content-type"])) return app
        const id = contractRoutes.lessonProgressIdOf(pathOf(request.url))
        const lessonId = id === undefined ? undefined : Option.getOrUndefined(decodeLessonId(id))
        if (lessonId === undefined) return app
        // Refused or unknown credentials, an anonymous viewer, an unreadable body: the API
        // answers them, with the viewer resolved once and the body read once (both are kept).
        return Effect.matchEffect(resolveOnce(viewers, request), {
          onFailure: () => app,
          onSuccess: (viewer) => {
            if (viewer._tag !== "User") return app
            return Effect.matchEffect(request.text, {
              onFailure: () => app,
              onSuccess: (text) => {
                const update = updateOf(text)
                if (update === undefined) return app
                return Effect.matchEffect(learning.record(viewer.id, lessonId, update), {
                  onFailure: problemResponseOf,
                  onSuccess: (progress) =>
                    Effect.succeed(HttpServerResponse.text(JSON.stringify(encodeProgress(progress)), { contentType: "application/json" }))
                })
              }
            })
          }
        })
      }
      return ProgressWrites.of({ around })
    })
  )
}
