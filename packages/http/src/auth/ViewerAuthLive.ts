/**
 * The server side of {@link ViewerAuth}: the `ViewerResolver` in context decides who is
 * asking, and the endpoint sees the answer as `CurrentViewer`.
 *
 * @since 0.1.0
 */
import { Effect, Layer } from "effect"
import { HttpServerRequest } from "effect/http"
import { CurrentViewer, ViewerAuth } from "./ViewerAuth.ts"
import { resolveOnce } from "./RequestViewer.ts"
import { ViewerResolver } from "./ViewerResolver.ts"

/** `ViewerAuth` backed by the `ViewerResolver` in context. */
export const layer: Layer.Layer<ViewerAuth, never, ViewerResolver> = Layer.effect(
  ViewerAuth,
  Effect.gen(function*() {
    const resolver = yield* ViewerResolver
    return ViewerAuth.of((httpEffect) =>
      Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        const viewer = yield* resolveOnce(resolver, request)
        return yield* Effect.provideService(httpEffect, CurrentViewer, viewer)
      })
    )
  })
)
