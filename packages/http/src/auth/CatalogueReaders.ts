/**
 * Who reads the catalogue: the {@link AdminAccess} decides admin access; anyone else is
 * resolved by the `ViewerResolver` (so bad credentials are a 401, as on the public
 * course) and reads the public catalogue. `CatalogueAuth` and the list cache both ask
 * here, so the cache never serves a public page to an admin or a cached page to a
 * request the API would refuse.
 *
 * @since 0.2.0
 */
import { Context, Effect, Exit, Layer, Redacted } from "effect"
import { type HttpServerRequest, HttpServerResponse } from "effect/http"
import { AdminAccess, genericAdminRefusals } from "./AdminAccess.ts"
import { Forbidden, type ServiceUnavailable, Unauthorized } from "../problems/Problems.ts"
import { contractRoutes } from "../ContractRoutes.ts"
import { pathOf } from "../edge/RequestPath.ts"
import { resolveOnce } from "./RequestViewer.ts"
import { ViewerResolver } from "./ViewerResolver.ts"

/** Query parameters only admins may use on catalogue reads. */
const adminOnlyParameters = ["status"] as const

// As `AdminAuth` reads it (HttpApiBuilder's bearer decoding): scheme case-insensitive, then spaces.
const bearerOf = (request: HttpServerRequest.HttpServerRequest) => {
  const authorization = request.headers.authorization
  // Most catalogue reads are anonymous: one shared empty secret for them.
  if (authorization === undefined) return noBearer
  const match = /^Bearer +(.+)$/i.exec(authorization)
  return match === null ? noBearer : Redacted.make(match[1]!)
}
const noBearer = Redacted.make("")

const asksAdminOnly = (url: string) => {
  const query = url.indexOf("?")
  // Most reads name no admin-only parameter: no query parsing for them (every read asks).
  if (query === -1 || !adminOnlyParameters.some((name) => url.includes(name, query))) return false
  const params = new URLSearchParams(url.slice(query + 1))
  return adminOnlyParameters.some((name) => params.has(name))
}

/** Decides who reads the catalogue; shared by the middleware and the list cache. */
export class CatalogueReaders extends Context.Service<CatalogueReaders, {
  audienceOf(
    request: HttpServerRequest.HttpServerRequest
  ): Effect.Effect<"admin" | "public", Unauthorized | Forbidden | ServiceUnavailable>
  /**
   * The headers `response` to a catalogue read (`GET /courses`, `GET /courses/{id}`),
   * errors too, gets: the caching rules of an answer that depends on who asks, `Vary` on
   * the credentials' headers and `no-cache` unless it says otherwise (an admin's
   * `private, no-store`), so no shared cache keeps a 404 for a draft past its
   * publication. Undefined for other responses.
   */
  cachingOf(
    request: HttpServerRequest.HttpServerRequest,
    response: HttpServerResponse.HttpServerResponse
  ): Record<string, string> | undefined
}>()("@coursekit/http/CatalogueReaders") {
  static readonly layer: Layer.Layer<CatalogueReaders, never, AdminAccess | ViewerResolver> = Layer.effect(
    CatalogueReaders,
    Effect.gen(function*() {
      const access = yield* AdminAccess
      const viewers = yield* ViewerResolver
      const refusals = access.refusals ?? genericAdminRefusals
      // Flat maps, not a generator: this runs on every catalogue read, cache hits included.
      const admin = Effect.succeed("admin" as const)
      const anyone = Effect.succeed("public" as const)
      const resolve = (
        request: HttpServerRequest.HttpServerRequest
      ): Effect.Effect<"admin" | "public", Unauthorized | Forbidden | ServiceUnavailable> => {
        const bearer = bearerOf(request)
        return Effect.flatMap(access.isAdmin(request, bearer), (isAdmin) =>
          isAdmin
            ? admin
            // Not an admin: a viewer or nobody, and credentials that do not verify are refused.
            : Effect.flatMap(resolveOnce(viewers, request), (viewer): Effect.Effect<"public", Unauthorized | Forbidden> => {
              if (!asksAdminOnly(request.url)) return anyone
              return viewer._tag === "User"
                ? Effect.fail(new Forbidden({ detail: refusals.forbidden }))
                : Effect.fail(new Unauthorized({ detail: refusals.unauthorized(bearer, request) }))
            }))
      }

      // Decided once per request: the list cache and the API must agree on who is asking
      // (a remote role lookup could answer differently the second time), and it is cheaper.
      const decided = new WeakMap<object, Exit.Exit<"admin" | "public", Unauthorized | Forbidden | ServiceUnavailable>>()
      // Who is an admin may be read from more than the viewer's credentials (a session cookie).
      const vary = [...new Set([...viewers.vary, ...(access.vary ?? [])])].join(", ")
      return CatalogueReaders.of({
        cachingOf: (request, response) =>
          (request.method === "GET" || request.method === "HEAD") && contractRoutes.isCatalogueRead(pathOf(request.url))
            ? { "cache-control": response.headers["cache-control"] ?? "no-cache", vary }
            : undefined,
        // Suspended: the edge asks for it on every request, but only a list read runs it,
        // and resolving hashes the bearer against the admin tokens.
        audienceOf: (request) =>
          Effect.suspend(() => {
            const known = decided.get(request)
            if (known !== undefined) return known
            return Effect.onExit(resolve(request), (exit) => Effect.sync(() => decided.set(request, exit)))
          })
      })

    })
  )
}
