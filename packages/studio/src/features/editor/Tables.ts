/**
 * Tables as HTML writes them: a caption, a head, bodies and a foot, rows, header and data
 * cells with their spans and scope. Tiptap's table (`@tiptap/extension-table`, on
 * prosemirror-tables) has rows straight in the table and writes one `tbody` with a
 * `colgroup` and a `style`: a `thead`, `tfoot` or `caption` would not survive it, and
 * `colspan="1"` would be added to every cell. So these are nodes of their own, one per
 * part; a cell holds flow content (`<td>1.2 ms</td>` stays as it is). Spans are kept as
 * written, absent when absent.
 */
import { Node } from "@tiptap/core"
import type { AllowListRules } from "./allowListRules.ts"
import { tagAttributes } from "./allowListRules.ts"
import { flowContent } from "./ImplicitParagraph.ts"

/** A node for one part of a table: `tag` with its allowed attributes. */
const tablePart = (rules: AllowListRules, name: string, tag: string, content: string) =>
  Node.create({
    name,
    content,
    isolating: true,
    addAttributes: () => tagAttributes(rules, tag),
    parseHTML: () => [{ tag }],
    renderHTML: ({ HTMLAttributes }) => [tag, HTMLAttributes, 0]
  })

export const courseTable = (rules: AllowListRules) =>
  Node.create({
    name: "table",
    group: "block",
    // The HTML parser puts rows in a `tbody` when none is written, and text elsewhere out of the table.
    content: "tableCaption? tableHead? tableBody* tableFoot?",
    isolating: true,
    addAttributes: () => tagAttributes(rules, "table"),
    parseHTML: () => [{ tag: "table" }],
    renderHTML: ({ HTMLAttributes }) => ["table", HTMLAttributes, 0]
  })

/** The table parts below `table`, each its own node. */
export const tableParts = (rules: AllowListRules) => [
  tablePart(rules, "tableCaption", "caption", "inline*"),
  tablePart(rules, "tableHead", "thead", "tableRow+"),
  tablePart(rules, "tableBody", "tbody", "tableRow+"),
  tablePart(rules, "tableFoot", "tfoot", "tableRow+"),
  tablePart(rules, "tableRow", "tr", "(tableHeader | tableCell)+"),
  tablePart(rules, "tableHeader", "th", flowContent),
  tablePart(rules, "tableCell", "td", flowContent)
]
