/**
 * Images, figures and video players.
 *
 * An image or a player is inline wherever HTML has it inline (in a paragraph, a list item,
 * a cell, a figure, where it sits in an implicit paragraph) and a block of its own when it
 * stands at the top level of the document: each has a block twin, parsed only there, so
 * that a top-level `<img>` or player is not saved inside a new `<p>`.
 *
 * A player is an `iframe` the sanitizer keeps: the editor asks the sanitizer's own check
 * (`makeEmbedAttributes`) whether it keeps one and what it writes for it, keeps only the
 * `src` it writes, and writes the player exactly as the sanitizer does. An `iframe` it
 * refuses (another host, a `srcdoc`, inside a link) is dropped with its content, as the
 * sanitizer drops it.
 */
import { Node } from "@tiptap/core"
import Image from "@tiptap/extension-image"
import type { NodeType } from "@tiptap/pm/model"
import { type EditorState, Plugin, type Transaction } from "@tiptap/pm/state"
import { AddMarkStep, type Step } from "@tiptap/pm/transform"
import type { AllowListRules } from "./allowListRules.ts"
import { tagAttributes } from "./allowListRules.ts"
import { flowContent } from "./ImplicitParagraph.ts"

/** Parsed at the top level of the document only: a block twin's rule, tried before its inline twin's. */
const topLevel = { context: "doc/", priority: 70 } as const

export const courseImage = (rules: AllowListRules) =>
  Image.extend({
    addAttributes: () => tagAttributes(rules, "img"),
    parseHTML: () => [{ tag: "img" }],
    renderHTML: ({ HTMLAttributes }) => ["img", HTMLAttributes]
  }).configure({ inline: true })

/** An image standing at the top level of the document (`setImage` inserts the inline one). */
export const blockImage = (rules: AllowListRules) =>
  Image.extend({
    name: "blockImage",
    addCommands: () => ({}),
    addInputRules: () => [],
    addAttributes: () => tagAttributes(rules, "img"),
    parseHTML: () => [{ tag: "img", ...topLevel }],
    renderHTML: ({ HTMLAttributes }) => ["img", HTMLAttributes]
  }).configure({ inline: false })

/** A video player (see the module's description). */
const embed = (rules: AllowListRules, name: string, inline: boolean) =>
  Node.create({
    name,
    inline,
    group: inline ? "inline" : "block",
    atom: true,
    draggable: true,
    addAttributes: () => ({
      src: { default: null, rendered: false, parseHTML: (element) => rules.embed(element.getAttribute("src") ?? "")?.src ?? null }
    }),
    parseHTML: () => [{
      tag: "iframe",
      // Before the rule that drops every other iframe with its content.
      priority: 60,
      ...(inline ? {} : topLevel),
      getAttrs: (element) =>
        !element.hasAttribute("srcdoc") && element.closest("a") === null && rules.embed(element.getAttribute("src") ?? "") !== undefined && null
    }],
    renderHTML: ({ node }) => ["iframe", { ...rules.embed(String(node.attrs.src)) }],
    // A player is never inside a link (the sanitizer drops one there): a link set over one leaves it out.
    addProseMirrorPlugins() {
      const type = this.type
      return inline ? [new Plugin({ appendTransaction: (transactions, _before, state) => unlinkPlayers(type, transactions, state) })] : []
    }
  })

/** A transaction taking every link off the players of `type`, when `transactions` set a link; else none. */
const unlinkPlayers = (type: NodeType, transactions: ReadonlyArray<Transaction>, state: EditorState): Transaction | null => {
  const link = state.schema.marks.link
  const linking = (step: Step) => step instanceof AddMarkStep && step.mark.type === link
  if (link === undefined || !transactions.some((transaction) => transaction.steps.some(linking))) return null
  const tr = state.tr
  // Only when a link was set (rare), so the whole document may be read.
  state.doc.descendants((node, position) => {
    if (node.type === type && link.isInSet(node.marks)) tr.removeMark(position, position + node.nodeSize, link)
    return !node.isInline
  })
  return tr.docChanged ? tr : null
}

export const videoEmbed = (rules: AllowListRules) => embed(rules, "videoEmbed", true)

/** A player standing at the top level of the document. */
export const blockVideoEmbed = (rules: AllowListRules) => embed(rules, "blockVideoEmbed", false)

export const figure = (rules: AllowListRules) =>
  Node.create({
    name: "figure",
    group: "block",
    // The content first: an image at the start is content, never taken for a caption.
    content: `(${flowContent} figureCaption?) | (figureCaption ${flowContent})`,
    defining: true,
    addAttributes: () => tagAttributes(rules, "figure"),
    parseHTML: () => [{ tag: "figure" }],
    renderHTML: ({ HTMLAttributes }) => ["figure", HTMLAttributes, 0]
  })

export const figureCaption = (rules: AllowListRules) =>
  Node.create({
    name: "figureCaption",
    content: "inline*",
    defining: true,
    isolating: true,
    addAttributes: () => tagAttributes(rules, "figcaption"),
    // Only in a figure, as the allow-list's `ancestors` keep it; elsewhere its content is kept without it.
    parseHTML: () => [{ tag: "figcaption", context: "figure//" }],
    renderHTML: ({ HTMLAttributes }) => ["figcaption", HTMLAttributes, 0]
  })
