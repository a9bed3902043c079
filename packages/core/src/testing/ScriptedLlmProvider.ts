/**
 * A language model that answers from a script, for tests and demos: each call takes the
 * next step (text, a failure, or a hang); with the script used up it repeats the last
 * step. It speaks no wire format (see `ModelScript` and the fake provider servers for
 * that) and is the `LlmProvider` that use-case tests run on.
 *
 * @since 0.1.0
 */
import { Effect, Layer, Ref } from "effect"
import { LlmFailure, type LlmFailureKind, LlmProvider, type LlmRequest } from "../LlmProvider.ts"

/** Names of a scripted model; default `scripted` / `scripted-model`, no endpoint. */
export interface ScriptedModelOptions {
  readonly provider?: string
  readonly model?: string
  readonly endpoint?: string
}

/**
 * A scripted model: `service` is the `LlmProvider`; `calls` counts the calls it
 * received, `requests` lists them, `abandoned` counts the hanging calls interrupted, and
 * `push` replaces the script.
 */
export const make = (
  options: ScriptedModelOptions,
  script: ReadonlyArray<ScriptedStep>
) =>
  Effect.gen(function*() {
    const queue = yield* Ref.make({ steps: script, calls: 0, requests: [] as ReadonlyArray<LlmRequest> })
    const abandoned = yield* Ref.make(0)
    const service = LlmProvider.of({
      provider: options.provider ?? "scripted",
      model: options.model ?? "scripted-model",
      ...(options.endpoint === undefined ? {} : { endpoint: options.endpoint }),
      generate: (request) =>
        Ref.modify(queue, (state) => {
          const step = state.steps[0]
          return [step, {
            steps: state.steps.length > 1 ? state.steps.slice(1) : state.steps,
            calls: state.calls + 1,
            requests: [...state.requests, request]
          }]
        }).pipe(
          Effect.flatMap((step): Effect.Effect<string, LlmFailure> => {
            if (step === undefined || step._tag === "Hang") return Effect.onInterrupt(Effect.never, () => Ref.update(abandoned, (n) => n + 1))
            if (step._tag === "Text") return Effect.succeed(step.text)
            return Effect.fail(step.failure)
          })
        )
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
  | { readonly _tag: "Text"; readonly text: string }
  | { readonly _tag: "Fail"; readonly failure: LlmFailure }
  | { readonly _tag: "Hang" }

/** Script steps. */
export const ScriptedStep = {
  text: (text: string): ScriptedStep => ({ _tag: "Text", text }),
  fail: (kind: LlmFailureKind, options: { readonly status?: number; readonly retryAfterMillis?: number } = {}): ScriptedStep => ({
    _tag: "Fail",
    failure: new LlmFailure({
      kind,
      detail: `scripted ${kind}`,
      ...(options.status === undefined ? {} : { status: options.status }),
      ...(options.retryAfterMillis === undefined ? {} : { retryAfterMillis: options.retryAfterMillis })
    })
  }),
  hang: { _tag: "Hang" } as ScriptedStep
}
