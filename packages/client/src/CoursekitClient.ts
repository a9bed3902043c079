/**
 * The Effect client of the Coursekit API, derived from the HttpApi contract
 * (`HttpApiClient.make(CoursekitApi)`): every endpoint, its inputs, its success and its
 * problems typed from the same definitions the server serves. Works wherever `fetch`
 * does (Node, browsers, workers).
 *
 * @since 0.1.0
 */
import { AdminAuth, CatalogueAuth, CoursekitApi } from "@coursekit/http/api"
import { Context, Effect, Layer } from "effect"
import { FetchHttpClient, HttpClient, HttpClientRequest } from "effect/http"
import { HttpApiClient, HttpApiMiddleware } from "effect/http-api"
import { addWriteHeaders } from "./WriteOptions.ts"

/** A token, or a function read before each request (for tokens that refresh). */
export type TokenSource = string | (() => string | undefined)

/** Where the API is and who is calling. */
export interface ClientOptions {
  /** The API's base URL, with the host's prefix when embedded: `https://courses.example.com`, `/api/coursekit`. */
  readonly baseUrl: string
  /**
   * Sent as `Authorization: Bearer` on admin endpoints, and on catalogue reads
   * (`courses.list`, `courses.get`, `courses.search`); the first two then show drafts and
   * scheduled courses too (search shows everyone the same: what is visible now).
   */
  readonly adminToken?: TokenSource | undefined
  /** Sent as `Authorization: Bearer` on the other endpoints (the public course). */
  readonly viewerToken?: TokenSource | undefined
}

const read = (token: TokenSource | undefined) => typeof token === "function" ? token() : token

const withBearer = (request: HttpClientRequest.HttpClientRequest, token: string | undefined) =>
  token === undefined || token === "" ? request : HttpClientRequest.bearerToken(request, token)

/** Builds the client; needs an `HttpClient` (`FetchHttpClient.layer` in {@link CoursekitClient.layerFetch}). */
export const make = (options: ClientOptions) =>
  HttpApiClient.make(CoursekitApi, {
    baseUrl: options.baseUrl,
    // The viewer's token on requests the admin middleware did not authorize already.
    transformClient: (client) =>
      client.pipe(
        HttpClient.mapRequest((request) =>
          request.headers.authorization === undefined ? withBearer(request, read(options.viewerToken)) : request
        ),
        // If-Match and Coursekit-Autosave of a call run `withWriteOptions`.
        HttpClient.mapRequestEffect(addWriteHeaders)
      )
  }).pipe(
    Effect.provide([
      HttpApiMiddleware.layerClient(AdminAuth, ({ next, request }) => next(withBearer(request, read(options.adminToken)))),
      // Without an admin token the catalogue is read as the viewer (or anonymously).
      HttpApiMiddleware.layerClient(CatalogueAuth, ({ next, request }) => next(withBearer(request, read(options.adminToken))))
    ])
  )

/** The client: `client.courses.create({ payload })`, `client.public.course({ params: { slug } })`, … */
export type Client = Effect.Success<ReturnType<typeof make>>

/** The client as a service. */
export class CoursekitClient extends Context.Service<CoursekitClient, Client>()("@coursekit/client/CoursekitClient") {
  /** The client over the `HttpClient` in context. */
  static readonly layer = (options: ClientOptions): Layer.Layer<CoursekitClient, never, HttpClient.HttpClient> =>
    Layer.effect(CoursekitClient, make(options))

  /** The client over the platform's `fetch`. */
  static readonly layerFetch = (options: ClientOptions): Layer.Layer<CoursekitClient> =>
    CoursekitClient.layer(options).pipe(Layer.provide(FetchHttpClient.layer))
}
