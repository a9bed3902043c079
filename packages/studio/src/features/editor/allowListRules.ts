/**
 * What the editor reads from the sanitizer's allow-list: the attributes each tag keeps
 * (with the values the sanitizer restricts them to), the URL schemes of URL attributes,
 * the elements dropped with their content and the video players. The editor's schema is
 * built from these rules, so that what the sanitizer keeps the editor keeps, written as
 * the sanitizer writes it; and what it removes the editor never offers.
 *
 * The rules come from `toSanitizeSchema` — the schema the sanitizer's allow-list stage is
 * defined by (and tested against) — and `makeEmbedAttributes`, the sanitizer's own embed
 * check: nothing of the allow-list is written again here.
 */
import { type HtmlAllowList, makeEmbedAttributes, toSanitizeSchema } from "@coursekit/core"
import type { Attribute } from "@tiptap/core"
import { find, html } from "property-information"

/** One attribute a tag keeps, by its HTML name, with the values it is restricted to (if any). */
export interface AllowedAttribute {
  readonly name: string
  /** The values kept (of each token, for `class` and `rel`); any value when undefined. */
  readonly values: ReadonlySet<string> | undefined
  /** The URL schemes kept (a relative URL is always kept); no check when undefined. */
  readonly protocols: ReadonlyArray<string> | undefined
}

/** The allow-list as the editor's schema reads it. */
export interface AllowListRules {
  readonly allowList: HtmlAllowList
  /** What `tag` keeps: `class` first, then the tag's own attributes in the allow-list's order. */
  readonly attributesOf: (tag: string) => ReadonlyArray<AllowedAttribute>
  /** Elements removed with everything inside them (`iframe` too, unless it is an embed). */
  readonly dropWithContent: ReadonlyArray<string>
  /** The player the sanitizer writes for an iframe of `src`, or undefined when it drops it. */
  readonly embed: (src: string) => Readonly<Record<string, string>> | undefined
}

/**
 * The attributes the sanitizer treats as lists of space-separated tokens, each kept or
 * removed alone (hast's `className` and `rel`); every other one is one value.
 */
const tokenLists: ReadonlySet<string> = new Set(["class", "rel"])

/** The allow-list names attributes as hast properties (`className`, `colSpan`): their HTML names (`class`, `colspan`). */
const htmlName = (property: string): string => find(html, property).attribute

/** The rules of `allowList`. Throws when an embed provider names something that is not a host (as the sanitizer does). */
export const allowListRules = (allowList: HtmlAllowList): AllowListRules => {
  const schema = toSanitizeSchema(allowList)
  const protocols = new Map(Object.entries(schema.protocols ?? {}).map(([property, list]) => [htmlName(property), list ?? []]))
  const byTag = new Map<string, Array<AllowedAttribute>>()
  for (const [tag, definitions] of Object.entries(schema.attributes ?? {})) {
    byTag.set(tag, definitions.map((definition) => {
      const [property, ...values] = typeof definition === "string" ? [definition] : definition
      const name = htmlName(String(property))
      return {
        name,
        values: typeof definition === "string" ? undefined : new Set(values.map(String)),
        protocols: protocols.get(name)
      }
    }))
  }
  const everywhere = byTag.get("*") ?? []
  const cache = new Map<string, ReadonlyArray<AllowedAttribute>>()
  return {
    allowList,
    attributesOf: (tag) => {
      let attributes = cache.get(tag)
      if (attributes === undefined) {
        const own = byTag.get(tag) ?? []
        attributes = [...everywhere.filter((shared) => !own.some((attribute) => attribute.name === shared.name)), ...own]
        cache.set(tag, attributes)
      }
      return attributes
    },
    dropWithContent: schema.strip ?? [],
    embed: makeEmbedAttributes(allowList.embeds)
  }
}

/**
 * Whether the sanitizer keeps `url` in an attribute limited to `protocols`: a relative
 * URL (no `:` before the first `/`, `?` or `#`), or one whose scheme is listed, exactly
 * (hast-util-sanitize's rule, which the sanitizer applies).
 */
export const keepsUrl = (protocols: ReadonlyArray<string>, url: string): boolean => {
  const colon = url.indexOf(":")
  if (colon < 0) return true
  for (const delimiter of ["/", "?", "#"]) {
    const at = url.indexOf(delimiter)
    if (at > -1 && colon > at) return true
  }
  return protocols.some((protocol) => colon === protocol.length && url.startsWith(protocol))
}

/** What the sanitizer keeps of `value` in `attribute`, or null when it removes the attribute. */
export const keptString = (attribute: AllowedAttribute, value: string): string | null => {
  if (attribute.protocols !== undefined && attribute.protocols.length > 0 && !keepsUrl(attribute.protocols, value)) return null
  const allowed = attribute.values
  if (allowed === undefined) return value
  if (!tokenLists.has(attribute.name)) return allowed.has(value) ? value : null
  // With none left the attribute stays, empty (`class=""`), as the sanitizer writes it.
  return value.split(/[ \t\n\f\r]+/).filter((token) => token !== "" && allowed.has(token)).join(" ")
}

/** What the sanitizer keeps of `attribute` on `element`, or null when it is absent or removed. */
export const keptValue = (attribute: AllowedAttribute, element: HTMLElement): string | null => {
  const value = element.getAttribute(attribute.name)
  return value === null ? null : keptString(attribute, value)
}

/**
 * The Tiptap attributes of `tag`: each allowed attribute read as the sanitizer keeps it
 * and written back as it was read, absent when it was absent. A value set otherwise (a
 * command, JSON content) is held to the same rules when written. Their order is the order
 * the element's attributes are written in.
 */
export const tagAttributes = (rules: AllowListRules, tag: string): Record<string, Attribute> =>
  Object.fromEntries(rules.attributesOf(tag).map((attribute) => [attribute.name, {
    default: null,
    parseHTML: (element: HTMLElement) => keptValue(attribute, element),
    renderHTML: (attributes: Record<string, unknown>) => {
      const value = attributes[attribute.name]
      const kept = value === null || value === undefined ? null : keptString(attribute, String(value))
      return kept === null ? {} : { [attribute.name]: kept }
    }
  } satisfies Attribute]))
