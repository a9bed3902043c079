/**
 * Stage 3 of the sanitization pipeline: keeps only what the allow-list names — tags,
 * attributes per tag, utility classes, URL schemes — through `hast-util-sanitize`.
 * `style`, `id` and every event handler (`on*`) go because no tag lists them; dangerous
 * elements are dropped with their content. Links that open a new window get
 * `rel="noopener noreferrer"`. What the removals leave behind (emptied elements, bare
 * spans) is for the structure pass (stage 2) to clean: the pipeline runs it afterwards.
 *
 * @since 0.1.0
 */
import type { Element, ElementContent, Root, RootContent } from "hast"
import { sanitize, type Schema } from "hast-util-sanitize"
import type { HtmlAllowList } from "../HtmlAllowList.ts"

/** The `hast-util-sanitize` schema of an allow-list. */
export const toSanitizeSchema = (allowList: HtmlAllowList): Schema => {
  const classes = Object.keys(allowList.classes)
  const attributes: Record<string, Array<string | [string, ...Array<string | number | boolean>]>> = {}
  for (const [tag, names] of Object.entries(allowList.attributes)) {
    attributes[tag] = Object.keys(names).map((name) => {
      if (name === "className") return ["className", ...classes]
      if (tag === "a" && name === "target") return ["target", "_blank"]
      if (tag === "a" && name === "rel") return ["rel", "noopener", "noreferrer", "nofollow", "ugc"]
      return name
    })
  }
  return {
    tagNames: Object.keys(allowList.tags),
    attributes,
    protocols: Object.fromEntries(Object.entries(allowList.protocols).map(([name, list]) => [name, [...list]])),
    strip: [...allowList.dropWithContent],
    clobber: [],
    clobberPrefix: "",
    required: {},
    ancestors: Object.fromEntries(Object.entries(allowList.ancestors).map(([tag, list]) => [tag, [...list]])),
    allowComments: false,
    allowDoctypes: false
  }
}

const protectNewWindows = (nodes: ReadonlyArray<RootContent | ElementContent>): void => {
  for (const node of nodes) {
    if (node.type !== "element") continue
    const element: Element = node
    if (element.tagName === "a" && element.properties.target === "_blank") {
      element.properties.rel = ["noopener", "noreferrer"]
    }
    protectNewWindows(element.children)
  }
}

/** The unified plugin, for `allowList`. */
export const rehypeEnforceAllowList = (allowList: HtmlAllowList) => {
  const schema = toSanitizeSchema(allowList)
  return () => (tree: Root): Root => {
    const clean = sanitize(tree, schema) as Root
    protectNewWindows(clean.children)
    return clean
  }
}
