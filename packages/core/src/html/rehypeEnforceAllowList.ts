/**
 * Stage 3 of the sanitization pipeline: keeps only what the allow-list names — tags,
 * attributes per tag, utility classes, URL schemes. `style`, `id` and every event
 * handler (`on*`) go because no tag lists them; dangerous elements are dropped with
 * their content; any other element that is not listed is replaced by its content. Links
 * that open a new window get `rel="noopener noreferrer"`. An `iframe` is kept only as a
 * video embed of the allow-list, written afresh ({@link embedProperties}); any other is
 * dropped with its content, and so is one inside a link. What the removals leave behind
 * (emptied elements, bare spans) is for the structure pass (stage 2) to clean: the
 * pipeline runs it afterwards.
 *
 * The rules are `hast-util-sanitize`'s (rehype-sanitize's engine) for the schema
 * {@link toSanitizeSchema} derives from the allow-list, applied in place in one walk
 * instead of building a second tree: the same output for every input without an allowed
 * embed (a differential property test runs both), in a fraction of the time. Embeds are
 * the one rule `hast-util-sanitize` cannot express.
 *
 * @since 0.1.0
 */
import type { ElementContent, Properties, Root, RootContent } from "hast"
import type { Schema } from "hast-util-sanitize"
import type { HtmlAllowList } from "./HtmlAllowList.ts"
import { compileEmbeds, embedProperties, type EmbedRules } from "./iframeEmbeds.ts"

/**
 * The `hast-util-sanitize` schema of an allow-list. It cannot express embeds: `iframe` is
 * always stripped with its content (even when `tags` lists it), and
 * {@link rehypeEnforceAllowList} adds the embeds.
 */
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
    tagNames: Object.keys(allowList.tags).filter((tag) => tag !== "iframe"),
    attributes,
    protocols: Object.fromEntries(Object.entries(allowList.protocols).map(([name, list]) => [name, [...list]])),
    strip: [...new Set([...allowList.dropWithContent, "iframe"])],
    clobber: [],
    clobberPrefix: "",
    required: {},
    ancestors: Object.fromEntries(Object.entries(allowList.ancestors).map(([tag, list]) => [tag, [...list]])),
    allowComments: false,
    allowDoctypes: false
  }
}

/** A schema's rules in maps, for lookups by name. */
interface Rules {
  readonly tags: ReadonlySet<string>
  readonly drop: ReadonlySet<string>
  /** By tag ("*" for all): property name → allowed values (undefined: any value). */
  readonly attributes: ReadonlyMap<string, ReadonlyMap<string, ReadonlySet<unknown> | undefined>>
  readonly protocols: ReadonlyMap<string, ReadonlyArray<string>>
  readonly ancestors: ReadonlyMap<string, ReadonlyArray<string>>
  readonly embeds: EmbedRules
}

const compile = (schema: Schema, embeds: EmbedRules): Rules => ({
  tags: new Set(schema.tagNames ?? []),
  drop: new Set(schema.strip ?? []),
  attributes: new Map(Object.entries(schema.attributes ?? {}).map(([tag, definitions]) => [
    tag,
    new Map(definitions.map((definition) =>
      typeof definition === "string" ? [definition, undefined] : [definition[0], new Set(definition.slice(1))]
    ))
  ])),
  protocols: new Map(Object.entries(schema.protocols ?? {}).map(([key, list]) => [key, list ?? []])),
  ancestors: new Map(Object.entries(schema.ancestors ?? {}).map(([tag, list]) => [tag, list ?? []])),
  embeds
})

const own = Object.prototype.hasOwnProperty

/** `undefined` when the definition is missing; `null` when there is one (any value). */
const definitionOf = (
  definitions: ReadonlyMap<string, ReadonlySet<unknown> | undefined> | undefined,
  key: string
): ReadonlySet<unknown> | null | undefined => {
  if (definitions === undefined) return undefined
  if (definitions.has(key)) return definitions.get(key) ?? null
  if (key.length > 4 && key.slice(0, 4).toLowerCase() === "data" && definitions.has("data*")) {
    return definitions.get("data*") ?? null
  }
  return undefined
}

/** A URL is safe when relative, or when its scheme is listed (exact, lower case). */
const safeProtocol = (rules: Rules, key: string, value: string | number | boolean): boolean => {
  const protocols = rules.protocols.get(key)
  if (protocols === undefined || protocols.length === 0) return true
  const url = String(value)
  const colon = url.indexOf(":")
  if (colon < 0) return true
  const slash = url.indexOf("/")
  const question = url.indexOf("?")
  const hash = url.indexOf("#")
  if ((slash > -1 && colon > slash) || (question > -1 && colon > question) || (hash > -1 && colon > hash)) return true
  return protocols.some((protocol) => colon === protocol.length && url.startsWith(protocol))
}

const primitiveValue = (rules: Rules, allowed: ReadonlySet<unknown> | null, key: string, value: unknown) => {
  if (typeof value !== "string" && typeof value !== "number" && typeof value !== "boolean") return undefined
  if (!safeProtocol(rules, key, value)) return undefined
  if (allowed !== null && !allowed.has(value)) return undefined
  return value
}

const propertyValue = (rules: Rules, allowed: ReadonlySet<unknown> | null | undefined, key: string, value: unknown) => {
  if (allowed === undefined) return undefined
  if (!Array.isArray(value)) return primitiveValue(rules, allowed, key, value)
  const kept: Array<string | number> = []
  for (const item of value) {
    const safe = primitiveValue(rules, allowed, key, item)
    if (typeof safe === "string" || typeof safe === "number") kept.push(safe)
  }
  return kept
}

const enforceProperties = (rules: Rules, tag: string, properties: Properties): Properties => {
  let any = false
  for (const _ in properties) {
    any = true
    break
  }
  if (!any) return properties
  const specific = rules.attributes.get(tag)
  const defaults = rules.attributes.get("*")
  const result: Properties = {}
  for (const key in properties) {
    if (!own.call(properties, key)) continue
    const value = properties[key]
    const safe = propertyValue(rules, definitionOf(specific, key), key, value) ??
      propertyValue(rules, definitionOf(defaults, key), key, value)
    if (safe !== undefined && safe !== null) result[key] = safe as Properties[string]
  }
  if (tag === "a" && result.target === "_blank") result.rel = ["noopener", "noreferrer"]
  return result
}

/** The allowed form of `children`; `stack` holds the names of the elements above them. */
const enforceChildren = (rules: Rules, children: Array<RootContent | ElementContent>, stack: Array<string>) => {
  // Kept nodes are written back into `children` (fewer allocations on every document)
  // until an unwrapped element's content must be spliced in; from there on, a new array.
  let result: Array<RootContent | ElementContent> | undefined
  let written = 0
  for (let index = 0; index < children.length; index++) {
    const child = children[index]!
    if (child.type === "text") {
      if (result === undefined) children[written++] = child
      else result.push(child)
      continue
    }
    if (child.type !== "element") continue // comments, doctypes, anything unknown
    const tag = child.tagName
    const listed = tag !== "*" && rules.tags.has(tag)
    if (!listed && rules.drop.has(tag)) {
      // An iframe is dropped, unless it is an allowed embed: then it is kept, without its
      // content (fallback text) and with only the attributes the sanitizer writes. Inside
      // a link, a player would be interactive content in interactive content: dropped.
      const embed = tag === "iframe" && rules.embeds.size > 0 && !stack.includes("a")
        ? embedProperties(rules.embeds, child.properties)
        : undefined
      if (embed === undefined) continue
      child.properties = embed
      child.children = []
      if (result === undefined) children[written++] = child
      else result.push(child)
      continue
    }
    stack.push(tag)
    const content = enforceChildren(rules, child.children, stack)
    const properties = enforceProperties(rules, tag, child.properties)
    stack.pop()
    const ancestors = rules.ancestors.get(tag)
    if (!listed || (ancestors !== undefined && !ancestors.some((ancestor) => stack.includes(ancestor)))) {
      if (content.length === 0) continue
      if (result === undefined) result = children.slice(0, written)
      for (const node of content) result.push(node)
      continue
    }
    child.children = content
    child.properties = properties
    // A template's content is a second tree; like hast-util-sanitize, keep none of it.
    delete child.content
    if (result === undefined) children[written++] = child
    else result.push(child)
  }
  if (result !== undefined) return result as Array<ElementContent>
  children.length = written
  return children as Array<ElementContent>
}

/** Enforces the allow-list of `schema` and the `embeds` rules on `tree`, in place. */
export const enforceAllowList = (schema: Schema, embeds: EmbedRules = new Map()) => {
  const rules = compile(schema, embeds)
  return (tree: Root): Root => {
    tree.children = enforceChildren(rules, tree.children, []) as Array<RootContent>
    return tree
  }
}

/** The unified plugin, for `allowList`. */
export const rehypeEnforceAllowList = (allowList: HtmlAllowList) => {
  const enforce = enforceAllowList(toSanitizeSchema(allowList), compileEmbeds(allowList.embeds))
  return () => enforce
}
