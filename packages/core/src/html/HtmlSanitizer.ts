/**
 * The sanitization pipeline every stored HTML body passes (specification §1.2), on
 * unified/rehype: HTML is parsed as a fragment by parse5 ({@link rehypeParseFragment}),
 * transformed as a hast tree by three named plugins, and serialized again by the HTML
 * standard's fragment serialization ({@link rehypeSerializeHtml}) — no hand-written HTML
 * parsing.
 *
 * 1. {@link rehypeStripModelWrapping} — model output only: code fences, lead-ins, sign-offs.
 * 2. {@link rehypeNormalizeStructure} — empty and redundant nodes, whitespace.
 * 3. {@link rehypeEnforceAllowList} — tags, attributes, classes and URL schemes of the
 *    allow-list; dangerous elements dropped with their content.
 *
 * The processor runs stage 3 before stage 2: the structure pass then also cleans what
 * the allow-list removed (emptied elements, spans left bare), so a single structure walk
 * gives what 2 → 3 → 2 would — one full tree walk fewer on every document.
 *
 * The result is idempotent: sanitizing it again changes nothing. Bad input gets a clean
 * result; only a document past the limits is refused: more elements than `maxElements`
 * ({@link HtmlTooComplex}), or sanitized HTML longer than may be stored
 * ({@link HtmlTooLong}). An adapter that runs the pipelines elsewhere (a worker process)
 * adds a time budget and a bounded queue ({@link SanitizerOverloaded}).
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer } from "effect"
import { defaultAllowList, type HtmlAllowList } from "./HtmlAllowList.ts"
import { defaultHtmlLimits, type HtmlLimitExceeded, type HtmlLimits, makeHtmlPipelines } from "./HtmlPipelines.ts"
import { type HtmlTaskRunner, modelOutputBlocks, type ModelOutputBlocks } from "./ModelOutputBlocks.ts"
import { type HtmlRefused, HtmlTooComplex, HtmlTooLong, SanitizerOverloaded } from "./HtmlRefusals.ts"

export type { HtmlTaskRunner, ModelOutputBlocks } from "./ModelOutputBlocks.ts"
export {
  defaultHtmlLimits,
  type HtmlLimitExceeded,
  type HtmlLimits,
  type HtmlPipelines,
  type HtmlTask,
  type HtmlTaskResult,
  type HtmlTaskValue,
  type TaskOf,
  makeHtmlPipelines
} from "./HtmlPipelines.ts"
export { rehypeEnforceAllowList, toSanitizeSchema } from "./rehypeEnforceAllowList.ts"
export { rehypeNormalizeStructure } from "./rehypeNormalizeStructure.ts"
export { maxNestingDepth, rehypeParseFragment } from "./rehypeParseFragment.ts"
export { rehypeSerializeHtml, serializeHtml } from "./rehypeSerializeHtml.ts"
export { rehypeStripModelWrapping } from "./rehypeStripModelWrapping.ts"
export { type HtmlRefused, HtmlTooComplex, HtmlTooLong, SanitizerOverloaded } from "./HtmlRefusals.ts"


/** The error of a pipeline's refusal. */
export const refusalOf = (refused: HtmlLimitExceeded): HtmlTooComplex | HtmlTooLong =>
  refused.reason === "length"
    ? new HtmlTooLong({ limit: refused.limit })
    : new HtmlTooComplex({ reason: "elements", detail: `The HTML has more than ${refused.limit} elements.` })

/**
 * Sanitizes HTML before it is stored. `sanitizeAuthored` is for HTML a person wrote
 * (stages 2 and 3: stage 1's prose stripping must never eat a human's first words);
 * `sanitizeModelOutput` is for model output (all three stages).
 */
export class HtmlSanitizer extends Context.Service<HtmlSanitizer, {
  /** What stage 3 keeps: model prompts describe it, so that less is removed. */
  readonly allowList: HtmlAllowList
  /** What every document is held to. */
  readonly limits: HtmlLimits
  sanitizeAuthored(html: string): Effect.Effect<string, HtmlRefused>
  sanitizeModelOutput(html: string): Effect.Effect<string, HtmlRefused>
  /**
   * Sanitizes a model's answer as it streams in (all three stages): the blocks it hands
   * out concatenate to what `sanitizeModelOutput` answers for the whole answer.
   */
  modelOutputBlocks(): ModelOutputBlocks<HtmlRefused>
}>()("@coursekit/core/HtmlSanitizer") {
  /**
   * The sanitizer over `run`, which runs the pipelines of `allowList` and `limits`
   * somewhere: in process ({@link layerWith}) or in worker processes.
   */
  static readonly make = (allowList: HtmlAllowList, limits: HtmlLimits, run: HtmlTaskRunner<HtmlRefused>): HtmlSanitizer["Service"] =>
    HtmlSanitizer.of({
      allowList,
      limits,
      sanitizeAuthored: Effect.fn("HtmlSanitizer.sanitizeAuthored")(function*(html: string) {
        return yield* run({ op: "authored", html })
      }),
      sanitizeModelOutput: Effect.fn("HtmlSanitizer.sanitizeModelOutput")(function*(html: string) {
        return yield* run({ op: "modelOutput", html })
      }),
      modelOutputBlocks: () => modelOutputBlocks(run, limits.maxLength)
    })

  /**
   * The pipeline with `allowList` (see {@link mergeAllowLists} to extend the default),
   * run in process: on the calling fiber's thread, with no time budget. A Node server
   * takes `WorkerHtmlSanitizer` from `@coursekit/server` instead, which runs the same
   * pipelines off the event loop.
   */
  static readonly layerWith = (allowList: HtmlAllowList, limits: HtmlLimits = defaultHtmlLimits): Layer.Layer<HtmlSanitizer> =>
    Layer.sync(HtmlSanitizer, () => {
      const pipelines = makeHtmlPipelines(allowList, limits)
      const run: HtmlTaskRunner<HtmlRefused> = (task) =>
        Effect.suspend(() => {
          const result = pipelines.run(task)
          return result.ok ? Effect.succeed(result.value) : Effect.fail(refusalOf(result.refused))
        })
      return HtmlSanitizer.make(allowList, limits, run)
    })

  /** The pipeline with Coursekit's {@link defaultAllowList}, in process. */
  static readonly layer: Layer.Layer<HtmlSanitizer> = HtmlSanitizer.layerWith(defaultAllowList)
}
