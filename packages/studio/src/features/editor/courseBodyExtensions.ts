/**
 * The rich-text editor's schema for course and lesson bodies: one Tiptap extension per
 * content kind of the sanitizer's allow-list, so that the editor keeps what the sanitizer
 * keeps and offers nothing it removes. Opening a stored body and saving it unchanged
 * changes nothing once sanitized (the Studio's tests check it over the sanitizer's benign
 * corpus).
 *
 * | Allow-list | Extension (node or mark name) |
 * |---|---|
 * | `p` | `paragraph` (Tiptap's), and `implicitParagraph`: inline content straight in a container, written without `<p>` |
 * | `h1`–`h6` | `heading` (Tiptap's, all six levels) |
 * | `blockquote` (`cite`) | `blockquote` (Tiptap's) |
 * | `pre`, `code` in it | `codeBlock` (Tiptap's; `<pre>` alone stays alone) |
 * | `hr`, `br` | `horizontalRule`, `hardBreak` (Tiptap's) |
 * | `div` | `division` |
 * | `ul`, `ol` (`start`, `reversed`), `li` | `bulletList`, `orderedList`, `listItem` (Tiptap's) |
 * | `dl`, `dt`, `dd` | `descriptionList`, `descriptionTerm`, `descriptionDetails` |
 * | `table`, `caption`, `thead`, `tbody`, `tfoot`, `tr`, `th` (`colspan`, `rowspan`, `scope`), `td` (`colspan`, `rowspan`) | `table`, `tableCaption`, `tableHead`, `tableBody`, `tableFoot`, `tableRow`, `tableHeader`, `tableCell` |
 * | `details` (`open`), `summary` | `details`, `detailsSummary` |
 * | `figure`, `figcaption` | `figure`, `figureCaption` |
 * | `img` (`src`, `alt`, `title`, `width`, `height`) | `image` (Tiptap's, inline), `blockImage` (at the top level) |
 * | `embeds` (the `iframe` players) | `videoEmbed` (inline), `blockVideoEmbed` (at the top level) |
 * | `a` (`href`, `title`, `target`, `rel`) | `link` (Tiptap's) |
 * | `span` | `span` |
 * | `strong`/`b`, `em`/`i`, `u`, `s`, `mark`, `code` | `bold`, `italic`, `underline`, `strike`, `highlight`, `code` (Tiptap's) |
 * | `small`, `q` (`cite`), `cite`, `abbr` (`title`), `sub`, `sup`, `kbd` | `small`, `quote`, `citation`, `abbreviation`, `subscript`, `superscript`, `keyboard` |
 * | `*` (`class`) | the allowed classes, on every node and mark that writes an element |
 * | `dropWithContent` | skipped by the parser with everything inside them |
 *
 * Attributes are read as the sanitizer keeps them (classes it keeps, URLs of schemes it
 * keeps, `target="_blank"` only, `rel` tokens it keeps) and written in the allow-list's
 * order, `class` first.
 */
import { defaultAllowList, type HtmlAllowList } from "@coursekit/core"
import { Editor, type Extensions } from "@tiptap/core"
import { ListKeymap } from "@tiptap/extension-list"
import Text from "@tiptap/extension-text"
import { Dropcursor, Gapcursor, UndoRedo } from "@tiptap/extensions"
import { allowListRules } from "./allowListRules.ts"
import {
  courseBlockquote,
  courseCodeBlock,
  courseDocument,
  courseHardBreak,
  courseHeading,
  courseHorizontalRule,
  courseParagraph,
  division
} from "./Blocks.ts"
import { details, detailsSummary } from "./Details.ts"
import { ImplicitParagraph } from "./ImplicitParagraph.ts"
import { courseBulletList, courseListItem, courseOrderedList, descriptionDetails, descriptionList, descriptionTerm } from "./Lists.ts"
import { courseMarks } from "./Marks.ts"
import { blockImage, blockVideoEmbed, courseImage, figure, figureCaption, videoEmbed } from "./Media.ts"
import { courseTable, tableParts } from "./Tables.ts"

/**
 * The extensions of an editor of course HTML, for `allowList` (the sanitizer's; the
 * default one unless the server runs an extended one). Classes, attributes, URL schemes
 * and players follow the allow-list given; a tag it adds needs an extension of its own.
 * Besides the content: undo and redo, the drop cursor, the gap cursor and list keys.
 *
 * Create the editor with `injectCSS: false` and import `editor.css` instead: the Studio's
 * Content-Security-Policy allows no inline `<style>`. Do not set `textDirection` (it adds
 * `dir`, which the sanitizer removes).
 */
export const courseBodyExtensions = (allowList: HtmlAllowList = defaultAllowList): Extensions => {
  const rules = allowListRules(allowList)
  return [
    courseDocument(rules),
    Text,
    // Paragraph first among the blocks: what a new document, and loose inline content at its top level, are made of.
    courseParagraph(rules),
    ImplicitParagraph,
    courseHeading(rules),
    courseBlockquote(rules),
    courseCodeBlock(rules),
    courseHorizontalRule(rules),
    courseHardBreak(rules),
    division(rules),
    courseBulletList(rules),
    courseOrderedList(rules),
    courseListItem(rules),
    ListKeymap,
    descriptionList(rules),
    descriptionTerm(rules),
    descriptionDetails(rules),
    courseTable(rules),
    ...tableParts(rules),
    details(rules),
    detailsSummary(rules),
    figure(rules),
    figureCaption(rules),
    courseImage(rules),
    blockImage(rules),
    videoEmbed(rules),
    blockVideoEmbed(rules),
    ...courseMarks(rules),
    UndoRedo,
    Dropcursor,
    Gapcursor
  ]
}

/**
 * `html` opened in the editor and saved without a change: the HTML the Studio would send.
 * Needs a DOM (a browser, or jsdom in tests). Sanitized, it is `html` sanitized, for every
 * document of the sanitizer's benign corpus.
 */
export const roundTrip = (html: string, allowList: HtmlAllowList = defaultAllowList): string => {
  // Headless (no view), and no <style> element: the Studio's CSP refuses inline styles (editor.css has the rules).
  const editor = new Editor({ element: null, extensions: courseBodyExtensions(allowList), content: html, injectCSS: false })
  try {
    return editor.getHTML()
  } finally {
    editor.destroy()
  }
}
