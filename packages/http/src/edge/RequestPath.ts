/**
 * Request paths: the path of a URL without its query (what routes, links and the list
 * cache compare), and the prefix an embedding app mounts the API under.
 *
 * @since 0.1.0
 */
import { Context } from "effect"

/** `/courses?cursor=3` → `/courses`. */
export const pathOf = (url: string): string => {
  const query = url.indexOf("?")
  return query === -1 ? url : url.slice(0, query)
}

/**
 * Where the host mounted the API (`/api/coursekit`), `""` at the root. Routes see request
 * paths without it; links the API writes (`Location`, `Link`) start with it, so they
 * point where the client can follow them.
 */
export const MountPrefix = Context.Reference<string>("@coursekit/http/MountPrefix", { defaultValue: () => "" })

/**
 * A prefix as the handlers use it: a leading `/`, no trailing one; `""` for the root.
 * Refuses what cannot be a path prefix (a query, a fragment, `..`, spaces).
 */
export const normalizePrefix = (prefix: string | undefined): string => {
  if (prefix === undefined) return ""
  const trimmed = prefix.trim().replace(/\/+$/, "")
  if (trimmed === "") return ""
  const withSlash = trimmed.startsWith("/") ? trimmed : `/${trimmed}`
  if (!/^(\/[A-Za-z0-9._~!$&'()*+,;=:@%-]+)+$/.test(withSlash) || withSlash.split("/").some((segment) => segment === "..")) {
    throw new TypeError(`Coursekit: ${JSON.stringify(prefix)} cannot be a mount prefix; use a path such as "/api/coursekit".`)
  }
  return withSlash
}

/**
 * `url` (path and query) without `prefix`, or `undefined` when it lies outside it:
 * `/api/coursekit/courses?x=1` under `/api/coursekit` → `/courses?x=1`; the prefix itself → `/`.
 */
export const stripPrefix = (url: string, prefix: string): string | undefined => {
  if (prefix === "") return url
  if (!url.startsWith(prefix)) return undefined
  const rest = url.slice(prefix.length)
  if (rest === "") return "/"
  if (rest.startsWith("/")) return rest
  if (rest.startsWith("?")) return `/${rest}`
  return undefined
}
