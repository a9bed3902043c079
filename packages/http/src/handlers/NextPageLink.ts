/**
 * Cursor pages over HTTP: the page's items as the body, and a `Link` header naming the
 * next page when there is one — built from the mount prefix and the path the request
 * came in on, so it stays right wherever the host mounts the API.
 *
 * @since 0.1.0
 */
import { HttpApiSchema } from "effect/http-api"
import { pathOf } from "../edge/RequestPath.ts"

/** What names the next page: the request it follows and the page's own size. */
export interface PageRequest {
  readonly prefix: string
  readonly url: string
  readonly limit: number
  readonly keep?: Readonly<Record<string, string | undefined>> | undefined
}

/**
 * The `Link` header naming the page at `next`, `<…?cursor=N&limit=L>; rel="next"`, with
 * `keep`'s parameters (a filter, a search) first, in that order, left out when undefined.
 */
export const nextLink = (next: number | string, request: PageRequest): string => {
  const query = new URLSearchParams()
  for (const [name, value] of Object.entries(request.keep ?? {})) if (value !== undefined) query.set(name, value)
  query.set("cursor", String(next))
  query.set("limit", String(request.limit))
  return `<${request.prefix}${pathOf(request.url)}?${query}>; rel="next"`
}

/** `page` as a response of its items, with the {@link nextLink} when more follow. */
export const withNextLink = <A>(
  page: { readonly items: A; readonly next: number | string | undefined },
  request: PageRequest
) =>
  HttpApiSchema.withHeaders({
    body: page.items,
    headers: page.next === undefined ? {} : { link: nextLink(page.next, request) }
  })
