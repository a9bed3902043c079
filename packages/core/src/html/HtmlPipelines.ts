/**
 * The sanitization pipelines as plain synchronous functions over one allow-list and its
 * limits, with no Effect in them: `HtmlSanitizer.layer` runs them in process, and a
 * worker process (`@coursekit/server`'s `WorkerHtmlSanitizer`) runs the same functions
 * off the event loop. Every entry is one {@link HtmlTask} in, one {@link HtmlTaskResult}
 * out, so that both sides speak plain, cloneable data.
 *
 * Limits: a document may hold at most `maxElements` elements after parsing (the parser
 * stops there; deeper nesting than {@link maxNestingDepth} is flattened to text, as
 * before), and its sanitized HTML at most `maxLength` characters — what may be stored, so
 * that a stored body can always be read and written back unchanged (the serializer stops
 * there, so a tree whose HTML would be enormous never becomes that string).
 *
 * A streamed answer is sanitized in windows ({@link StreamRound}): each window is parsed
 * once from where the last one was cut, and a window is cut where both the parser and
 * the sanitizer start afresh, so the work over a whole answer stays linear in its size.
 *
 * @since 0.2.0
 */
import type { Root } from "hast"
import { type DefaultTreeAdapterMap, defaultTreeAdapter, type InsertionMode, Parser, type Token, TokenizerMode, type TreeAdapter } from "parse5"
import { unified } from "unified"
import { defaultAllowList, type HtmlAllowList } from "./HtmlAllowList.ts"

export type { HtmlAllowList } from "./HtmlAllowList.ts"
import { nodesToHast } from "./parse5ToHast.ts"
import { rehypeEnforceAllowList } from "./rehypeEnforceAllowList.ts"
import { isBlock, rehypeNormalizeStructure } from "./rehypeNormalizeStructure.ts"
import { maxNestingDepth } from "./rehypeParseFragment.ts"
import { SerializedTooLong, serializeHtml } from "./rehypeSerializeHtml.ts"
import { stripLeadIn, stripModelWrapping } from "./rehypeStripModelWrapping.ts"
import { defaultHtmlLimits, type HtmlLimits } from "./HtmlLimits.ts"

export { defaultHtmlLimits, type HtmlLimits } from "./HtmlLimits.ts"

/**
 * Where a streamed answer's next window starts: the parser's insertion mode at the cut
 * (a number of parse5's `InsertionMode`), or none for the answer's first window.
 */
export type StreamStart = number | undefined

/** One piece of work for the pipelines. */
export type HtmlTask =
  | { readonly op: "authored"; readonly html: string }
  | { readonly op: "modelOutput"; readonly html: string }
  /** A whole model answer, sanitized, as its top-level blocks. */
  | { readonly op: "modelOutputPieces"; readonly html: string }
  /**
   * One window of a streamed answer: the text from the last cut on. `sent` characters of
   * the window's HTML went out already (`sentHash` is their {@link fnv1a}), and at most
   * `room` more may follow in the whole answer.
   */
  | {
    readonly op: "streamRound"
    readonly text: string
    readonly start: StreamStart
    readonly sent: number
    readonly sentHash: number
    readonly room: number
  }

/** The task of `op`. */
export type TaskOf<Op extends HtmlTask["op"]> = Extract<HtmlTask, { readonly op: Op }>

/** What one window of a streamed answer gave. */
export interface StreamRound {
  /**
   * The window's settled blocks, sanitized, up to its last element, after the `sent`
   * characters that went out already (the first may be the rest of a block).
   */
  readonly pieces: ReadonlyArray<string>
  /** Whether the window's HTML still starts with what went out (its hash matched `sentHash`). */
  readonly extends: boolean
  /**
   * Where the next window starts (an offset into the window's text) and the parser's
   * state there, when every piece is final whatever follows; else none.
   */
  readonly cut: { readonly offset: number; readonly start: number } | undefined
}

/** What the task's op answers. */
export interface HtmlTaskValue {
  readonly authored: string
  readonly modelOutput: string
  readonly modelOutputPieces: ReadonlyArray<string>
  readonly streamRound: StreamRound
}

/** Why a document was refused: too many elements, or too long once sanitized. */
export interface HtmlLimitExceeded {
  readonly reason: "elements" | "length"
  readonly limit: number
}

/**
 * FNV-1a (32 bits) of `text`'s UTF-16 code units, continuing from `hash`: a cheap check
 * that two sides hold the same text, kept up to date as text is appended.
 */
export const fnv1a = (text: string, hash = 0x811c9dc5): number => {
  let h = hash
  for (let index = 0; index < text.length; index++) {
    h ^= text.charCodeAt(index)
    h = Math.imul(h, 0x01000193) >>> 0
  }
  return h
}

/** A task's answer. */
export type HtmlTaskResult<Op extends HtmlTask["op"] = HtmlTask["op"]> =
  | { readonly ok: true; readonly value: HtmlTaskValue[Op] }
  | { readonly ok: false; readonly refused: HtmlLimitExceeded }

type Parse5Node = DefaultTreeAdapterMap["childNode"]
type Parse5Element = DefaultTreeAdapterMap["element"]

/** A document with more elements than its limit: the parser stopped. */
class TooManyElements extends Error {}

/**
 * parse5's tree adapter, counting the elements the parser makes: past `max` the parse
 * stops (a throw through parse5), so a document of a million elements never becomes a
 * tree of a million elements — the memory and time a parse takes stay bounded.
 */
const countingAdapter = (max: number): TreeAdapter<DefaultTreeAdapterMap> => {
  // The parser makes three elements of its own first (the context, a document, a root).
  let made = -3
  return {
    ...defaultTreeAdapter,
    createElement: (tagName, namespaceURI, attrs) => {
      if (++made > max) throw new TooManyElements(`more than ${max} elements`)
      return defaultTreeAdapter.createElement(tagName, namespaceURI, attrs)
    }
  }
}

/** A point where a stream may be cut: the source offset, and the insertion mode there. */
interface Clean {
  readonly offset: number
  readonly mode: InsertionMode
}

/**
 * parse5's parser, noting each point between two tokens where it is back in a state a
 * fresh fragment parser can be put in: nothing open, no formatting element to reopen,
 * no form, no pending table text, the tokenizer reading data. Only there may a stream
 * be cut and the rest parsed on its own. Each point is noted under the number of
 * top-level nodes then, the latest one winning: cutting after the first `k` nodes is
 * safe where the parser was clean with exactly `k` (tokens after it that made no node
 * were ignored ones). parse5 exports `Parser` (marked internal); the fields read here
 * are pinned by its version and the stream's property tests.
 */
class CheckpointParser extends Parser<DefaultTreeAdapterMap> {
  /** Clean points by the number of top-level nodes there. */
  readonly clean = new Map<number, Clean>()

  private note(): void {
    if (
      this.openElements.stackTop !== 0 ||
      this.activeFormattingElements.newest !== null ||
      this.formElement !== null ||
      this.pendingCharacterTokens.length > 0 ||
      this.skipNextNewLine ||
      this.tokenizer.state !== TokenizerMode.DATA ||
      this.tmplInsertionModeStack.length !== 1 ||
      this.tmplInsertionModeStack[0] !== this.insertionMode
    ) return
    // The token's last character (a `>`) is the current one.
    const offset = this.tokenizer.preprocessor.offset + 1
    this.clean.set((this.openElements.items[0] as Parse5Element).childNodes.length, { offset, mode: this.insertionMode })
  }

  override onStartTag(token: Token.TagToken): void {
    super.onStartTag(token)
    this.note()
  }

  override onEndTag(token: Token.TagToken): void {
    super.onEndTag(token)
    this.note()
  }

  override onComment(token: Token.CommentToken): void {
    super.onComment(token)
    this.note()
  }
}

/**
 * A fragment parser (a template's content, as `parseFragment` uses) put in `start`'s
 * state, making at most `maxElements` elements.
 */
const parserAt = (start: StreamStart, maxElements: number): CheckpointParser => {
  const parser = CheckpointParser.getFragmentParser<DefaultTreeAdapterMap>(null, { treeAdapter: countingAdapter(maxElements) }) as CheckpointParser
  if (start !== undefined) {
    parser.insertionMode = start as InsertionMode
    parser.tmplInsertionModeStack = [start as InsertionMode]
  }
  return parser
}

/** The top-level nodes a parser built (children of its fake root). */
const topLevelOf = (parser: Parser<DefaultTreeAdapterMap>): Array<Parse5Node> => (parser.openElements.items[0] as Parse5Element).childNodes

/**
 * How many of the top-level nodes are final: those before the one holding the open
 * elements (the parser adds only there, and after it: fostered content, reopened
 * formatting elements, a new node), or before the last when nothing is open (text there
 * grows). While that node is a table, what does not belong in it goes just before it
 * (text there grows), so the node before it is not final either.
 */
const settledCount = (parser: Parser<DefaultTreeAdapterMap>, nodes: ReadonlyArray<Parse5Node>): number => {
  if (parser.openElements.stackTop === 0) return Math.max(0, nodes.length - 1)
  const root = parser.openElements.items[0]
  // The first open element is not always top-level: `</form>` leaves what is open in a form open.
  let open = parser.openElements.items[1] as Parse5Node
  while (open.parentNode !== null && open.parentNode !== root) open = open.parentNode as Parse5Node
  const index = nodes.lastIndexOf(open)
  if (index === -1) return 0
  return Math.max(0, open.nodeName === "table" ? index - 1 : index)
}

/**
 * Serialized top-level nodes of `tree`: all of them, or (`settled`) those up to its last
 * element. Prose after it may be a sign-off, and an answer part with no element at all
 * may be a lead-in (stage 1 keeps the prose of an answer with no tag). Past `limit`
 * characters in all, {@link SerializedTooLong}.
 */
const piecesOf = (tree: Root, settled: boolean, limit: number): Array<string> => {
  let end = tree.children.length
  if (settled) while (end > 0 && tree.children[end - 1]!.type !== "element") end--
  const pieces: Array<string> = []
  let length = 0
  for (let index = 0; index < end; index++) {
    const piece = serializeHtml({ type: "root", children: [tree.children[index]!] }, limit - length)
    length += piece.length
    pieces.push(piece)
  }
  return pieces
}

/** The pipelines for `allowList`, holding every document to `limits`. */
export const makeHtmlPipelines = (allowList: HtmlAllowList = defaultAllowList, limits: HtmlLimits = defaultHtmlLimits) => {
  // Stage 3 before stage 2: the structure pass then also cleans what the allow-list removed.
  const authored = unified().use(rehypeEnforceAllowList(allowList)).use(rehypeNormalizeStructure).freeze()
  const modelOutput = unified()
    .use(() => stripModelWrapping)
    .use(rehypeEnforceAllowList(allowList))
    .use(rehypeNormalizeStructure)
    // Stage 3 can drop the last elements, leaving prose that was between elements at the
    // edge; stripping again (a scan of the top level only) keeps the result idempotent.
    .use(() => stripModelWrapping)
    .freeze()
  // A streamed answer's first window: its end is not the answer's, so only the lead-in goes.
  const firstWindow = unified()
    .use(() => stripLeadIn)
    .use(rehypeEnforceAllowList(allowList))
    .use(rehypeNormalizeStructure)
    .use(() => stripLeadIn)
    .freeze()

  // The parser counted the elements (countingAdapter): a tree here is within the limit.
  const treeOf = (nodes: ReadonlyArray<Parse5Node>) => nodesToHast(nodes, maxNestingDepth)

  const parseWhole = (html: string): Array<Parse5Node> => {
    const parser = Parser.getFragmentParser<DefaultTreeAdapterMap>(null, { treeAdapter: countingAdapter(limits.maxElements) })
    parser.tokenizer.write(html, true)
    return parser.getFragment().childNodes
  }

  const sanitizeAuthored = (html: string): string => serializeHtml(authored.runSync(treeOf(parseWhole(html))) as Root, limits.maxLength)

  const sanitizeModelOutputTree = (html: string): Root => modelOutput.runSync(treeOf(parseWhole(html))) as Root

  /**
   * One window of a streamed answer. The window's settled top-level nodes are sanitized
   * (stages 3 and 2, and for the answer's first window stage 1's lead-in: only it can
   * hold one; a sign-off is prose after the last element, which is held back anyway). It is cut after them when its output
   * ends with a block element and the parser was clean where their source ends: after a
   * block, the sanitizer trims, merges and unwraps as at the start of a document, and a
   * clean parser reads what follows as a fresh one put in the same mode does.
   */
  const streamRound = (task: TaskOf<"streamRound">): StreamRound => {
    const parser = parserAt(task.start, limits.maxElements)
    parser.tokenizer.write(task.text, false)
    const nodes = topLevelOf(parser)
    const settled = settledCount(parser, nodes)
    if (settled === 0) return { pieces: [], extends: task.sent === 0, cut: undefined }
    const tree = (task.start === undefined ? firstWindow : authored).runSync(treeOf(nodes.slice(0, settled))) as Root
    // What went out of this window, and what more the answer has room for.
    const all = piecesOf(tree, true, task.sent + task.room)
    const lastOut = tree.children.at(-1)
    const clean = parser.clean.get(settled)
    const cut = lastOut !== undefined && isBlock(lastOut) && clean !== undefined ? { offset: clean.offset, start: clean.mode } : undefined
    // Only what did not go out travels back.
    const pieces: Array<string> = []
    let offset = 0
    let hash = 0x811c9dc5
    for (const piece of all) {
      const end = offset + piece.length
      if (end <= task.sent) hash = fnv1a(piece, hash)
      else if (offset >= task.sent) pieces.push(piece)
      else {
        hash = fnv1a(piece.slice(0, task.sent - offset), hash)
        pieces.push(piece.slice(task.sent - offset))
      }
      offset = end
    }
    return { pieces, extends: offset >= task.sent && hash === task.sentHash, cut }
  }

  const run = <Op extends HtmlTask["op"]>(task: TaskOf<Op>): HtmlTaskResult<Op> => {
    const any = task as HtmlTask
    try {
      const value = any.op === "authored" ? sanitizeAuthored(any.html)
        : any.op === "modelOutput" ? serializeHtml(sanitizeModelOutputTree(any.html), limits.maxLength)
        : any.op === "modelOutputPieces" ? piecesOf(sanitizeModelOutputTree(any.html), false, limits.maxLength)
        : streamRound(any)
      return { ok: true, value: value as HtmlTaskValue[Op] }
    } catch (error) {
      if (error instanceof TooManyElements) return { ok: false, refused: { reason: "elements", limit: limits.maxElements } }
      if (error instanceof SerializedTooLong) return { ok: false, refused: { reason: "length", limit: limits.maxLength } }
      throw error
    }
  }

  return { allowList, limits, run }
}

/** The pipelines {@link makeHtmlPipelines} builds. */
export type HtmlPipelines = ReturnType<typeof makeHtmlPipelines>
