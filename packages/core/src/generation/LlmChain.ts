/**
 * The language models `ContentGenerator` tries, in order, each with its prices when
 * known, and what an answer cost.
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer } from "effect"
import { LlmProvider, type LlmUsage } from "./LlmProvider.ts"

/** What a model costs, in US dollars per million tokens. */
export interface LlmPrices {
  readonly inputPerMillion: number
  readonly outputPerMillion: number
}

/** One step of the chain: a model and, when known, its prices. */
export interface LlmChainStep<E = never, R = never> {
  readonly model: Layer.Layer<LlmProvider, E, R>
  readonly prices?: LlmPrices | undefined
}

/** The models to try, in order, with their prices; `whenEmpty` tells an operator how to configure one. */
export class LlmChain extends Context.Service<LlmChain, {
  readonly steps: ReadonlyArray<{ readonly model: LlmProvider["Service"]; readonly prices: LlmPrices | undefined }>
  readonly whenEmpty: string
}>()("@coursekit/core/LlmChain") {
  /**
   * The chain of `steps` (a provider layer, or one with its prices), each layer built
   * once here (SDK clients are made once, not per call).
   */
  static readonly layer = <E = never, R = never>(
    steps: ReadonlyArray<Layer.Layer<LlmProvider, E, R> | LlmChainStep<E, R>>,
    options: { readonly whenEmpty?: string | undefined } = {}
  ): Layer.Layer<LlmChain, E, R> =>
    Layer.effect(
      LlmChain,
      Effect.gen(function*() {
        const built: Array<LlmChain["Service"]["steps"][number]> = []
        for (const step of steps) {
          const { model, prices }: LlmChainStep<E, R> = "model" in step ? step : { model: step }
          const context = yield* Layer.build(model)
          built.push({ model: Context.get(context, LlmProvider), prices })
        }
        return LlmChain.of({ steps: built, whenEmpty: options.whenEmpty ?? "Provide LlmProvider layers to LlmChain.layer." })
      })
    )
}

/** `usage` priced with `prices`, to 1e-9 USD; null when either is unknown. */
export const costOf = (usage: LlmUsage | null, prices: LlmPrices | undefined): number | null => {
  if (usage === null || prices === undefined || usage.input_tokens === null || usage.output_tokens === null) return null
  const dollars = (usage.input_tokens * prices.inputPerMillion + usage.output_tokens * prices.outputPerMillion) / 1_000_000
  return Math.round(dollars * 1e9) / 1e9
}
