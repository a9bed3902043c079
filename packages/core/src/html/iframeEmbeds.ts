/**
 * The one way an `iframe` survives sanitization: as a video player of an embed provider
 * of the allow-list ({@link HtmlEmbedProvider}). The `src` is judged by what a browser
 * would load — the WHATWG URL parser's reading of it (IDNA, lower case, `\` as `/`,
 * percent-decoding of the host, dot segments) — never by its spelling, and the output's
 * `src` is the parsed URL serialized again, so what is checked is what is written.
 * Before parsing, anything but an absolute `https://` URL in printable ASCII without a
 * backslash is refused outright: whitespace, control characters, full-width or other
 * look-alike letters, protocol-relative and relative URLs never get as far as the
 * parser (sanitize-html's `allowedIframeHostnames` was bypassed through IDN and
 * backslash readings: CVE-2021-26539, CVE-2021-26540).
 *
 * @since 0.2.0
 */
import { stringify as commas } from "comma-separated-tokens"
import type { Properties } from "hast"
import { find, html } from "property-information"
import { stringify as spaces } from "space-separated-tokens"
import type { HtmlAllowList, HtmlEmbedProvider } from "./HtmlAllowList.ts"

/** A provider with its patterns anchored at both ends and free of global state. */
interface CompiledProvider {
  readonly rewriteHost: string | undefined
  readonly path: RegExp
  readonly query: ReadonlyArray<readonly [string, RegExp]>
  readonly sandbox: ReadonlyArray<string>
  readonly allow: string
  readonly fullscreen: boolean
}

/** The embed rules of an allow-list: by accepted host, the providers that accept it. */
export type EmbedRules = ReadonlyMap<string, ReadonlyArray<CompiledProvider>>

/** Longest `src` considered; real player URLs are far shorter. */
const maxSourceLength = 2048

/** What the sanitizer writes on every embed besides the provider's own attributes. */
export const embedReferrerPolicy = "strict-origin-when-cross-origin"
export const embedLoading = "lazy"

/**
 * `pattern` matching whole strings only: wrapped in `^(?:…)$`, without the flags that
 * would make it stateful (`g`, `y`) or let `^`/`$` match at line breaks (`m`).
 */
const whole = (pattern: RegExp): RegExp => new RegExp(`^(?:${pattern.source})$`, pattern.flags.replace(/[gym]/g, ""))

/** `host` as the URL parser writes it; a defect when it is not a bare host name. */
const normalizeHost = (provider: string, host: string): string => {
  const url = URL.parse(`https://${host}/`)
  if (
    url === null || url.username !== "" || url.password !== "" || url.port !== "" || url.pathname !== "/" ||
    url.search !== "" || url.hash !== "" || url.hostname.endsWith(".") || url.hostname === ""
  ) {
    throw new Error(`HtmlAllowList embeds.${provider}: ${JSON.stringify(host)} is not a host name`)
  }
  return url.hostname
}

/** The embed rules of `embeds`; throws when a provider names something that is not a host. */
export const compileEmbeds = (embeds: HtmlAllowList["embeds"]): EmbedRules => {
  const byHost = new Map<string, Array<CompiledProvider>>()
  for (const [name, provider] of Object.entries(embeds)) {
    const compiled = compileProvider(name, provider)
    const hosts = new Set(provider.hosts.map((host) => normalizeHost(name, host)))
    if (compiled.rewriteHost !== undefined) hosts.add(compiled.rewriteHost)
    for (const host of hosts) {
      const list = byHost.get(host) ?? []
      list.push(compiled)
      byHost.set(host, list)
    }
  }
  return byHost
}

const compileProvider = (name: string, provider: HtmlEmbedProvider): CompiledProvider => ({
  rewriteHost: provider.rewriteHost === undefined ? undefined : normalizeHost(name, provider.rewriteHost),
  path: whole(provider.path),
  query: Object.entries(provider.query).map(([parameter, pattern]) => [parameter, whole(pattern)] as const),
  sandbox: [...provider.sandbox],
  allow: provider.allow.join("; "),
  fullscreen: provider.allow.includes("fullscreen")
})

/** Only printable ASCII without a backslash: no whitespace, controls or look-alike letters. */
const plainAscii = (value: string): boolean => {
  for (let index = 0; index < value.length; index++) {
    const code = value.charCodeAt(index)
    if (code <= 0x20 || code >= 0x7f || code === 0x5c) return false
  }
  return true
}

const httpsPrefix = /^https:\/\//i

/**
 * The properties an allowed embed is written with, or `undefined` when the `iframe`
 * (with these properties) is refused and must be dropped with its content.
 */
export const embedProperties = (rules: EmbedRules, properties: Properties): Properties | undefined => {
  if (Object.prototype.hasOwnProperty.call(properties, "srcDoc")) return undefined
  const source = properties.src
  if (typeof source !== "string" || source.length > maxSourceLength || !plainAscii(source) || !httpsPrefix.test(source)) {
    return undefined
  }
  const url = URL.parse(source)
  if (url === null || url.protocol !== "https:" || url.username !== "" || url.password !== "" || url.port !== "") {
    return undefined
  }
  const provider = rules.get(url.hostname)?.find((candidate) => candidate.path.test(url.pathname))
  if (provider === undefined) return undefined
  const kept = new URLSearchParams()
  for (const [parameter, pattern] of provider.query) {
    const value = url.searchParams.get(parameter)
    if (value !== null && pattern.test(value)) kept.append(parameter, value)
  }
  if (provider.rewriteHost !== undefined) url.hostname = provider.rewriteHost
  url.search = kept.size === 0 ? "" : kept.toString()
  url.hash = ""
  // Browsers without Permissions Policy for fullscreen (Safari) read allowfullscreen only.
  return {
    src: url.href,
    sandbox: [...provider.sandbox],
    allow: provider.allow,
    ...(provider.fullscreen ? { allowFullScreen: true } : {}),
    referrerPolicy: embedReferrerPolicy,
    loading: embedLoading
  }
}

/**
 * The player the sanitizer writes for an `iframe` whose `src` is `src`, under `embeds`: its
 * attributes by their HTML names, in the order written (a boolean one with the value
 * `""`), or `undefined` when the sanitizer drops such an `iframe`. An editor asks it to
 * offer exactly the embeds the sanitizer keeps, written as it writes them (the Studio's
 * editor does). Throws, as the sanitizer does when built, when a provider names
 * something that is not a host.
 *
 * @since 0.2.0
 */
export const makeEmbedAttributes = (embeds: HtmlAllowList["embeds"]): (src: string) => Readonly<Record<string, string>> | undefined => {
  const rules = compileEmbeds(embeds)
  return (src) => {
    const properties = embedProperties(rules, { src })
    if (properties === undefined) return undefined
    const attributes: Record<string, string> = {}
    for (const [property, value] of Object.entries(properties)) {
      if (value === undefined || value === null || value === false) continue
      const info = find(html, property)
      attributes[info.attribute] = value === true ? "" : Array.isArray(value) ? (info.commaSeparated ? commas(value) : spaces(value)) : String(value)
    }
    return attributes
  }
}
