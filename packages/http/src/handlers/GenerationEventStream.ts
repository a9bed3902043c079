/**
 * The event stream of `POST /admin/ai/generate` (`Accept: text/event-stream`): the
 * contract both the handler and the client follow. Each event is one server-sent event
 * whose `data` is one line of JSON:
 *
 * - `attempt` — a {@link GenerationAttempt}, as each model's try ends;
 * - `html` — a {@link GeneratedHtml}: the next sanitized top-level blocks; all of them
 *   concatenated are the `html` of the `done` event;
 * - `done` — the {@link GeneratedContent} the JSON answer holds; the stream ends;
 * - `error` — a problem (RFC 9457 body, the same the JSON answer would carry): every model
 *   failed (502, with `attempts`), a model failed after HTML went out (502, with
 *   `attempts`: the HTML sent is incomplete), no model is configured (503); the stream ends.
 *
 * A comment line (`: keep-alive`) goes out every 15 seconds, so that proxies keep a
 * connection open while a slow model thinks.
 *
 * @since 0.2.0
 */
import { GeneratedContent, GeneratedHtml, GenerationAttempt } from "@coursekit/core"
import { Schema } from "effect"
import { ProblemIssue } from "../problems/Problems.ts"

/** The content type of the stream. */
export const generationEventStreamType = "text/event-stream"

/** The body of an `error` event: a problem, with the attempts when models were tried. */
export const GenerationStreamProblem = Schema.Struct({
  type: Schema.String,
  title: Schema.String,
  status: Schema.Int,
  detail: Schema.String,
  attempts: Schema.optionalKey(Schema.Array(GenerationAttempt)),
  errors: Schema.optionalKey(Schema.Array(ProblemIssue))
}).annotate({ identifier: "GenerationStreamProblem" })
export type GenerationStreamProblem = typeof GenerationStreamProblem.Type

/** Each event's name and the schema of its data. */
export const generationEvents = {
  attempt: GenerationAttempt,
  html: GeneratedHtml,
  done: GeneratedContent,
  error: GenerationStreamProblem
} as const

/** One event of the stream, decoded. */
export type GenerationStreamEvent = {
  readonly [Name in keyof typeof generationEvents]: { readonly event: Name; readonly data: typeof generationEvents[Name]["Type"] }
}[keyof typeof generationEvents]

/**
 * How `accept` rates `type` (`major/minor`): by its most specific matching range (2 the
 * type itself, 1 `major/*`, 0 `*\/*`, -1 none) and that range's quality.
 */
const rating = (accept: string, type: string) => {
  const [major] = type.split("/")
  let best = { specificity: -1, quality: 0 }
  for (const range of accept.toLowerCase().split(",")) {
    const [name = "", ...parameters] = range.split(";").map((part) => part.trim())
    const specificity = name === type ? 2 : name === `${major}/*` ? 1 : name === "*/*" ? 0 : -1
    if (specificity <= best.specificity) continue
    const q = parameters.find((parameter) => parameter.startsWith("q="))
    const quality = q === undefined ? 1 : Number(q.slice(2))
    best = { specificity, quality: Number.isFinite(quality) ? quality : 0 }
  }
  return best
}

/**
 * Whether an `Accept` header asks for the event stream: it names `text/event-stream`
 * itself (a wildcard does not count) with a quality above 0 and at least JSON's. JSON
 * stays the answer to everything else, `*\/*` included.
 */
export const acceptsEventStream = (accept: string | undefined): boolean => {
  if (accept === undefined) return false
  const stream = rating(accept, generationEventStreamType)
  return stream.specificity === 2 && stream.quality > 0 && stream.quality >= rating(accept, "application/json").quality
}

/**
 * The JSON Schema of an event's `data`, derived from its schema: the record itself, with
 * the records it names referring to the document's components (where the contract's
 * other schemas have put them).
 */
const dataSchemaOf = (schema: Schema.Top): unknown => {
  const document = Schema.toJsonSchemaDocument(schema)
  const own = /^#\/\$defs\/(.+)$/.exec((document.schema as { $ref?: string }).$ref ?? "")?.[1]
  const body = own === undefined ? document.schema : document.definitions[own]
  return JSON.parse(JSON.stringify(body).replaceAll("\"#/$defs/", "\"#/components/schemas/"))
}

/**
 * The OpenAPI operation of `POST /admin/ai/generate` with the event stream as a second
 * representation of its 200 answer (HttpApi describes one per status).
 */
export const describeGenerationEventStream = (operation: Record<string, any>): Record<string, any> => {
  const ok = operation.responses?.["200"]
  if (ok === undefined) return operation
  const event = (name: string, schema: Schema.Top) => ({
    type: "object",
    required: ["event", "data"],
    properties: { event: { type: "string", enum: [name] }, data: dataSchemaOf(schema) }
  })
  return {
    ...operation,
    responses: {
      ...operation.responses,
      "200": {
        ...ok,
        description: `${ok.description ?? ""} With Accept: text/event-stream, server-sent events instead: ` +
          "attempt (a GenerationAttempt as each try ends), html ({html}: the next sanitized top-level blocks, which " +
          "concatenate to done's html), then done (the GeneratedContent) or error (a problem: 502 with attempts when " +
          "every model failed, or when one failed after HTML was sent; 503 when none is configured; 500 for a bug). Each " +
          "data is one line of JSON; a ': keep-alive' comment comes every 15 s.",
        content: {
          ...ok.content,
          [generationEventStreamType]: {
            schema: {
              oneOf: Object.entries(generationEvents).map(([name, schema]) => event(name, schema))
            }
          }
        }
      }
    }
  }
}
