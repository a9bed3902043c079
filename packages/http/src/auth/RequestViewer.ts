/**
 * The viewer of a request, resolved once: the edge (`PublicCoursePages`, the list's
 * readers) and the API's middleware (`ViewerAuth`, `CatalogueAuth`, `AdminAuth`) may each
 * need the viewer of one request. A second resolution could differ from the first (a key
 * server that went down in between) and would cost a second wait for it. Not part of the
 * package's exports: every place that resolves a viewer goes through it.
 *
 * @since 0.2.0
 */
import type { Viewer } from "@coursekit/core"
import { Effect, type Exit } from "effect"
import type { HttpServerRequest } from "effect/http"
import type { ServiceUnavailable, Unauthorized } from "../problems/Problems.ts"
import type { ViewerResolver } from "./ViewerResolver.ts"

type Resolution = Exit.Exit<Viewer, Unauthorized | ServiceUnavailable>

// Per resolver, the resolution of each request it was asked about; an entry goes with its request.
const resolutions = new WeakMap<ViewerResolver["Service"], WeakMap<HttpServerRequest.HttpServerRequest, Resolution>>()

/** `resolver.resolve(request)`, asked once per request and resolver; later asks replay its outcome. */
export const resolveOnce = (
  resolver: ViewerResolver["Service"],
  request: HttpServerRequest.HttpServerRequest
): Effect.Effect<Viewer, Unauthorized | ServiceUnavailable> =>
  Effect.suspend(() => {
    let known = resolutions.get(resolver)
    if (known === undefined) resolutions.set(resolver, known = new WeakMap())
    const resolution = known.get(request)
    if (resolution !== undefined) return resolution
    return Effect.onExit(resolver.resolve(request), (exit) => Effect.sync(() => known.set(request, exit)))
  })
