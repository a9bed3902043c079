/**
 * The document and its plain blocks: paragraphs, headings, quotations, preformatted code,
 * thematic breaks, line breaks and `div` boxes. Tiptap's own extensions where they exist
 * (their commands, shortcuts and input rules stay), each reading and writing exactly the
 * attributes the allow-list keeps on its tag, and nothing else (no styles, no `language-`
 * class, no options' default attributes).
 */
import { Node } from "@tiptap/core"
import Blockquote from "@tiptap/extension-blockquote"
import CodeBlock from "@tiptap/extension-code-block"
import Document from "@tiptap/extension-document"
import HardBreak from "@tiptap/extension-hard-break"
import Heading from "@tiptap/extension-heading"
import HorizontalRule from "@tiptap/extension-horizontal-rule"
import Paragraph from "@tiptap/extension-paragraph"
import type { AllowListRules } from "./allowListRules.ts"
import { tagAttributes } from "./allowListRules.ts"
import { flowContent, implicitParagraphMarker } from "./ImplicitParagraph.ts"

/**
 * The document. It also holds the rules that make the parser skip, with everything inside
 * them, the elements the sanitizer drops with their content (`script`, `svg`, `form`, a
 * refused `iframe`…): otherwise the parser would read what is inside them, as it does for
 * any element it does not know.
 */
export const courseDocument = (rules: AllowListRules) =>
  Document.extend({
    parseHTML: () => rules.dropWithContent.map((tag) => ({ tag, ignore: true }))
  })

export const courseParagraph = (rules: AllowListRules) =>
  Paragraph.extend({
    addAttributes: () => tagAttributes(rules, "p"),
    renderHTML: ({ HTMLAttributes }) => ["p", HTMLAttributes, 0]
  })

export const courseHeading = (rules: AllowListRules) =>
  Heading.extend({
    addAttributes: () => ({
      level: { default: 1, rendered: false },
      // h1…h6 keep the same attributes (`*`'s).
      ...tagAttributes(rules, "h1")
    }),
    renderHTML: ({ node, HTMLAttributes }) => [`h${node.attrs.level as number}`, HTMLAttributes, 0]
  }).configure({ levels: [1, 2, 3, 4, 5, 6] })

export const courseBlockquote = (rules: AllowListRules) =>
  Blockquote.extend({
    content: flowContent,
    addAttributes: () => tagAttributes(rules, "blockquote"),
    parseHTML: () => [{ tag: "blockquote" }],
    renderHTML: ({ HTMLAttributes }) => ["blockquote", HTMLAttributes, 0]
  })

/**
 * Preformatted text: `<pre><code>…</code></pre>`, or `<pre>…</pre>` when it was written
 * without `code` (`inCode`). Its text only: marks inside `pre` are not kept.
 */
export const courseCodeBlock = (rules: AllowListRules) =>
  CodeBlock.extend({
    addAttributes: () => ({
      ...tagAttributes(rules, "pre"),
      inCode: {
        default: true,
        rendered: false,
        parseHTML: (element) => element.childNodes.length === 1 && element.firstElementChild?.tagName === "CODE"
      }
    }),
    renderHTML: ({ node, HTMLAttributes }) => node.attrs.inCode === true ? ["pre", HTMLAttributes, ["code", 0]] : ["pre", HTMLAttributes, 0]
  })

export const courseHorizontalRule = (rules: AllowListRules) =>
  HorizontalRule.extend({
    addAttributes: () => tagAttributes(rules, "hr"),
    parseHTML: () => [{ tag: "hr" }],
    renderHTML: ({ HTMLAttributes }) => ["hr", HTMLAttributes]
  })

export const courseHardBreak = (rules: AllowListRules) =>
  HardBreak.extend({
    addAttributes: () => tagAttributes(rules, "br"),
    renderHTML: ({ HTMLAttributes }) => ["br", HTMLAttributes]
  })

/** A `div`: a box for layout classes (kept with or without them, as the sanitizer keeps it). */
export const division = (rules: AllowListRules) =>
  Node.create({
    name: "division",
    group: "block",
    content: flowContent,
    defining: true,
    addAttributes: () => tagAttributes(rules, "div"),
    // Not the editing view's own element of an implicit paragraph, should the view read it back.
    parseHTML: () => [{ tag: "div", getAttrs: (element) => !element.hasAttribute(implicitParagraphMarker) && null }],
    renderHTML: ({ HTMLAttributes }) => ["div", HTMLAttributes, 0]
  })
