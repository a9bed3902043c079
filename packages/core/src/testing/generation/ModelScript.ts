/**
 * A scripted model in wire terms, for fake provider servers (the loopback servers in
 * `@coursekit/llm-openai/testing` and `@coursekit/llm-gemini/testing`) and the
 * `LlmProvider` conformance suite: which answer each call gets, and what the model saw.
 * No I/O here; a server turns each `ModelAnswer` into its provider's wire format, whole
 * or streamed as the request asked.
 *
 * @since 0.1.0
 */
import type { LlmRequest, LlmUsage } from "../../generation/LlmProvider.ts"

/**
 * How fast the model writes: `firstChunkDelayMs` before the first chunk (the time to the
 * first token), then `chunkChars` characters (code points, so no character is ever cut)
 * per chunk, `chunkDelayMs` between chunks. A benchmark simulates a token rate with it,
 * e.g. `{ firstChunkDelayMs: 400, chunkChars: 4, chunkDelayMs: 20 }` ≈ 50 tokens a second.
 * A whole (not streamed) answer comes when the last chunk would have.
 */
export interface StreamPacing {
  readonly firstChunkDelayMs: number
  readonly chunkChars: number
  readonly chunkDelayMs: number
}

/**
 * How a streamed answer ends early, after its text: `reset` closes the connection,
 * `malformed` sends a chunk that is not JSON, `hang` sends nothing more (until the client
 * goes away), and `{ status }` sends the provider's in-stream error event — with that
 * status as its code, or, without one, the way the provider sends it when it gives none
 * (OpenAI: `code: null`; Gemini always gives one: 500).
 */
export type StreamBreak = "reset" | "malformed" | "hang" | { readonly status?: number }

/** One answer of a scripted model, in wire terms. */
export type ModelAnswer =
  /**
   * Success with this text (`""`: an answer with empty content) and this usage in the
   * provider's fields (`null`: the answer carries none; a `null` count: that field left out).
   */
  | { readonly _tag: "Text"; readonly text: string; readonly usage: LlmUsage | null; readonly pacing: StreamPacing }
  /** An HTTP error; `retryAfterSeconds` in the provider's own way of saying it. */
  | { readonly _tag: "Status"; readonly status: number; readonly retryAfterSeconds?: number }
  /** 200 with a body that is not the provider's JSON (streamed: a first chunk that is not JSON). */
  | { readonly _tag: "Malformed" }
  /** Never answers. */
  | { readonly _tag: "Hang" }
  /** Closes the connection without an answer. */
  | { readonly _tag: "Reset" }
  /**
   * Streamed: `text`, then ends as `how` says. Asked for a whole answer: the corresponding
   * failure (`reset` → `Reset`, `malformed` → `Malformed`, `hang` → `Hang`, `{ status }` →
   * that status, default 500).
   */
  | { readonly _tag: "Break"; readonly text: string; readonly how: StreamBreak; readonly pacing: StreamPacing }

/** The usage a text answer reports unless told otherwise. */
export const defaultUsage: LlmUsage = { input_tokens: 10, output_tokens: 10 }

/** The pacing of an answer unless told otherwise: 16 characters a chunk, no delay. */
export const defaultPacing: StreamPacing = { firstChunkDelayMs: 0, chunkChars: 16, chunkDelayMs: 0 }

/** Options of {@link ModelAnswer.text}. */
export interface TextOptions extends Partial<StreamPacing> {
  /** Usage to report; default {@link defaultUsage}; `null`: none. */
  readonly usage?: LlmUsage | null
}

const pacingOf = (options: Partial<StreamPacing>): StreamPacing => ({
  firstChunkDelayMs: Math.max(0, options.firstChunkDelayMs ?? defaultPacing.firstChunkDelayMs),
  chunkChars: Math.max(1, Math.floor(options.chunkChars ?? defaultPacing.chunkChars)),
  chunkDelayMs: Math.max(0, options.chunkDelayMs ?? defaultPacing.chunkDelayMs)
})

/** Constructors of {@link ModelAnswer}. */
export const ModelAnswer = {
  text: (text: string, options: TextOptions = {}): ModelAnswer => ({
    _tag: "Text",
    text,
    usage: options.usage === undefined ? defaultUsage : options.usage,
    pacing: pacingOf(options)
  }),
  status: (status: number, retryAfterSeconds?: number): ModelAnswer =>
    retryAfterSeconds === undefined ? { _tag: "Status", status } : { _tag: "Status", status, retryAfterSeconds },
  malformed: { _tag: "Malformed" } as ModelAnswer,
  hang: { _tag: "Hang" } as ModelAnswer,
  reset: { _tag: "Reset" } as ModelAnswer,
  /** Streams `text` (paced as `pacing` says), then ends as `how` says. */
  breakAfter: (text: string, how: StreamBreak, pacing: Partial<StreamPacing> = {}): ModelAnswer => ({
    _tag: "Break",
    text,
    how,
    pacing: pacingOf(pacing)
  })
}

/** A whole (not streamed) request's answer for a `Break`: what the break stands for. */
export const wholeAnswerOf = (answer: ModelAnswer): Exclude<ModelAnswer, { readonly _tag: "Break" }> => {
  if (answer._tag !== "Break") return answer
  const how = answer.how
  return how === "reset" ? { _tag: "Reset" }
    : how === "malformed" ? { _tag: "Malformed" }
    : how === "hang" ? { _tag: "Hang" }
    : { _tag: "Status", status: how.status ?? 500 }
}

/** When chunk `index` is due, in ms after the answer started. */
export const chunkDueMs = (index: number, pacing: StreamPacing): number => pacing.firstChunkDelayMs + index * pacing.chunkDelayMs

/**
 * `pieces` with their indexes, each when it is due by `pacing` (for fake servers writing
 * a paced stream). Waits until each due time rather than between pieces, so timer
 * lateness does not add up over a long answer; stops when `gone()` (the client left).
 */
export async function* atDueTimes<A>(pieces: ReadonlyArray<A>, pacing: StreamPacing, gone: () => boolean): AsyncGenerator<readonly [number, A]> {
  const started = Date.now()
  for (const [index, piece] of pieces.entries()) {
    const wait = started + chunkDueMs(index, pacing) - Date.now()
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait))
    if (gone()) return
    yield [index, piece]
  }
}

/** How long writing `text` takes at `pacing`: when its last chunk is due. */
export const writingTimeMs = (text: string, pacing: StreamPacing): number =>
  pacing.firstChunkDelayMs + Math.max(0, chunksOf(text, pacing.chunkChars).length - 1) * pacing.chunkDelayMs

/** `text` cut into chunks of `chunkChars` code points (none for `""`). */
export const chunksOf = (text: string, chunkChars: number): ReadonlyArray<string> => {
  const points = Array.from(text)
  return Array.from({ length: Math.ceil(points.length / chunkChars) }, (_, i) => points.slice(i * chunkChars, (i + 1) * chunkChars).join(""))
}

/** The side of a scripted model a test sees: what it will answer and what it saw. */
export interface ModelScriptControl {
  /** Replaces the script: the next calls get these answers, the last repeating. */
  answerWith(...answers: ReadonlyArray<ModelAnswer>): void
  /** The requests received, oldest first, as the model understood them. */
  readonly received: ReadonlyArray<LlmRequest>
  /**
   * Calls the client gave up on while the model was still at them: hanging, or with a
   * streamed answer not yet all sent.
   */
  readonly abandoned: number
}

/**
 * The answers a fake model gives, in order (the last one repeats), and what it saw.
 * Fake provider servers keep one; tests script it and read it.
 */
export interface ModelScript extends ModelScriptControl {
  /** Takes the answer for one call (servers call this once per request). */
  next(request: LlmRequest): ModelAnswer
  /** Servers report a client going away before its answer was all sent. */
  noteAbandoned(): void
}

/** A script answering `answers` (default: one short HTML paragraph). */
export const modelScript = (
  ...answers: ReadonlyArray<ModelAnswer>
): ModelScript => {
  let script: ReadonlyArray<ModelAnswer> = answers.length > 0 ? answers : [ModelAnswer.text("<p>Hello.</p>")]
  const received: Array<LlmRequest> = []
  let abandoned = 0
  return {
    answerWith: (...next) => {
      script = next
    },
    next: (request) => {
      received.push(request)
      const answer = script[0] ?? ModelAnswer.hang
      if (script.length > 1) script = script.slice(1)
      return answer
    },
    get received() {
      return received
    },
    get abandoned() {
      return abandoned
    },
    noteAbandoned: () => {
      abandoned += 1
    }
  }
}
