/**
 * Paging through the `Link` header: list and search responses that have a next page name
 * it as `Link: <…?…&cursor=…&limit=…>; rel="next"`.
 *
 * @since 0.2.0
 */

const nextLink = /<([^>]*)>\s*;\s*rel="?next"?/

/**
 * The `cursor` of the next page a `Link` header names, or undefined on the last page,
 * as every paged call takes it: `client.courses.list({ query: { cursor } })`, likewise
 * search, revisions, the media library, `/me/courses` and a course's learners.
 */
export const nextCursor = (link: string | null | undefined): string | undefined => {
  const target = link == null ? null : nextLink.exec(link)
  if (target === null) return undefined
  const query = target[1]!.indexOf("?")
  return query === -1 ? undefined : new URLSearchParams(target[1]!.slice(query + 1)).get("cursor") ?? undefined
}
