/**
 * The HTTP routes of the local store, for the standalone server:
 *
 * - `PUT <uploadPath>/<key>`: an upload to a signed URL ({@link LocalUploads.receive});
 *   `200` with an empty body, else an RFC 9457 problem (400, 403, 409, 411, 413, 503).
 * - `GET`/`HEAD <filesPath>/<key>`: the file, streamed, with its stored type,
 *   `Content-Length`, `ETag`, `nosniff` and a year of immutable caching (keys contain a
 *   uuid and are never reused); a `404` problem for absent and invalid keys, and for
 *   files {@link ServedKeys} does not serve (by default: uploads never finalized).
 *
 * The paths must match the paths of the store's `uploadBaseUrl` and `publicBaseUrl`.
 * Merge {@link layer} beside the server's other routes
 * (`Layer.mergeAll(CoursekitHttp.layerRoutes, LocalStorageRoutes.layer())`) and provide
 * `LocalObjectStore.layer` and a {@link ServedKeys} layer.
 *
 * @since 0.1.0
 */
import { Effect, type Layer, Option } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse, ProblemDetails } from "effect/http"
import { LocalUploads } from "./LocalUploads.ts"
import { ServedKeys } from "./ServedKeys.ts"

/** Where the routes are mounted. */
export interface RoutesOptions {
  /** The path of `uploadBaseUrl`. Default `/storage`. */
  readonly uploadPath?: `/${string}` | undefined
  /** The path of `publicBaseUrl`. Default `/files`. */
  readonly filesPath?: `/${string}` | undefined
}

const titles: Readonly<Record<number, string>> = {
  400: "Bad Request",
  403: "Forbidden",
  404: "Not Found",
  409: "Conflict",
  411: "Length Required",
  413: "Content Too Large",
  503: "Service Unavailable"
}

const problem = (status: number, detail: string) =>
  ProblemDetails.toResponse({ type: "about:blank", title: titles[status] ?? "Error", status, detail })

const storageUnavailable = (error: unknown) =>
  Effect.as(
    Effect.logError("local storage failed", error),
    problem(503, "The file storage did not complete the request; try again.")
  )

/** The key in the matched path, percent-decoded by the router. */
const keyParam = Effect.map(HttpRouter.params, (params) => params["*"] ?? "")

const upload = (uploads: LocalUploads["Service"]) =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const key = yield* keyParam
    const query = yield* HttpServerRequest.ParsedSearchParams
    return yield* uploads.receive({ key, query, headers: request.headers, body: request.stream }).pipe(
      Effect.as(HttpServerResponse.empty({ status: 200 })),
      Effect.catchTags({
        UploadRefused: (refused) => Effect.succeed(problem(refused.status, refused.detail)),
        StorageError: storageUnavailable
      })
    )
  })

// The stored type is the one the service signed; `sandbox` keeps any document type
// from running script on this origin all the same.
const servedHeaders = (etag: string, lastModified: string) => ({
  etag,
  "last-modified": lastModified,
  "cache-control": "public, max-age=31536000, immutable",
  "x-content-type-options": "nosniff",
  "content-security-policy": "sandbox"
})

const matchesEtag = (ifNoneMatch: string | undefined, etag: string) =>
  ifNoneMatch !== undefined &&
  (ifNoneMatch.trim() === "*" || ifNoneMatch.split(",").some((tag) => tag.trim().replace(/^W\//, "") === etag))

const notFound = () => problem(404, "No file is stored under this address.")

const serve = (uploads: LocalUploads["Service"], served: ServedKeys["Service"]) =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const key = yield* keyParam
    // The file stays open until the request's scope closes, after the body is sent. An
    // invalid key (NUL, traversal) is None here, before anything else is asked.
    const opened = yield* uploads.open(key)
    if (Option.isNone(opened)) return notFound()
    // An upload nobody finalized is not a file of this service.
    if (!(yield* served.isServed(key))) return notFound()
    const file = opened.value
    const headers = servedHeaders(file.etag, new Date(file.lastModified.epochMilliseconds).toUTCString())
    if (matchesEtag(request.headers["if-none-match"], file.etag)) {
      return HttpServerResponse.empty({ status: 304, headers })
    }
    // HEAD is routed here too; the server sends the headers and drops the body.
    return HttpServerResponse.stream(file.stream, {
      headers,
      contentType: file.contentType ?? "application/octet-stream",
      contentLength: file.size
    })
  }).pipe(Effect.catchTags({ StorageError: storageUnavailable, PersistenceError: storageUnavailable }))

const wildcard = (path: `/${string}`): `/${string}` => path.endsWith("/") ? `${path}*` : `${path}/*`

/**
 * Adds `PUT <uploadPath>/*` and `GET <filesPath>/*` (which answers `HEAD` as well) to
 * the `HttpRouter`. Needs {@link LocalUploads} (from `LocalObjectStore.layer`) and
 * {@link ServedKeys} (`ServedKeys.layerFinalized` behind Coursekit's uploads).
 */
export const layer = (
  options: RoutesOptions = {}
): Layer.Layer<never, never, HttpRouter.HttpRouter | LocalUploads | ServedKeys> => {
  const uploadPath = wildcard(options.uploadPath ?? "/storage")
  const filesPath = wildcard(options.filesPath ?? "/files")
  return HttpRouter.use(Effect.fnUntraced(function*(router) {
    const uploads = yield* LocalUploads
    const served = yield* ServedKeys
    yield* router.add("PUT", uploadPath, upload(uploads))
    yield* router.add("GET", filesPath, serve(uploads, served))
  }))
}
