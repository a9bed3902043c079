/**
 * The server side of {@link CatalogueAuth}: who reads the catalogue is decided by
 * {@link CatalogueReaders} (an admin sees drafts; anyone else reads the public
 * catalogue), the same question the list cache asks, so the two never disagree.
 *
 * @since 0.2.0
 */
import { Effect, Layer } from "effect"
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import { CatalogueAuth, CurrentAudience } from "./CatalogueAuth.ts"
import { CatalogueReaders } from "./CatalogueReaders.ts"

/** `CatalogueAuth` over the `CatalogueReaders` in context. */
export const layer: Layer.Layer<CatalogueAuth, never, CatalogueReaders> = Layer.effect(
  CatalogueAuth,
  Effect.gen(function*() {
    const readers = yield* CatalogueReaders
    return CatalogueAuth.of((httpEffect) =>
      Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        const audience = yield* readers.audienceOf(request)
        const response = Effect.provideService(httpEffect, CurrentAudience, audience)
        // An admin's page shows drafts: no shared cache may keep it (the edge adds `Vary`).
        return yield* audience === "admin" ? Effect.map(response, HttpServerResponse.setHeader("cache-control", "private, no-store")) : response
      })
    )
  })
)

/** @deprecated since 0.3.0: it has a file of its own; `CoursekitHttp` provides it. */
export { CatalogueReaders } from "./CatalogueReaders.ts"
