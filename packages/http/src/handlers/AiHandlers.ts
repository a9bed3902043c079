/**
 * Handlers of the AI endpoints of the admin API, over the core's {@link ContentGenerator}.
 * `POST /admin/ai/generate` answers JSON, or — when the request accepts
 * `text/event-stream` — the generation as server-sent events (see
 * `GenerationEventStream.ts` for the events).
 *
 * @since 0.1.0
 */
import { ContentGenerator, type GenerateRequest, type GenerationEvent } from "@coursekit/core"
import { Duration, Effect, Stream } from "effect"
import { HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { CoursekitApi } from "../CoursekitApi.ts"
import { problemOf, problems } from "../problems/DomainProblems.ts"
import { acceptsEventStream, generationEventStreamType } from "./GenerationEventStream.ts"
import { unexpectedErrorDetail } from "../edge/EdgeMiddleware.ts"
import { problemBody } from "../problems/Problems.ts"

/** How often a comment is sent, so that proxies keep a connection open while a slow model thinks. */
const keepAliveEvery = Duration.seconds(15)

const frame = (event: string, data: unknown) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`

const frameOf = (event: GenerationEvent): string =>
  event._tag === "Attempt" ? frame("attempt", event.attempt)
  : event._tag === "Html" ? frame("html", { html: event.html })
  : frame("done", event.content)

/** The generation as an event stream; a failure is its last event, `error`. */
const eventStream = (generator: ContentGenerator["Service"], request: GenerateRequest) => {
  const events = generator.stream(request).pipe(
    Stream.map(frameOf),
    // The problem the JSON answer would carry, logged the same way.
    Stream.catch((error) => Stream.fromEffect(Effect.map(problemOf(error), (problem) => frame("error", problem)))),
    // A bug ends the stream with a 500 event, as the edge answers one, rather than a cut connection.
    Stream.catchDefect((defect) =>
      Stream.fromEffect(Effect.as(
        Effect.logError("unhandled failure", defect),
        frame("error", problemBody(500, unexpectedErrorDetail))
      ))
    )
  )
  const keepAlive = Stream.tick(keepAliveEvery).pipe(Stream.drop(1), Stream.as(": keep-alive\n\n"))
  return HttpServerResponse.stream(
    Stream.encodeText(Stream.merge(events, keepAlive, { haltStrategy: "left" })),
    {
      contentType: `${generationEventStreamType}; charset=utf-8`,
      headers: {
        "cache-control": "no-store",
        // nginx and similar proxies buffer responses unless told not to.
        "x-accel-buffering": "no"
      }
    }
  )
}

/** The `ai` group. Needs `ContentGenerator`. */
export const layer = HttpApiBuilder.group(CoursekitApi, "ai", Effect.fn(function*(handlers) {
  const generator = yield* ContentGenerator
  return handlers.handleAll({
    generate: ({ payload, request }) =>
      acceptsEventStream(request.headers.accept) ? Effect.succeed(eventStream(generator, payload)) : problems(generator.generate(payload))
  })
}))
