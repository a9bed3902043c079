/**
 * The path of a request URL without its query: what routes, links and the list cache
 * compare.
 *
 * @since 0.1.0
 */

/** `/courses?cursor=3` → `/courses`. */
export const pathOf = (url: string): string => {
  const query = url.indexOf("?")
  return query === -1 ? url : url.slice(0, query)
}
