/**
 * `POST /admin/ai/generate` as a stream of its server-sent events (see
 * `GenerationEventStream` in `@coursekit/http/api`): attempts as each model's try ends,
 * sanitized HTML block by block, then the generated content. An `error` event, or an
 * error answered before the stream started (401, 400), fails the stream with a
 * {@link GenerationStreamError}. Interrupting the stream (or breaking out of the async
 * iterator) closes the connection, which stops the generation on the server.
 *
 * @since 0.2.0
 */
import type { GenerateRequest } from "@coursekit/core"
import { generationEvents, generationEventStreamType, GenerationStreamProblem, type GenerationStreamEvent } from "@coursekit/http/api"
import { Effect, Schema, Stream } from "effect"
import { Sse } from "effect/encoding"
import { HttpClient, HttpClientRequest } from "effect/http"
import type { ClientOptions } from "./CoursekitClient.ts"

/** An event of the stream other than `error` (which fails it). */
export type GenerationEvent = Exclude<GenerationStreamEvent, { readonly event: "error" }>

/**
 * The generation failed: every model failed or one failed after HTML was sent (502, with
 * `attempts`), no model is configured (503), or the request was refused before the
 * stream started (401, 400, …). `status` 0: the server could not be reached or its
 * stream not read.
 */
export class GenerationStreamError extends Schema.TaggedError<GenerationStreamError>()("GenerationStreamError", {
  status: Schema.Int,
  problem: GenerationStreamProblem
}) {
  override get message(): string {
    return this.problem.detail
  }
}

const unreadable = (detail: string) =>
  new GenerationStreamError({ status: 0, problem: { type: "about:blank", title: "No answer", status: 0, detail } })

const decodeProblem = Schema.decodeUnknownEffect(Schema.fromJsonString(GenerationStreamProblem))

/** One server-sent event as a generation event; `error` fails, unknown names are skipped. */
const decodeEvent = (event: Sse.Event): Effect.Effect<ReadonlyArray<GenerationEvent>, GenerationStreamError> => {
  const read = <A, I>(schema: Schema.Codec<A, I>) =>
    Effect.mapError(
      Schema.decodeUnknownEffect(Schema.fromJsonString(schema))(event.data),
      () => unreadable(`The ${event.event} event could not be read.`)
    )
  switch (event.event) {
    case "attempt":
      return Effect.map(read(generationEvents.attempt), (data) => [{ event: "attempt", data }])
    case "html":
      return Effect.map(read(generationEvents.html), (data) => [{ event: "html", data }])
    case "done":
      return Effect.map(read(generationEvents.done), (data) => [{ event: "done", data }])
    case "error":
      return Effect.flatMap(read(generationEvents.error), (problem) => Effect.fail(new GenerationStreamError({ status: problem.status, problem })))
    default:
      // Events a later server may add.
      return Effect.succeed([])
  }
}

/**
 * Streams the generation of `request` from the API at `options.baseUrl`, authorized with
 * `options.adminToken`. Ends after the `done` event.
 */
export const streamGeneration = (
  options: ClientOptions,
  request: GenerateRequest
): Stream.Stream<GenerationEvent, GenerationStreamError, HttpClient.HttpClient> =>
  Stream.unwrap(Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const token = typeof options.adminToken === "function" ? options.adminToken() : options.adminToken
    let httpRequest = HttpClientRequest.post(`${options.baseUrl}/admin/ai/generate`).pipe(
      HttpClientRequest.accept("text/event-stream"),
      HttpClientRequest.bodyJsonUnsafe(request)
    )
    if (token !== undefined && token !== "") httpRequest = HttpClientRequest.bearerToken(httpRequest, token)
    const response = yield* Effect.mapError(client.execute(httpRequest), (error) => unreadable(`The request did not complete: ${error.message}`))
    // A Content-Type, not an Accept header: only its media type counts.
    const mediaType = (response.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase()
    if (response.status !== 200 || mediaType !== generationEventStreamType) {
      const text = yield* Effect.orElseSucceed(response.text, () => "")
      const problem = yield* Effect.orElseSucceed(decodeProblem(text), () => ({
        type: "about:blank",
        title: `HTTP ${response.status}`,
        status: response.status,
        detail: `The server answered HTTP ${response.status} without a problem body.`
      }))
      return yield* new GenerationStreamError({ status: response.status, problem })
    }
    let done = false
    return response.stream.pipe(
      Stream.mapError((error) => unreadable(`The stream broke off: ${String(error)}`)),
      Stream.decodeText,
      Stream.pipeThroughChannel(Sse.decode()),
      Stream.mapError((error) => error instanceof GenerationStreamError ? error : unreadable("The stream could not be read.")),
      Stream.filter((event): event is Sse.Event => event._tag === "Event"),
      Stream.mapEffect(decodeEvent),
      Stream.flatMap(Stream.fromIterable),
      Stream.takeUntil((event) => event.event === "done"),
      Stream.tap((event) => Effect.sync(() => done ||= event.event === "done")),
      // A server that went away mid-answer closes the stream without `done` or `error`.
      Stream.concat(Stream.suspend(() => done ? Stream.empty : Stream.fail(unreadable("The stream ended before the generation was done."))))
    )
  }))
