/**
 * parse5's tree as hast, as `hast-util-from-parse5` builds it, without going through
 * `hastscript` for every HTML element: attribute names are looked up in
 * `property-information` once per name and cached, and children are built straight into
 * their arrays. Elements outside the HTML namespace (SVG, MathML) are rare in course
 * HTML and take `fromParse5` itself. The output is the same tree (tested against
 * `fromParse5` on the attack corpus and generated documents); the parse step takes about
 * half the time.
 */
import { parse as parseCommas } from "comma-separated-tokens"
import type { Element, ElementContent, Properties, Root, RootContent } from "hast"
import { fromParse5 } from "hast-util-from-parse5"
import type { DefaultTreeAdapterMap } from "parse5"
import { find, html, normalize } from "property-information"
import { parse as parseSpaces } from "space-separated-tokens"

type Parse5ChildNode = DefaultTreeAdapterMap["childNode"]

type Parse5Parent = DefaultTreeAdapterMap["parentNode"]

/**
 * Replaces the content of every element at `maxDepth` below `root` by its text, without
 * recursion: for foreign subtrees, which `fromParse5` converts recursively.
 */
const capDepth = (root: Parse5Parent, maxDepth: number): void => {
  const stack: Array<[Parse5Parent, number]> = [[root, 0]]
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!
    if (depth >= maxDepth) {
      const value = textOf(node.childNodes)
      node.childNodes = value === "" ? [] : [{ nodeName: "#text", value, parentNode: node } as DefaultTreeAdapterMap["textNode"]]
      continue
    }
    for (const child of node.childNodes) {
      if ("childNodes" in child) stack.push([child, depth + 1])
    }
  }
}

const htmlNamespace = "http://www.w3.org/1999/xhtml"
const prototypeKeys = Object.prototype

/** How the value of one attribute becomes a hast property (hastscript's rules). */
interface PropertyRule {
  readonly property: string
  readonly split: "none" | "spaces" | "commas" | "commasOrSpaces"
  readonly number: boolean
  readonly boolean: boolean
}

const rules = new Map<string, PropertyRule>()

const ruleOf = (name: string): PropertyRule => {
  let rule = rules.get(name)
  if (rule === undefined) {
    const info = find(html, name)
    rule = {
      property: info.property,
      split: info.spaceSeparated ? "spaces" : info.commaSeparated ? "commas" : info.commaOrSpaceSeparated ? "commasOrSpaces" : "none",
      number: info.number,
      boolean: info.boolean || info.overloadedBoolean
    }
    // Attribute names come from documents: bound the cache rather than let it grow.
    if (rules.size < 4096) rules.set(name, rule)
  }
  return rule
}

const primitive = (rule: PropertyRule, value: string): string | number | boolean => {
  if (rule.number && value !== "" && !Number.isNaN(Number(value))) return Number(value)
  if (rule.boolean && (value === "" || normalize(value) === normalize(rule.property))) return true
  return value
}

const propertiesOf = (attributes: DefaultTreeAdapterMap["element"]["attrs"]): Properties => {
  const properties: Properties = {}
  for (const attribute of attributes) {
    const name = attribute.prefix ? `${attribute.prefix}:${attribute.name}` : attribute.name
    if (name in prototypeKeys) continue
    const rule = ruleOf(name)
    const value = attribute.value
    switch (rule.split) {
      case "none":
        properties[rule.property] = primitive(rule, value)
        break
      case "spaces":
        properties[rule.property] = parseSpaces(value).map((item) => primitive(rule, item)) as Array<string | number>
        break
      case "commas":
        properties[rule.property] = parseCommas(value).map((item) => primitive(rule, item)) as Array<string | number>
        break
      case "commasOrSpaces":
        properties[rule.property] = parseSpaces(parseCommas(value).join(" ")).map((item) => primitive(rule, item)) as Array<string | number>
    }
  }
  return properties
}

/** The text of a subtree, without recursion (it may be thousands of elements deep). */
const textOf = (nodes: ReadonlyArray<Parse5ChildNode>): string => {
  let text = ""
  const stack: Array<Parse5ChildNode> = [...nodes].reverse()
  while (stack.length > 0) {
    const current = stack.pop()!
    if (current.nodeName === "#text") text += (current as DefaultTreeAdapterMap["textNode"]).value
    else if ("childNodes" in current) {
      for (let index = current.childNodes.length - 1; index >= 0; index--) stack.push(current.childNodes[index]!)
    }
  }
  return text
}

/**
 * The hast children of `nodes`, which sit at `depth`. Below `maxDepth` an element's
 * content is replaced by its text: the conversion and the tree walks after it recurse.
 */
const childrenOf = (nodes: ReadonlyArray<Parse5ChildNode>, depth: number, maxDepth: number): Array<ElementContent> => {
  if (depth > maxDepth) {
    const value = textOf(nodes)
    return value === "" ? [] : [{ type: "text", value }]
  }
  const children: Array<ElementContent> = []
  for (const node of nodes) {
    switch (node.nodeName) {
      case "#text":
        children.push({ type: "text", value: (node as DefaultTreeAdapterMap["textNode"]).value })
        break
      case "#comment":
        children.push({ type: "comment", value: (node as DefaultTreeAdapterMap["commentNode"]).data })
        break
      case "#documentType":
        // Only a document has one; the fragment parser ignores a doctype, so none comes here.
        break
      default:
        children.push(elementOf(node as DefaultTreeAdapterMap["element"], depth, maxDepth))
    }
  }
  return children
}

const elementOf = (node: DefaultTreeAdapterMap["element"], depth: number, maxDepth: number): Element => {
  if (node.namespaceURI !== htmlNamespace) {
    capDepth(node, maxDepth - depth)
    return fromParse5(node) as Element
  }
  const element: Element = {
    type: "element",
    tagName: node.tagName,
    properties: propertiesOf(node.attrs),
    children: childrenOf(node.childNodes, depth + 1, maxDepth)
  }
  if (node.tagName === "template") {
    element.content = {
      type: "root",
      children: childrenOf((node as DefaultTreeAdapterMap["template"]).content.childNodes, depth + 1, maxDepth),
      data: { quirksMode: false }
    }
  }
  return element
}

/**
 * The hast root of parse5's top-level `nodes` (a document fragment's children, or some of
 * them); elements nested deeper than `maxDepth` hold their text only.
 */
export const nodesToHast = (nodes: ReadonlyArray<Parse5ChildNode>, maxDepth: number): Root => ({
  type: "root",
  children: childrenOf(nodes, 1, maxDepth) as Array<RootContent>,
  data: { quirksMode: false }
})

/** The hast root of a parse5 document fragment (see {@link nodesToHast}). */
export const fragmentToHast = (fragment: DefaultTreeAdapterMap["documentFragment"], maxDepth: number): Root =>
  nodesToHast(fragment.childNodes, maxDepth)
