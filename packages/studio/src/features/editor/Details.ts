/**
 * Collapsible sections, written as plain `<details><summary>…</summary>…</details>` (with
 * `open=""` when shown expanded at first). `@tiptap/extension-details` writes
 * `data-type` attributes and a `div` around the content, which the sanitizer would keep
 * as a bare `div`: so these nodes are the Studio's own.
 *
 * In the editing view a section is always shown expanded (a closed `details` would hide
 * its content from the author), marked with `data-open` for the stylesheet; `open` stays
 * an attribute of the node (`""` or null, as the sanitizer keeps it).
 */
import { Node } from "@tiptap/core"
import type { AllowListRules } from "./allowListRules.ts"
import { tagAttributes } from "./allowListRules.ts"
import { flowContent } from "./ImplicitParagraph.ts"

export const details = (rules: AllowListRules) =>
  Node.create({
    name: "details",
    group: "block",
    // The content first: loose inline content at the start is content, never taken for a summary.
    content: `${flowContent} | (detailsSummary ${flowContent})`,
    defining: true,
    addAttributes: () => tagAttributes(rules, "details"),
    parseHTML: () => [{ tag: "details" }],
    renderHTML: ({ HTMLAttributes }) => ["details", HTMLAttributes, 0],
    addNodeView: () => ({ node }) => {
      const dom = document.createElement("div")
      dom.className = "course-details"
      dom.dataset.open = String(node.attrs.open !== null)
      return {
        dom,
        contentDOM: dom,
        update: (updated) => {
          if (updated.type !== node.type) return false
          dom.dataset.open = String(updated.attrs.open !== null)
          return true
        }
      }
    }
  })

export const detailsSummary = (rules: AllowListRules) =>
  Node.create({
    name: "detailsSummary",
    content: "inline*",
    defining: true,
    isolating: true,
    addAttributes: () => tagAttributes(rules, "summary"),
    // Only in a details, as the allow-list's `ancestors` keep it; elsewhere its content is kept without it.
    parseHTML: () => [{ tag: "summary", context: "details//" }],
    renderHTML: ({ HTMLAttributes }) => ["summary", HTMLAttributes, 0]
  })
