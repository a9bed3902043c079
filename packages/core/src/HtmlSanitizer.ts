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
 * result, never an error.
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer } from "effect"
import type { Root } from "hast"
import { unified } from "unified"
import { defaultAllowList, type HtmlAllowList } from "./HtmlAllowList.ts"
import { rehypeEnforceAllowList } from "./html/rehypeEnforceAllowList.ts"
import { rehypeNormalizeStructure } from "./html/rehypeNormalizeStructure.ts"
import { rehypeParseFragment } from "./html/rehypeParseFragment.ts"
import { modelOutputBlocks, type ModelOutputBlocks } from "./html/ModelOutputBlocks.ts"
import { rehypeSerializeHtml, serializeHtml } from "./html/rehypeSerializeHtml.ts"
import { rehypeStripModelWrapping, stripModelWrapping } from "./html/rehypeStripModelWrapping.ts"

export type { ModelOutputBlocks } from "./html/ModelOutputBlocks.ts"
export { rehypeEnforceAllowList, toSanitizeSchema } from "./html/rehypeEnforceAllowList.ts"
export { rehypeNormalizeStructure } from "./html/rehypeNormalizeStructure.ts"
export { maxNestingDepth, rehypeParseFragment } from "./html/rehypeParseFragment.ts"
export { rehypeSerializeHtml, serializeHtml } from "./html/rehypeSerializeHtml.ts"
export { rehypeStripModelWrapping } from "./html/rehypeStripModelWrapping.ts"

/** Builds the two pipelines for `allowList` once; they are reused for every call. */
const makePipelines = (allowList: HtmlAllowList) => {
  const authored = unified()
    .use(rehypeParseFragment)
    .use(rehypeEnforceAllowList(allowList))
    .use(rehypeNormalizeStructure)
    .use(rehypeSerializeHtml)
    .freeze()
  const modelOutput = unified()
    .use(rehypeParseFragment)
    .use(rehypeStripModelWrapping)
    .use(rehypeEnforceAllowList(allowList))
    .use(rehypeNormalizeStructure)
    // Stage 3 can drop the last elements, leaving prose that was between elements at the
    // edge; stripping again (a scan of the top level only) keeps the result idempotent.
    .use(() => stripModelWrapping)
    .freeze()
  const modelOutputTree = (html: string) => modelOutput.runSync(modelOutput.parse(html)) as Root
  return {
    authored: (html: string) => String(authored.processSync(html)),
    modelOutput: (html: string) => serializeHtml(modelOutputTree(html)),
    modelOutputTree
  }
}

/**
 * Sanitizes HTML before it is stored. `sanitizeAuthored` is for HTML a person wrote
 * (stages 2 and 3: stage 1's prose stripping must never eat a human's first words);
 * `sanitizeModelOutput` is for model output (all three stages).
 */
export class HtmlSanitizer extends Context.Service<HtmlSanitizer, {
  /** What stage 3 keeps: model prompts describe it, so that less is removed. */
  readonly allowList: HtmlAllowList
  sanitizeAuthored(html: string): Effect.Effect<string>
  sanitizeModelOutput(html: string): Effect.Effect<string>
  /**
   * Sanitizes a model's answer as it streams in (all three stages): the blocks it hands
   * out concatenate to what `sanitizeModelOutput` answers for the whole answer.
   */
  modelOutputBlocks(): ModelOutputBlocks
}>()("@coursekit/core/HtmlSanitizer") {
  /** The pipeline with `allowList` (see {@link mergeAllowLists} to extend the default). */
  static readonly layerWith = (allowList: HtmlAllowList): Layer.Layer<HtmlSanitizer> =>
    Layer.sync(HtmlSanitizer, () => {
      const pipelines = makePipelines(allowList)
      return HtmlSanitizer.of({
        allowList,
        sanitizeAuthored: Effect.fn("HtmlSanitizer.sanitizeAuthored")(function*(html: string) {
          return pipelines.authored(html)
        }),
        sanitizeModelOutput: Effect.fn("HtmlSanitizer.sanitizeModelOutput")(function*(html: string) {
          return pipelines.modelOutput(html)
        }),
        modelOutputBlocks: () => modelOutputBlocks(pipelines.modelOutputTree)
      })
    })

  /** The pipeline with Coursekit's {@link defaultAllowList}. */
  static readonly layer: Layer.Layer<HtmlSanitizer> = HtmlSanitizer.layerWith(defaultAllowList)
}
