/**
 * Stage 1 of the sanitization pipeline, for model output only: removes what a model
 * wraps around its HTML. A code fence around the whole document (```html … ```, any
 * language tag, closing fence optional) and lead-in or sign-off prose ("Sure! Here is
 * the lesson:", "Let me know if…") are text at the top level, before the first tag or
 * after the last one; those text nodes are removed. Nothing inside or between elements
 * is touched, and output with no tag at all is kept as it is.
 *
 * @since 0.1.0
 */
import type { Root } from "hast"

/** Strips `tree` in place (the plugin's transform). */
export const stripModelWrapping = (tree: Root): void => {
  const first = tree.children.findIndex((node) => node.type === "element")
  if (first === -1) return
  let last = tree.children.length - 1
  while (tree.children[last]!.type !== "element") last--
  tree.children = tree.children.filter((node, index) => node.type !== "text" || (index > first && index < last))
}

/**
 * Only the lead-in: the text before the first tag. For the first window of a streamed
 * answer, whose end is not the answer's end (prose there may be between elements).
 */
export const stripLeadIn = (tree: Root): void => {
  const first = tree.children.findIndex((node) => node.type === "element")
  if (first <= 0) return
  tree.children = tree.children.filter((node, index) => node.type !== "text" || index > first)
}

/** The unified plugin. */
export const rehypeStripModelWrapping = () => stripModelWrapping
