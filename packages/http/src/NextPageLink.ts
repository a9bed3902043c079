/**
 * Cursor pages over HTTP: the page's items as the body, and a `Link` header naming the
 * next page when there is one — built from the mount prefix and the path the request
 * came in on, so it stays right wherever the host mounts the API.
 *
 * @since 0.1.0
 */
import { HttpApiSchema } from "effect/http-api"
import { pathOf } from "./RequestPath.ts"

/** `page` as a response of its items, with `Link: <…?cursor=N&limit=L>; rel="next"` when more follow. */
export const withNextLink = <A>(
  page: { readonly items: A; readonly next: number | undefined },
  request: { readonly prefix: string; readonly url: string; readonly limit: number }
) =>
  HttpApiSchema.withHeaders({
    body: page.items,
    headers: page.next === undefined
      ? {}
      : { link: `<${request.prefix}${pathOf(request.url)}?cursor=${page.next}&limit=${request.limit}>; rel="next"` }
  })
