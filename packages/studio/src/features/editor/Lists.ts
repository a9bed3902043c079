/**
 * Lists: bulleted and numbered (Tiptap's, with their commands and keys), whose items hold
 * flow content — `<li>for</li>` stays tight, `<li><p>…</p><p>…</p></li>` stays loose, a
 * nested list sits after the item's text —, and glossaries (`dl`, `dt`, `dd`), which
 * Tiptap has no extension for.
 */
import { Node } from "@tiptap/core"
import { BulletList, ListItem, OrderedList } from "@tiptap/extension-list"
import type { AllowListRules } from "./allowListRules.ts"
import { tagAttributes } from "./allowListRules.ts"
import { flowContent } from "./ImplicitParagraph.ts"

export const courseBulletList = (rules: AllowListRules) =>
  BulletList.extend({
    addAttributes: () => tagAttributes(rules, "ul"),
    parseHTML: () => [{ tag: "ul" }],
    renderHTML: ({ HTMLAttributes }) => ["ul", HTMLAttributes, 0]
  })

/**
 * A numbered list. `start` is a number as Tiptap's commands expect, written when it is not
 * 1 (so `start="1"` is not written back: it numbers the same).
 */
export const courseOrderedList = (rules: AllowListRules) =>
  OrderedList.extend({
    addAttributes: () => {
      const attributes = tagAttributes(rules, "ol")
      if (!("start" in attributes)) return attributes
      // Replaced in its place: the order of the attributes is the order they are written in.
      return {
        ...attributes,
        start: {
          default: 1,
          parseHTML: (element: HTMLElement) => {
            const value = Number.parseInt(element.getAttribute("start") ?? "", 10)
            return Number.isNaN(value) ? 1 : value
          },
          renderHTML: (values: Record<string, unknown>) => values.start === 1 ? {} : { start: String(values.start) }
        }
      }
    },
    parseHTML: () => [{ tag: "ol" }],
    renderHTML: ({ HTMLAttributes }) => ["ol", HTMLAttributes, 0]
  })

export const courseListItem = (rules: AllowListRules) =>
  ListItem.extend({
    content: flowContent,
    addAttributes: () => tagAttributes(rules, "li"),
    parseHTML: () => [{ tag: "li" }],
    renderHTML: ({ HTMLAttributes }) => ["li", HTMLAttributes, 0]
  })

/** A glossary: terms and their definitions, in any order (as HTML allows). */
export const descriptionList = (rules: AllowListRules) =>
  Node.create({
    name: "descriptionList",
    group: "block",
    content: "(descriptionTerm | descriptionDetails)+",
    addAttributes: () => tagAttributes(rules, "dl"),
    parseHTML: () => [{ tag: "dl" }],
    renderHTML: ({ HTMLAttributes }) => ["dl", HTMLAttributes, 0]
  })

/** A glossary term: inline content. */
export const descriptionTerm = (rules: AllowListRules) =>
  Node.create({
    name: "descriptionTerm",
    content: "inline*",
    defining: true,
    addAttributes: () => tagAttributes(rules, "dt"),
    parseHTML: () => [{ tag: "dt" }],
    renderHTML: ({ HTMLAttributes }) => ["dt", HTMLAttributes, 0]
  })

/** A glossary definition: flow content, like a list item. */
export const descriptionDetails = (rules: AllowListRules) =>
  Node.create({
    name: "descriptionDetails",
    content: flowContent,
    defining: true,
    addAttributes: () => tagAttributes(rules, "dd"),
    parseHTML: () => [{ tag: "dd" }],
    renderHTML: ({ HTMLAttributes }) => ["dd", HTMLAttributes, 0]
  })
