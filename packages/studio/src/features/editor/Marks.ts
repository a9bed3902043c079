/**
 * Inline marks: one per inline tag of the allow-list. Tiptap's own where it has one (their
 * commands, shortcuts and input rules stay), reading only the tag (no `style` such as
 * `font-weight: bold`, and no unlisted tag such as `del`: the sanitizer keeps neither) and
 * writing the tag it read: `b` and `strong`, `i` and `em` are kept apart, as the sanitizer
 * keeps them (`toggleBold` makes `strong`, `toggleItalic` makes `em`).
 *
 * Marks nest in one order, the order of {@link courseMarks}: wider phrases outside
 * (links, classed spans, fine print, quotations), emphasis inside them, code and keys
 * innermost. HTML nested the other way round is written in this order.
 */
import { type AnyExtension, Mark } from "@tiptap/core"
import Bold from "@tiptap/extension-bold"
import Code from "@tiptap/extension-code"
import Highlight from "@tiptap/extension-highlight"
import Italic from "@tiptap/extension-italic"
import Link from "@tiptap/extension-link"
import Strike from "@tiptap/extension-strike"
import Underline from "@tiptap/extension-underline"
import type { AllowListRules } from "./allowListRules.ts"
import { keepsUrl, keptValue, tagAttributes } from "./allowListRules.ts"

/** A mark of its own for `tag`, with the tag's allowed attributes. */
const tagMark = (rules: AllowListRules, name: string, tag: string) =>
  Mark.create({
    name,
    addAttributes: () => tagAttributes(rules, tag),
    parseHTML: () => [{ tag }],
    renderHTML: ({ HTMLAttributes }) => [tag, HTMLAttributes, 0]
  })

/** Tiptap's mark `base`, reading and writing `tag` only. */
const fromTiptap = (base: Mark, rules: AllowListRules, tag: string) =>
  base.extend({
    addAttributes: () => tagAttributes(rules, tag),
    parseHTML: () => [{ tag }],
    renderHTML: ({ HTMLAttributes }) => [tag, HTMLAttributes, 0]
  })

/**
 * Tiptap's mark `base` for two tags of one meaning (`strong` and `b`): the tag read is
 * kept, `tags[0]` for a new mark. Attributes are those of `tags[0]`.
 */
const twoTags = (base: Mark, rules: AllowListRules, tags: readonly [string, string]) =>
  base.extend({
    addAttributes: () => ({
      tag: { default: tags[0], rendered: false, parseHTML: (element) => element.tagName.toLowerCase() },
      ...tagAttributes(rules, tags[0])
    }),
    parseHTML: () => tags.map((tag) => ({ tag })),
    renderHTML: ({ mark, HTMLAttributes }) => [String(mark.attrs.tag), HTMLAttributes, 0]
  })

/**
 * Links, with or without `href` (the sanitizer keeps `<a>` whose URL it removed). A new
 * window gets `rel="noopener noreferrer"`, replacing any other, as the sanitizer writes it.
 * Only URLs the sanitizer keeps can be set (`isAllowedUri`); typed addresses link with
 * `https`.
 */
export const courseLink = (rules: AllowListRules) => {
  const href = rules.attributesOf("a").find((attribute) => attribute.name === "href")
  const protocols = href?.protocols ?? []
  return Link.extend({
    addAttributes: () => {
      const attributes = tagAttributes(rules, "a")
      if (!("rel" in attributes)) return attributes
      return {
        ...attributes,
        rel: {
          ...attributes.rel,
          renderHTML: (values: Record<string, unknown>) =>
            values.target === "_blank" ? { rel: "noopener noreferrer" } : typeof values.rel === "string" ? { rel: values.rel } : {}
        }
      }
    },
    parseHTML: () => [{ tag: "a" }],
    renderHTML: ({ HTMLAttributes }) => ["a", HTMLAttributes, 0]
  }).configure({
    defaultProtocol: "https",
    isAllowedUri: (url) => protocols.length === 0 || keepsUrl(protocols, url)
  })
}

/** A `span` kept for its classes: one without any allowed attribute is not a mark (the sanitizer unwraps it). */
export const classedSpan = (rules: AllowListRules) =>
  Mark.create({
    name: "span",
    addAttributes: () => tagAttributes(rules, "span"),
    parseHTML: () => [{
      tag: "span",
      getAttrs: (element) => rules.attributesOf("span").some((attribute) => keptValue(attribute, element) !== null) && null
    }],
    renderHTML: ({ HTMLAttributes }) => ["span", HTMLAttributes, 0]
  })

/** Every mark, in the order they nest (the first outermost). */
export const courseMarks = (rules: AllowListRules): Array<AnyExtension> => [
  // Tiptap gives links priority: they are always outermost.
  courseLink(rules),
  classedSpan(rules),
  tagMark(rules, "small", "small"),
  tagMark(rules, "quote", "q"),
  tagMark(rules, "citation", "cite"),
  fromTiptap(Highlight, rules, "mark"),
  twoTags(Bold, rules, ["strong", "b"]),
  twoTags(Italic, rules, ["em", "i"]),
  fromTiptap(Underline, rules, "u"),
  fromTiptap(Strike, rules, "s"),
  tagMark(rules, "abbreviation", "abbr"),
  tagMark(rules, "subscript", "sub"),
  tagMark(rules, "superscript", "sup"),
  // Tiptap's code excludes every other mark; HTML (and the sanitizer) let code be a link or bold.
  fromTiptap(Code, rules, "code").extend({ excludes: "code" }),
  tagMark(rules, "keyboard", "kbd")
]
