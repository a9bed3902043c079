/**
 * The methods each served path answers, for telling a wrong method on a known path (405
 * with `Allow`) from an unknown path (404). The table is not written by hand:
 * {@link RouteTable.layer} stands between the routes and the `HttpRouter` and records
 * every route added through it — the contract's endpoints, `/openapi.json`, `/docs` and
 * any route a host adds beside them — in a radix tree of the router's own kind, so a
 * path matches here exactly when it matches there (`/courses/:id` for any id, also one
 * the parameter's schema would refuse).
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer } from "effect"
import { FindMyWay, HttpRouter } from "effect/http"

/** The methods a route can be added for, in the order `Allow` lists them. */
const methods = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "QUERY"] as const

/**
 * The routes served, by path. `allowed(url)` answers the methods the path of `url` is
 * served for, in a fixed order (`GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS`), with
 * HEAD wherever GET is (the router answers HEAD with the GET route); none for a path no
 * route matches.
 */
export class RouteTable extends Context.Service<RouteTable, {
  allowed(url: string): ReadonlyArray<string>
}>()("@coursekit/http/RouteTable") {
  /**
   * Provides the `HttpRouter` to the routes and records what they add. Provide it to
   * everything that adds routes, so that it sits between them and the router:
   * `Layer.mergeAll(routes, more).pipe(Layer.provide(RouteTable.layer))`. The router's
   * `RouterConfig` (trailing slashes, case, parameter length) applies to the table too.
   */
  static readonly layer: Layer.Layer<HttpRouter.HttpRouter | RouteTable, never, HttpRouter.HttpRouter> = Layer.effectContext(
    Effect.gen(function*() {
      const router = yield* HttpRouter.HttpRouter
      const config = yield* HttpRouter.RouterConfig
      const tree = FindMyWay.make<true>(config)
      const recorded = new Set<string>()
      const record = (method: string, path: string) => {
        // The router itself refuses duplicates; a route added twice is recorded once.
        const key = `${method} ${path}`
        if (recorded.has(key)) return
        recorded.add(key)
        // As the router registers it: `/a/*` also answers `/a`.
        const paths = path.endsWith("/*") ? [path, path.slice(0, -2) || "/"] : [path]
        for (const each of paths as Array<FindMyWay.PathInput>) {
          if (method === "*") tree.all(each, true)
          else tree.on(method, each, true)
        }
      }
      const table = RouteTable.of({
        allowed: (url) => {
          const served = new Set(methods.filter((method) => tree.find(method, url) !== undefined))
          if (served.has("GET")) served.add("HEAD")
          return methods.filter((method) => served.has(method))
        }
      })
      return Context.make(RouteTable, table).pipe(Context.add(HttpRouter.HttpRouter, recording(router, "", record)))
    })
  )
}

/** `router`, prefixed by `prefix` (`""` at the root), recording each route it adds. */
const recording = (
  router: HttpRouter.HttpRouter,
  prefix: string,
  record: (method: string, path: string) => void
): HttpRouter.HttpRouter => {
  // The same prefixing as the router's own `prefixed`.
  const full = (path: string) => prefix === "" ? path : HttpRouter.prefixPath(path, prefix)
  return HttpRouter.HttpRouter.of({
    ...router,
    prefixed: (next) => recording(router.prefixed(next), full(next).replace(/\/$/, ""), record),
    add: (method, path, handler, options) =>
      Effect.andThen(router.add(method, path, handler, options), Effect.sync(() => record(method, full(path)))),
    addAll: (routes) =>
      Effect.andThen(
        router.addAll(routes),
        Effect.sync(() => {
          for (const route of routes) record(route.method, full(route.path))
        })
      )
  })
}
