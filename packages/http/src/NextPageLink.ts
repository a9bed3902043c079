/**
 * Cursor pages over HTTP: the page's items as the body, and a `Link` header naming the
 * next page when there is one — built from the mount prefix and the path the request
 * came in on, so it stays right wherever the host mounts the API.
 *
 * @since 0.1.0
 */
import { HttpApiSchema } from "effect/http-api"
import { pathOf } from "./RequestPath.ts"

/**
 * `page` as a response of its items, with `Link: <…?cursor=N&limit=L>; rel="next"` when
 * more follow; `keep` names the request's other query parameters the next page needs
 * (a filter, a search), in that order, left out when undefined.
 */
export const withNextLink = <A>(
  page: { readonly items: A; readonly next: number | string | undefined },
  request: {
    readonly prefix: string
    readonly url: string
    readonly limit: number
    readonly keep?: Readonly<Record<string, string | undefined>> | undefined
  }
) => {
  if (page.next === undefined) return HttpApiSchema.withHeaders({ body: page.items, headers: {} })
  const query = new URLSearchParams()
  for (const [name, value] of Object.entries(request.keep ?? {})) if (value !== undefined) query.set(name, value)
  query.set("cursor", String(page.next))
  query.set("limit", String(request.limit))
  return HttpApiSchema.withHeaders({
    body: page.items,
    headers: { link: `<${request.prefix}${pathOf(request.url)}?${query}>; rel="next"` }
  })
}
