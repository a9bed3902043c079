/**
 * Sanitizing a model's answer while it streams in. The top-level nodes of the answer so
 * far (as the HTML parser builds the tree) are settled except the last: the parser only
 * ever adds to the last top-level node, which holds every open element — except that
 * while that last node is an open table (or a table row: fragments are parsed as a
 * template's content), what does not belong in it goes just before it. So a node is
 * settled when it is not the last and ended before every later node started.
 * The text up to the end of the settled nodes is sanitized and its new blocks handed out.
 * Prose at its end is held back (it may yet prove to be a sign-off or, in an answer part
 * with no element, a lead-in), so what was handed out is always a prefix of the sanitized
 * whole answer and the pieces concatenate to exactly what sanitizing the whole answer at
 * once gives; `end` checks this and says if it ever did not hold.
 *
 * Stage 1 needs no special case: prose before the first element (a lead-in, an opening
 * fence) is stripped from every part, so it is recognised before anything is handed out.
 *
 * Cost: each round parses the answer so far and sanitizes its settled part, linear in
 * its length; a round runs only when a `>` has arrived and the answer has grown by a 32nd
 * since the last one, so a whole answer costs a few dozen passes rather than one per chunk.
 *
 * @since 0.2.0
 */
import type { Root } from "hast"
import { type DefaultTreeAdapterMap, parseFragment } from "parse5"
import { serializeHtml } from "./rehypeSerializeHtml.ts"

/** The sanitized blocks of a streaming answer. */
export interface ModelOutputBlocks {
  /** Adds the next piece of the answer; answers the sanitized HTML that is now final, block by block (often none). */
  push(text: string): ReadonlyArray<string>
  /**
   * The answer is complete: the blocks not handed out yet, and the whole sanitized answer
   * (what `sanitizeModelOutput` answers). `diverged` says what was handed out is not a
   * prefix of `html`; the pieces must then not be used as the answer.
   */
  end(): { readonly blocks: ReadonlyArray<string>; readonly html: string; readonly diverged: boolean }
}

/**
 * Serialized top-level nodes of `tree`: all of them, or (`settled`) those up to its last
 * element. Prose after it may be a sign-off, and an answer part with no element at all
 * may be a lead-in (stage 1 keeps the prose of an answer with no tag).
 */
const pieces = (tree: Root, settled: boolean): Array<string> => {
  let end = tree.children.length
  if (settled) while (end > 0 && tree.children[end - 1]!.type !== "element") end--
  return tree.children.slice(0, end).map((child) => serializeHtml({ type: "root", children: [child] }))
}

type Parse5Node = DefaultTreeAdapterMap["childNode"]

/** Where a top-level node's source starts and ends, over the node and everything in it. */
interface Span {
  /** Undefined: the parser made the node up (a stray `</p>`'s empty `p`); it constrains nothing. */
  readonly start: number | undefined
  readonly end: number | undefined
}

/**
 * The span of top-level `node`. Its end is the furthest end inside it: `</form>` ends a
 * form but leaves what is open inside it open. A formatting element the parser reopened
 * carries its original's start (`earlierStarts` holds those of the nodes before), so its
 * span starts where its own content does.
 */
const spanOf = (node: Parse5Node, earlierStarts: Set<number>): Span => {
  let start: number | undefined
  let end: number | undefined
  const own = node.sourceCodeLocation?.startOffset
  const visit = (current: Parse5Node, top: boolean) => {
    const location = current.sourceCodeLocation
    if (location !== undefined && location !== null) {
      if (!top || !earlierStarts.has(location.startOffset)) start = Math.min(start ?? location.startOffset, location.startOffset)
      end = Math.max(end ?? location.endOffset, location.endOffset)
    }
    if ("childNodes" in current) for (const child of current.childNodes) visit(child, false)
  }
  visit(node, true)
  if (own !== undefined) earlierStarts.add(own)
  return { start, end }
}

/** How much of `answer` is settled: the end of its last settled top-level node (0: none). */
const settledLength = (answer: string): number => {
  const nodes = parseFragment(answer, { sourceCodeLocationInfo: true }).childNodes
  const earlierStarts = new Set<number>()
  const spans = nodes.map((node) => spanOf(node, earlierStarts))
  // A node is settled when it is not the last and everything in it ended before every
  // later node started: content the parser put in front of an open table starts after
  // the table does, and what is still open ends at the end of the answer.
  const laterStart = new Array<number>(nodes.length).fill(answer.length)
  for (let index = nodes.length - 2; index >= 0; index--) {
    laterStart[index] = Math.min(laterStart[index + 1]!, spans[index + 1]!.start ?? answer.length)
  }
  let settled = 0
  for (let index = 0; index < nodes.length - 1; index++) {
    const { start, end } = spans[index]!
    if (start === undefined && end === undefined) continue
    if (end === undefined || end > laterStart[index]!) break
    settled = end
  }
  return settled
}

/** Starts one streaming answer, sanitized by `sanitizeTree` (all three stages, unserialized). */
export const modelOutputBlocks = (sanitizeTree: (html: string) => Root): ModelOutputBlocks => {
  let answer = ""
  let sanitizedLength = 0
  let settledBefore = 0
  let sent = ""
  let diverged = false

  /** The part of `next` (pieces whose concatenation extends `sent`) not sent yet, block by block. */
  const unsent = (next: ReadonlyArray<string>): Array<string> => {
    const out: Array<string> = []
    let offset = 0
    let whole = ""
    for (const piece of next) {
      const end = offset + piece.length
      if (end > sent.length) out.push(offset >= sent.length ? piece : piece.slice(sent.length - offset))
      whole += piece
      offset = end
    }
    if (!whole.startsWith(sent)) {
      // Not expected (see above); nothing more is handed out, and `end` reports it.
      diverged = true
      return []
    }
    sent = whole
    return out
  }

  return {
    push: (text) => {
      answer += text
      if (diverged || !text.includes(">") || answer.length - sanitizedLength < answer.length / 32) return []
      sanitizedLength = answer.length
      const settled = settledLength(answer)
      if (settled <= settledBefore) return []
      settledBefore = settled
      return unsent(pieces(sanitizeTree(answer.slice(0, settled)), true))
    },
    end: () => {
      // A fragment serializes as its top-level nodes one after the other: the pieces are the whole.
      const all = pieces(sanitizeTree(answer), false)
      const html = all.join("")
      if (diverged || !html.startsWith(sent)) return { blocks: [], html, diverged: true }
      return { blocks: unsent(all), html, diverged: false }
    }
  }
}
