/**
 * The parser of the sanitization pipeline: parse5 (the WHATWG HTML parsing algorithm,
 * as browsers run it) in fragment mode, so `html`, `head` and `body` wrappers never
 * appear. Elements nested deeper than {@link maxNestingDepth} are replaced by their
 * text, as browsers cap nesting too: the tree walks that follow are recursive, and
 * 10,000-deep input must finish rather than overflow the stack.
 *
 * @since 0.1.0
 */
import type { Root } from "hast"
import { parseFragment } from "parse5"
import type { Plugin, Processor } from "unified"
import { fragmentToHast } from "./parse5ToHast.ts"

/** Deepest element nesting kept. */
export const maxNestingDepth = 256

/** The unified plugin: sets the processor's parser. */
export const rehypeParseFragment: Plugin<[], string, Root> = function(this: Processor) {
  this.parser = (document: string) => {
    return fragmentToHast(parseFragment(document), maxNestingDepth)
  }
}
