/**
 * `GET /docs`: the interactive API explorer (Effect's `HttpApiScalar`), built on the
 * first request for it. The Scalar layer loads its bundled script (3 MB of JavaScript,
 * about 12 MiB of heap as module source and string) when it is built; most servers never
 * serve the page, so they no longer pay for it from the start (docs/benchmarks.md, "Memory").
 *
 * @since 0.1.0
 */
import { Effect, Layer, Scope } from "effect"
import { HttpRouter } from "effect/http"
import { type HttpApi, type HttpApiGroup, HttpApiScalar } from "effect/http-api"

/** The explorer of `api` at `path`, loaded on its first request and kept for the server's life. */
export const layer = <Id extends string, Groups extends HttpApiGroup.Constraint>(
  api: HttpApi.HttpApi<Id, Groups>,
  path: `/${string}` = "/docs"
) =>
  HttpRouter.use(Effect.fnUntraced(function*(router) {
    // Built at most once, on a router of its own, within the routes' scope; concurrent
    // first requests wait for it.
    const scope = yield* Scope.Scope
    const page = yield* Effect.cached(Effect.gen(function*() {
      const docs = yield* HttpRouter.make
      yield* Layer.buildWithScope(HttpApiScalar.layer(api, { path }).pipe(Layer.provide(Layer.succeed(HttpRouter.HttpRouter, docs))), scope)
      return docs.asHttpEffect()
    }))
    yield* router.add("GET", path, Effect.flatten(page))
  }))
