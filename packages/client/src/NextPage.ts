/**
 * Paging through the `Link` header: list and search responses that have a next page name
 * it as `Link: <…?…&cursor=…&limit=…>; rel="next"`.
 *
 * @since 0.2.0
 */

const nextLink = /<([^>]*)>\s*;\s*rel="?next"?/

/**
 * The `cursor` of the next page a `Link` header names, or undefined on the last page:
 * `client.courses.search({ query: { q, cursor: nextCursor(headers.link) } })`. For the
 * course list the cursor is an id: `CourseId.make(Number(cursor))`.
 */
export const nextCursor = (link: string | null | undefined): string | undefined => {
  const target = link == null ? null : nextLink.exec(link)
  if (target === null) return undefined
  const query = target[1]!.indexOf("?")
  return query === -1 ? undefined : new URLSearchParams(target[1]!.slice(query + 1)).get("cursor") ?? undefined
}
