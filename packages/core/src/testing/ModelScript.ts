/**
 * A scripted model in wire terms, for fake provider servers (the loopback servers in
 * `@coursekit/llm-openai/testing` and `@coursekit/llm-gemini/testing`) and the
 * `LlmProvider` conformance suite: which answer each call gets, and what the model saw.
 * No I/O here; a server turns each `ModelAnswer` into its provider's wire format.
 *
 * @since 0.1.0
 */
import type { LlmRequest } from "../LlmProvider.ts"

/** One answer of a scripted model, in wire terms. */
export type ModelAnswer =
  /** Success with this text (`""`: an answer with empty content). */
  | { readonly _tag: "Text"; readonly text: string }
  /** An HTTP error; `retryAfterSeconds` in the provider's own way of saying it. */
  | { readonly _tag: "Status"; readonly status: number; readonly retryAfterSeconds?: number }
  /** 200 with a body that is not the provider's JSON. */
  | { readonly _tag: "Malformed" }
  /** Never answers. */
  | { readonly _tag: "Hang" }
  /** Closes the connection without an answer. */
  | { readonly _tag: "Reset" }

/** Constructors of {@link ModelAnswer}. */
export const ModelAnswer = {
  text: (text: string): ModelAnswer => ({ _tag: "Text", text }),
  status: (status: number, retryAfterSeconds?: number): ModelAnswer =>
    retryAfterSeconds === undefined ? { _tag: "Status", status } : { _tag: "Status", status, retryAfterSeconds },
  malformed: { _tag: "Malformed" } as ModelAnswer,
  hang: { _tag: "Hang" } as ModelAnswer,
  reset: { _tag: "Reset" } as ModelAnswer
}

/** The side of a scripted model a test sees: what it will answer and what it saw. */
export interface ModelScriptControl {
  /** Replaces the script: the next calls get these answers, the last repeating. */
  answerWith(...answers: ReadonlyArray<ModelAnswer>): void
  /** The requests received, oldest first, as the model understood them. */
  readonly received: ReadonlyArray<LlmRequest>
  /** Calls the client gave up on while the model was still thinking. */
  readonly abandoned: number
}

/**
 * The answers a fake model gives, in order (the last one repeats), and what it saw.
 * Fake provider servers keep one; tests script it and read it.
 */
export interface ModelScript extends ModelScriptControl {
  /** Takes the answer for one call (servers call this once per request). */
  next(request: LlmRequest): ModelAnswer
  /** Servers report a hanging call's client going away. */
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
