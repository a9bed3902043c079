/**
 * A language model that answers from a script, for tests and demos: each call takes the
 * next step (text, a failure, a stream that breaks, or a hang); with the script used up
 * it repeats the last step. It speaks no wire format (see `ModelScript` and the fake
 * provider servers for that) and is the `LlmProvider` that use-case tests run on.
 * `stream` hands out a step's text in pieces of `chunkSize` characters (code points: no
 * character is cut).
 *
 * @since 0.1.0
 */
import { Effect, Layer, Ref, Stream } from "effect"
import { LlmFailure, type LlmFailureKind, LlmProvider, type LlmRequest, LlmStreamPart, type LlmUsage } from "../../generation/LlmProvider.ts"
import { chunksOf } from "./ModelScript.ts"

/** Names of a scripted model; default `scripted` / `scripted-model`, no endpoint. */
export interface ScriptedModelOptions {
  readonly provider?: string
  readonly model?: string
  /** Characters per streamed piece; default 16. */
  readonly chunkSize?: number
  readonly endpoint?: string
}

/**
 * A scripted model: `service` is the `LlmProvider`; `calls` counts the calls it
 * received, `requests` lists them, `abandoned` counts the calls given up on before their
 * answer was all out (a hanging call interrupted, a stream stopped early), and `push`
 * replaces the script.
 */
export const make = (
  options: ScriptedModelOptions,
  script: ReadonlyArray<ScriptedStep>
) =>
  Effect.gen(function*() {
    const queue = yield* Ref.make({ steps: script, calls: 0, requests: [] as ReadonlyArray<LlmRequest> })
    const abandoned = yield* Ref.make(0)
    const take = (request: LlmRequest) =>
      Ref.modify(queue, (state) => {
        const step = state.steps[0]
        return [step, {
          steps: state.steps.length > 1 ? state.steps.slice(1) : state.steps,
          calls: state.calls + 1,
          requests: [...state.requests, request]
        }]
      })
    const hang = Effect.onInterrupt(Effect.never, () => Ref.update(abandoned, (n) => n + 1))
    const chunkSize = options.chunkSize ?? 16
    const pieces = (text: string): ReadonlyArray<LlmStreamPart> => chunksOf(text, chunkSize).map(LlmStreamPart.textDelta)
    const service = LlmProvider.of({
      provider: options.provider ?? "scripted",
      model: options.model ?? "scripted-model",
      ...(options.endpoint === undefined ? {} : { endpoint: options.endpoint }),
      generate: (request) =>
        Effect.flatMap(take(request), (step) => {
          if (step === undefined || step._tag === "Hang" || step._tag === "HangAfter") return hang
          if (step._tag === "Text") return Effect.succeed({ text: step.text, usage: step.usage })
          return Effect.fail(step.failure)
        }),
      stream: (request) =>
        Stream.unwrap(Effect.map(take(request), (step): Stream.Stream<LlmStreamPart, LlmFailure> => {
          if (step === undefined || step._tag === "Hang") return Stream.fromEffect(hang)
          if (step._tag === "Fail") return Stream.fail(step.failure)
          // A consumer that stops before the answer is all out abandons the call, as with a
          // real model; a break is the model's doing.
          let finished = false
          const finish = Stream.fromEffectDrain(Effect.sync(() => {
            finished = true
          }))
          const end = step._tag === "Break" ? Stream.concat(finish, Stream.fail(step.failure))
            : step._tag === "HangAfter" ? Stream.never
            : Stream.concat(Stream.fromIterable(step.usage === null ? [] : [LlmStreamPart.usage(step.usage)]), finish)
          return Stream.concat(Stream.fromIterable(pieces(step.text)), end).pipe(
            Stream.ensuring(Effect.suspend(() => finished ? Effect.void : Ref.update(abandoned, (n) => n + 1)))
          )
        }))
    })
    return {
      service,
      calls: Effect.map(Ref.get(queue), (state) => state.calls),
      requests: Effect.map(Ref.get(queue), (state) => state.requests),
      abandoned: Ref.get(abandoned),
      push: (...steps: ReadonlyArray<ScriptedStep>) => Ref.update(queue, (state) => ({ ...state, steps }))
    }
  })

/** A scripted model as a layer. */
export const layer = (options: ScriptedModelOptions, script: ReadonlyArray<ScriptedStep>): Layer.Layer<LlmProvider> =>
  Layer.effect(LlmProvider, Effect.map(make(options, script), (made) => made.service))

/** One step of a scripted model. */
export type ScriptedStep =
  | { readonly _tag: "Text"; readonly text: string; readonly usage: LlmUsage | null }
  | { readonly _tag: "Fail"; readonly failure: LlmFailure }
  /** Streams `text`, then fails (a connection lost mid-answer); `generate` just fails. */
  | { readonly _tag: "Break"; readonly text: string; readonly failure: LlmFailure }
  | { readonly _tag: "Hang" }
  /** Streams `text`, then hangs; `generate` just hangs. */
  | { readonly _tag: "HangAfter"; readonly text: string }

const failureOf = (kind: LlmFailureKind, options: { readonly status?: number; readonly retryAfterMillis?: number }) =>
  new LlmFailure({
    kind,
    detail: `scripted ${kind}`,
    ...(options.status === undefined ? {} : { status: options.status }),
    ...(options.retryAfterMillis === undefined ? {} : { retryAfterMillis: options.retryAfterMillis })
  })

/** Script steps. */
export const ScriptedStep = {
  /** Answers `text`, reporting `usage` (default: none). */
  text: (text: string, usage: LlmUsage | null = null): ScriptedStep => ({ _tag: "Text", text, usage }),
  fail: (kind: LlmFailureKind, options: { readonly status?: number; readonly retryAfterMillis?: number } = {}): ScriptedStep => ({
    _tag: "Fail",
    failure: failureOf(kind, options)
  }),
  /** Streams `text`, then fails with `kind`. */
  breakAfter: (text: string, kind: LlmFailureKind = "network_error"): ScriptedStep => ({ _tag: "Break", text, failure: failureOf(kind, {}) }),
  hang: { _tag: "Hang" } as ScriptedStep,
  /** Streams `text`, then hangs (until interrupted). */
  hangAfter: (text: string): ScriptedStep => ({ _tag: "HangAfter", text })
}
