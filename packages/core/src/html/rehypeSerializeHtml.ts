/**
 * The compiler of the sanitization pipeline: hast to HTML by the HTML standard's fragment
 * serialization algorithm — what a browser's `innerHTML` returns — with the escaping of
 * the `entities` package that parse5's own serializer uses (`&amp;`, `&lt;`, `&gt;`,
 * `&nbsp;` in text; `&amp;`, `&quot;`, `&nbsp;` in double-quoted attribute values).
 *
 * Why not rehype-stringify: `hast-util-to-html` is configurable (quote styles, entity
 * flavours, omitted tags) and pays for it on every node; it took as long as parsing and
 * kept the pipeline under the throughput target. This compiler only writes HTML the
 * pipeline's trees can hold. `svg` and `math` subtrees, which the allow-list never keeps,
 * are still handed to `hast-util-to-html`, which knows their attribute spaces; a browser
 * reads the output back into the same tree (tested in chromium).
 *
 * @since 0.1.0
 */
import { escapeAttribute, escapeText } from "entities/escape"
import type { Element, Nodes, Properties, Root } from "hast"
import { toHtml } from "hast-util-to-html"
import { find, html } from "property-information"
import type { Plugin, Processor } from "unified"

/** Elements with no end tag and no content. */
const voidElements = new Set([
  "area",
  "base",
  "basefont",
  "bgsound",
  "br",
  "col",
  "embed",
  "frame",
  "hr",
  "img",
  "input",
  "keygen",
  "link",
  "meta",
  "param",
  "source",
  "track",
  "wbr"
])

/** Elements whose text is written as it is (scripting enabled, as in a browser). */
const rawTextElements = new Set(["style", "script", "xmp", "iframe", "noembed", "noframes", "plaintext", "noscript"])

/** Characters that cannot be in an attribute name: such a property is not written. */
const invalidAttributeName = /[\s"'<>/=\0]/

/** What would end a comment early or open another one (hast-util-to-html's list). */
const commentBreakout = /^>|^->|<!--|-->|--!>|<!-$/g

interface AttributeRule {
  readonly attribute: string
  readonly boolean: boolean
  readonly overloadedBoolean: boolean
  readonly commaSeparated: boolean
}

const attributeRules = new Map<string, AttributeRule | null>()

const attributeRuleOf = (property: string): AttributeRule | null => {
  let rule = attributeRules.get(property)
  if (rule === undefined) {
    const info = find(html, property)
    rule = invalidAttributeName.test(info.attribute) ? null : {
      attribute: info.attribute,
      boolean: info.boolean,
      overloadedBoolean: info.overloadedBoolean,
      commaSeparated: info.commaSeparated
    }
    // Property names can come from documents: bound the cache rather than let it grow.
    if (attributeRules.size < 4096) attributeRules.set(property, rule)
  }
  return rule
}

/** hast's property values as attributes, with hast-util-to-html's reading of them. */
const serializeAttributes = (properties: Properties): string => {
  let out = ""
  for (const property in properties) {
    let value = properties[property]
    if (value === null || value === undefined) continue
    const rule = attributeRuleOf(property)
    if (rule === null) continue
    if (rule.overloadedBoolean && (value === rule.attribute || value === "")) {
      value = true
    } else if ((rule.boolean || rule.overloadedBoolean) && (typeof value !== "string" || value === rule.attribute || value === "")) {
      value = Boolean(value)
    }
    if (value === false || (typeof value === "number" && Number.isNaN(value))) continue
    const text = value === true
      ? ""
      : Array.isArray(value)
      ? value.join(rule.commaSeparated ? ", " : " ")
      : String(value)
    out += ` ${rule.attribute}="${escapeAttribute(text)}"`
  }
  return out
}

/** Serialized HTML past a length it may have: the serializer stopped there. */
export class SerializedTooLong extends Error {
  readonly limit: number
  constructor(limit: number) {
    super(`longer than ${limit} characters`)
    this.limit = limit
  }
}

// Checked after every child: each string built stays within the limit plus one child's,
// so a tree whose HTML would be enormous (a long attribute on an element the parser
// reopens a thousand times) stops early instead of filling memory.
const serializeChildren = (children: ReadonlyArray<Nodes>, rawText: boolean, limit: number): string => {
  let out = ""
  for (const node of children) {
    out += serializeNode(node, rawText, limit)
    if (out.length > limit) throw new SerializedTooLong(limit)
  }
  return out
}

const serializeElement = (element: Element, limit: number): string => {
  const tag = element.tagName
  if (tag === "svg" || tag === "math") return toHtml(element)
  const start = `<${tag}${serializeAttributes(element.properties)}>`
  if (voidElements.has(tag)) return start
  const children = tag === "template" && element.content ? element.content.children : element.children
  return `${start}${serializeChildren(children, rawTextElements.has(tag), limit)}</${tag}>`
}

const serializeNode = (node: Nodes, rawText: boolean, limit: number): string => {
  switch (node.type) {
    case "element":
      return serializeElement(node, limit)
    case "text":
      return rawText ? node.value : escapeText(node.value)
    case "comment":
      // The parser never yields a comment that ends early; a hand-built tree might.
      return `<!--${node.value.replace(commentBreakout, (match) => match.replace(/</g, "&lt;").replace(/>/g, "&gt;"))}-->`
    case "doctype":
      return "<!DOCTYPE html>"
    case "root":
      return serializeChildren(node.children, false, limit)
    default: {
      // `raw` nodes (rehype-raw's) are text here: nothing is written unescaped.
      const value = (node as { readonly value?: unknown }).value
      return typeof value === "string" ? escapeText(value) : ""
    }
  }
}

/**
 * `tree` as HTML. Past `limit` characters it stops with {@link SerializedTooLong}
 * (no limit by default).
 */
export const serializeHtml = (tree: Root, limit: number = Number.POSITIVE_INFINITY): string =>
  serializeChildren(tree.children, false, limit)

/** The unified plugin: sets the processor's compiler. */
export const rehypeSerializeHtml: Plugin<[], Root, string> = function(this: Processor) {
  this.compiler = (tree) => serializeHtml(tree as Root)
}
