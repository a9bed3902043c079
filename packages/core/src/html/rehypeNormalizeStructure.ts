/**
 * Stage 2 of the sanitization pipeline: one recursive walk that removes comments and
 * doctypes, unwraps attribute-less `span`s and an inline element nested directly in the
 * same element (`<b><b>x</b></b>`), removes elements left empty (keeping `img`, `br`,
 * `hr`, an embed's `iframe`, table cells and anything with content), unwraps an `li` or
 * `a` nested where the HTML parser would have closed the outer one, merges adjacent
 * text, and normalizes whitespace (HTML's: space, tab, newlines, form feed — not
 * `&nbsp;`, which is content): runs collapse to one space, and whitespace at the edges
 * of blocks and between blocks goes; inside `pre`, `code`, `kbd` and `samp` nothing
 * changes but the newlines that start a `pre` (the parser drops the first anyway, so
 * they cannot survive a round trip).
 * `html`, `head` and `body` wrappers never appear: documents are parsed as fragments.
 *
 * @since 0.1.0
 */
import type { Element, ElementContent, Root, RootContent, Text } from "hast"

// An iframe here is an embed the allow-list kept, with no content by design.
const keptWhenEmpty = new Set(["img", "br", "hr", "td", "th", "col", "wbr", "iframe"])
const unwrappedWhenNested = new Set(["b", "strong", "i", "em", "u", "s", "mark", "small", "sub", "sup", "code", "kbd"])
const preformatted = new Set(["pre", "code", "kbd", "samp"])
const inlineTags = new Set([
  "a",
  "abbr",
  "b",
  "br",
  "cite",
  "code",
  "em",
  "i",
  "iframe",
  "img",
  "kbd",
  "mark",
  "q",
  "s",
  "samp",
  "small",
  "span",
  "strong",
  "sub",
  "sup",
  "u",
  "wbr"
])

/** Whether `node` is a block: an element outside the inline tags. */
export const isBlock = (node: RootContent | ElementContent | undefined) =>
  node !== undefined && node.type === "element" && !inlineTags.has(node.tagName)

const hasProperties = (element: Element) => {
  for (const _ in element.properties) return true
  return false
}

type Child = RootContent | ElementContent

/** What the HTML parser would close on seeing another `li` or `a`. */
interface Context {
  /** The nearest of `li`, `ul`, `ol`, `menu` above, if any. */
  readonly list: string | undefined
  readonly inAnchor: boolean
}

const listTags = new Set(["li", "ul", "ol", "menu"])

// HTML's whitespace (ASCII only): a non-breaking space is content, as it is to browsers.
const whitespaceRun = /[ \t\n\f\r]+/g
const needsCollapse = /[\t\n\f\r]|  /
const isWhitespaceCode = (code: number) => code === 32 || code === 9 || code === 10 || code === 12 || code === 13
const isBlank = (value: string) => {
  for (let index = 0; index < value.length; index++) {
    if (!isWhitespaceCode(value.charCodeAt(index))) return false
  }
  return true
}

/** Where normalized children are written: a new array, or the one being read. */
interface Buffer {
  readonly items: Array<Child>
  size: number
}

/** Appends `text`, merging it with a text node already last in `buffer`. */
const pushText = (buffer: Buffer, text: Text): void => {
  const last = buffer.items[buffer.size - 1]
  if (buffer.size > 0 && last?.type === "text") buffer.items[buffer.size - 1] = { type: "text", value: last.value + text.value }
  else buffer.items[buffer.size++] = text
}

/**
 * Whether `child` is replaced by its children. The parser closes an open li when another
 * starts and an open a when another starts, so such nesting (left behind when a table or
 * template between them is removed) would be rearranged by the next parse: the inner
 * one is unwrapped instead.
 */
const unwraps = (child: Element, parentTag: string | undefined, context: Context): boolean => {
  const tag = child.tagName
  return (tag === "span" && !hasProperties(child)) ||
    (parentTag === tag && unwrappedWhenNested.has(tag) && !hasProperties(child)) ||
    (tag === "li" && context.list === "li") ||
    (tag === "a" && context.inAnchor)
}

/**
 * Appends the normalized form of `children` (of a parent named `parentTag`, undefined
 * for the root) to `out`. An unwrapped element's children are appended in its place,
 * against the same parent (<i><span><i>x</i></span></i> → <i>x</i>), so one flat list
 * per kept element is built, with adjacent text merged as it goes.
 */
const collect = (
  out: Buffer,
  children: ReadonlyArray<Child>,
  parentTag: string | undefined,
  inPre: boolean,
  context: Context
): void => {
  for (let index = 0; index < children.length; index++) {
    const child = children[index]!
    if (child.type === "text") {
      pushText(out, child)
      continue
    }
    if (child.type !== "element") continue // comments, doctypes
    if (unwraps(child, parentTag, context)) {
      collect(out, child.children, parentTag, inPre, context)
      continue
    }
    const tag = child.tagName
    const childContext: Context = listTags.has(tag) || tag === "a"
      ? { list: listTags.has(tag) ? tag : context.list, inAnchor: context.inAnchor || tag === "a" }
      : context
    const childPre = inPre || preformatted.has(tag)
    const normalized = normalizeChildren(child.children, tag, childPre, !inlineTags.has(tag), childContext)
    // The HTML parser drops a newline that starts a <pre> and the serializer does not
    // add one back, so leading newlines cannot survive a round trip: drop them here.
    const first = normalized[0]
    if (tag === "pre" && first?.type === "text" && first.value.charCodeAt(0) === 10) {
      const rest = first.value.replace(/^\n+/, "")
      if (rest === "") normalized.shift()
      else normalized[0] = { type: "text", value: rest } satisfies Text
    }
    child.children = normalized as Array<ElementContent>
    if (!keptWhenEmpty.has(tag) && isEmpty(normalized, inPre)) continue
    out.items[out.size++] = child
  }
}

const isEmpty = (children: ReadonlyArray<Child>, inPre: boolean): boolean => {
  for (const node of children) {
    if (node.type !== "text" || inPre || !isBlank(node.value)) return false
  }
  return true
}

/**
 * The normalized children of a kept element. `trimEdges`: whether whitespace at the
 * start and end of the list may go (the children of a block).
 */
const normalizeChildren = (
  children: Array<Child>,
  parentTag: string | undefined,
  inPre: boolean,
  trimEdges: boolean,
  context: Context
): Array<Child> => {
  // Written back into `children` when no child is unwrapped (then nothing is written
  // ahead of what is read); a new array otherwise.
  let inPlace = true
  for (const child of children) {
    if (child.type === "element" && unwraps(child, parentTag, context)) {
      inPlace = false
      break
    }
  }
  const buffer: Buffer = { items: inPlace ? children : [], size: 0 }
  collect(buffer, children, parentTag, inPre, context)
  const nodes = buffer.items
  nodes.length = buffer.size
  if (inPre) return nodes
  // Collapse whitespace runs to one space; trim text at block edges and next to blocks.
  let kept = 0
  for (let index = 0; index < nodes.length; index++) {
    const node = nodes[index]!
    if (node.type !== "text") {
      nodes[kept++] = node
      continue
    }
    const original = node.value
    let value = needsCollapse.test(original) ? original.replace(whitespaceRun, " ") : original
    if ((index === 0 && trimEdges) || isBlock(nodes[index - 1])) value = trimStart(value)
    if ((index === nodes.length - 1 && trimEdges) || isBlock(nodes[index + 1])) value = trimEnd(value)
    if (value === "") continue
    nodes[kept++] = value === original ? node : { type: "text", value } satisfies Text
  }
  nodes.length = kept
  return nodes
}

// After collapsing, a run is at most one space.
const trimStart = (value: string) => (value.charCodeAt(0) === 32 ? value.slice(1) : value)
const trimEnd = (value: string) => (value.charCodeAt(value.length - 1) === 32 ? value.slice(0, -1) : value)

/** Normalizes `tree` in place (the plugin's transform, also run after stage 3). */
export const normalizeTree = (tree: Root): void => {
  tree.children = normalizeChildren(tree.children, undefined, false, true, { list: undefined, inAnchor: false }) as Array<RootContent>
}

/** The unified plugin. */
export const rehypeNormalizeStructure = () => normalizeTree
