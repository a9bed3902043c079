/**
 * The text of an HTML fragment as a reader sees it, for search: parsed by parse5 (the
 * parser of the sanitization pipeline), character references decoded, tag names and
 * attribute values left out (not even `alt` or `href`). Elements that break a line or a
 * block (`p`, `li`, `td`, `br`, …) separate words; inline ones (`b`, `a`, `span`, …) do
 * not, so `<b>Cr</b>ème` is one word. The walk is iterative: nesting depth costs nothing.
 *
 * @since 0.2.0
 */
import { type DefaultTreeAdapterMap, parseFragment } from "parse5"

type Parse5Node = DefaultTreeAdapterMap["childNode"] | DefaultTreeAdapterMap["documentFragment"]

/** Phrasing elements: their boundaries are not word boundaries. */
const inline = new Set([
  "a",
  "abbr",
  "b",
  "bdi",
  "bdo",
  "cite",
  "code",
  "data",
  "del",
  "dfn",
  "em",
  "i",
  "ins",
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
  "time",
  "u",
  "var"
])

/** Elements whose content is not text a reader sees (sanitized HTML has none of them). */
const hidden = new Set(["script", "style", "template", "noscript"])

/** The text of `html`, with a space wherever a block or a line break separates words. */
export const htmlText = (html: string): string => {
  const parts: Array<string> = []
  // Children are pushed in reverse so that they pop in document order; a `" "` marker
  // stands for the boundary after a block element.
  const stack: Array<Parse5Node | " "> = [parseFragment(html)]
  while (stack.length > 0) {
    const node = stack.pop()!
    if (node === " ") {
      parts.push(" ")
      continue
    }
    if (node.nodeName === "#text") {
      parts.push((node as DefaultTreeAdapterMap["textNode"]).value)
      continue
    }
    if (!("childNodes" in node) || hidden.has(node.nodeName)) continue
    const block = node.nodeName !== "#document-fragment" && !inline.has(node.nodeName)
    if (block) {
      parts.push(" ")
      stack.push(" ")
    }
    for (let index = node.childNodes.length - 1; index >= 0; index--) stack.push(node.childNodes[index]!)
  }
  return parts.join("")
}
