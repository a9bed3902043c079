/**
 * The parser of the sanitization pipeline: parse5 (the WHATWG HTML parsing algorithm,
 * as browsers run it) in fragment mode, so `html`, `head` and `body` wrappers never
 * appear. Elements nested deeper than {@link maxNestingDepth} are replaced by their
 * text, as browsers cap nesting too: the tree walks that follow are recursive, and
 * 10,000-deep input must finish rather than overflow the stack.
 *
 * @since 0.1.0
 */
import { fromParse5 } from "hast-util-from-parse5"
import type { Root } from "hast"
import { type DefaultTreeAdapterMap, parseFragment } from "parse5"
import type { Plugin, Processor } from "unified"

/** Deepest element nesting kept. */
export const maxNestingDepth = 256

type Parse5Node = DefaultTreeAdapterMap["childNode"] | DefaultTreeAdapterMap["documentFragment"]
type Parse5Parent = DefaultTreeAdapterMap["parentNode"]

const textOf = (node: Parse5Parent): string => {
  let text = ""
  const stack: Array<Parse5Node> = [...node.childNodes].reverse()
  while (stack.length > 0) {
    const current = stack.pop()!
    if (current.nodeName === "#text") text += (current as DefaultTreeAdapterMap["textNode"]).value
    else if ("childNodes" in current) stack.push(...[...current.childNodes].reverse())
  }
  return text
}

/** Replaces the content of every element at `maxDepth` by its text, without recursion. */
const capDepth = (fragment: DefaultTreeAdapterMap["documentFragment"], maxDepth: number): void => {
  const stack: Array<[Parse5Parent, number]> = [[fragment, 0]]
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!
    if (depth >= maxDepth) {
      const value = textOf(node)
      node.childNodes = value === "" ? [] : [{ nodeName: "#text", value, parentNode: node } as DefaultTreeAdapterMap["textNode"]]
      continue
    }
    for (const child of node.childNodes) {
      if ("childNodes" in child) stack.push([child, depth + 1])
    }
  }
}

/** The unified plugin: sets the processor's parser. */
export const rehypeParseFragment: Plugin<[], string, Root> = function(this: Processor) {
  this.parser = (document: string) => {
    const fragment = parseFragment(document)
    capDepth(fragment, maxNestingDepth)
    return fromParse5(fragment) as Root
  }
}
