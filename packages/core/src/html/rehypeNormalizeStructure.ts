/**
 * Stage 2 of the sanitization pipeline: one recursive walk that removes comments and
 * doctypes, unwraps attribute-less `span`s and an inline element nested directly in the
 * same element (`<b><b>x</b></b>`), removes elements left empty (keeping `img`, `br`,
 * `hr`, table cells and anything with content), unwraps an `li` or `a` nested where the
HTML parser would have closed the outer one, merges adjacent text, and normalizes
 * whitespace: runs collapse to one space, and whitespace at the edges of blocks and
 * between blocks goes; inside `pre`, `code`, `kbd` and `samp` nothing changes but the
 * newlines that start a `pre` (the parser drops the first anyway, so they cannot survive
 * a round trip).
 * `html`, `head` and `body` wrappers never appear: documents are parsed as fragments.
 *
 * @since 0.1.0
 */
import type { Element, ElementContent, Root, RootContent, Text } from "hast"

const keptWhenEmpty = new Set(["img", "br", "hr", "td", "th", "col", "wbr"])
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

const isBlock = (node: RootContent | ElementContent | undefined) =>
  node !== undefined && node.type === "element" && !inlineTags.has(node.tagName)

const hasProperties = (element: Element) => Object.keys(element.properties).length > 0

type Child = RootContent | ElementContent

/**
 * Normalizes `children` of a parent named `parentTag` (undefined for the root).
 * `trimEdges`: whether whitespace at the start and end of `children` may go (the
 * children of a block); false when they are about to be hoisted into their parent,
 * whose own pass then decides.
 */
/** What the HTML parser would close on seeing another `li` or `a`. */
interface Context {
  /** The nearest of `li`, `ul`, `ol`, `menu` above, if any. */
  readonly list: string | undefined
  readonly inAnchor: boolean
}

const listTags = new Set(["li", "ul", "ol", "menu"])

const normalizeChildren = (
  children: ReadonlyArray<Child>,
  parentTag: string | undefined,
  inPre: boolean,
  trimEdges: boolean,
  context: Context
): Array<Child> => {
  const flat: Array<Child> = []
  for (const child of children) {
    if (child.type === "comment" || child.type === "doctype") continue
    if (child.type !== "element") {
      flat.push(child)
      continue
    }
    // Decided before descending: an unwrapped element's children sit in its parent, so
    // they are normalized against that parent (<i><span><i>x</i></span></i> → <i>x</i>).
    // The parser closes an open li when another starts and an open a when another
    // starts, so such nesting (left behind when a table or template between them is
    // removed) would be rearranged by the next parse: unwrap the inner one instead.
    const unwrap = (child.tagName === "span" && !hasProperties(child)) ||
      (parentTag === child.tagName && unwrappedWhenNested.has(child.tagName) && !hasProperties(child)) ||
      (child.tagName === "li" && context.list === "li") ||
      (child.tagName === "a" && context.inAnchor)
    const childContext: Context = unwrap ? context : {
      list: listTags.has(child.tagName) ? child.tagName : context.list,
      inAnchor: context.inAnchor || child.tagName === "a"
    }
    const childPre = inPre || preformatted.has(child.tagName)
    child.children = normalizeChildren(
      child.children,
      unwrap ? parentTag : child.tagName,
      childPre,
      !unwrap && !inlineTags.has(child.tagName),
      childContext
    ) as Array<ElementContent>
    if (unwrap) {
      flat.push(...child.children)
      continue
    }
    // The HTML parser drops a newline that starts a <pre> and the serializer does not
    // add one back, so leading newlines cannot survive a round trip: drop them here.
    const first = child.children[0]
    if (child.tagName === "pre" && first?.type === "text" && first.value.startsWith("\n")) {
      const rest = first.value.replace(/^\n+/, "")
      if (rest === "") child.children.shift()
      else child.children[0] = { type: "text", value: rest } satisfies Text
    }
    const empty = child.children.every((node) => node.type === "text" && !inPre && node.value.trim() === "")
    if (empty && !keptWhenEmpty.has(child.tagName)) continue
    flat.push(child)
  }
  // Merge adjacent text, then normalize whitespace outside preformatted text.
  const merged: Array<Child> = []
  for (const node of flat) {
    const previous = merged[merged.length - 1]
    if (node.type === "text" && previous?.type === "text") {
      merged[merged.length - 1] = { type: "text", value: previous.value + node.value } satisfies Text
    } else {
      merged.push(node)
    }
  }
  if (inPre) return merged
  const result: Array<Child> = []
  merged.forEach((node, index) => {
    if (node.type !== "text") {
      result.push(node)
      return
    }
    let value = node.value.replace(/\s+/g, " ")
    const atStart = index === 0 && trimEdges
    const atEnd = index === merged.length - 1 && trimEdges
    if (atStart || isBlock(merged[index - 1])) value = value.trimStart()
    if (atEnd || isBlock(merged[index + 1])) value = value.trimEnd()
    if (value !== "") result.push({ type: "text", value } satisfies Text)
  })
  return result
}

/** Normalizes `tree` in place (the plugin's transform, also run after stage 3). */
export const normalizeTree = (tree: Root): void => {
  tree.children = normalizeChildren(tree.children, undefined, false, true, { list: undefined, inAnchor: false }) as Array<RootContent>
}

/** The unified plugin. */
export const rehypeNormalizeStructure = () => normalizeTree
