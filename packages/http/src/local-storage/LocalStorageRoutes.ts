/**
 * The HTTP routes of the local disk store (`@coursekit/storage-local`), for the
 * standalone server. A subpath of its own (`@coursekit/http/local-storage`): the main
 * entry never loads it, so a host on an edge runtime never loads `node:fs`.
 *
 * - `PUT <uploadPath>/<key>`: an upload to a signed URL ({@link LocalTransfers.receive});
 *   `200` with an empty body, else an RFC 9457 problem (400, 403, 409, 411, 413, 503).
 * - `PUT <uploadPath>/<key>?uploadId=…&partNumber=…&…`: a part of a multipart upload
 *   (told from a whole upload by its query; {@link LocalTransfers.receivePart}); `200` with
 *   an empty body and `ETag: "<md5 hex>"`, which the client names at completion, with
 *   `Access-Control-Expose-Headers: ETag` (a browser on another origin reads the ETag only
 *   when it is exposed; these routes send no other CORS header: a proxy that adds them
 *   must keep that one). Else a problem: 403 for a signature, part number, upload id or
 *   length other than signed and past the expiry, 404 when the upload is not there
 *   (aborted or completed: start a new one), 400, 411 and 413 for a body of another length.
 * - `GET`/`HEAD <filesPath>/<key>[?expires=…&signature=…]`: the file, streamed, with its
 *   stored type, `Content-Length`, `ETag` (`If-None-Match` answers `304`), `nosniff` and
 *   `Accept-Ranges: bytes`. Who may read ({@link LocalTransfers.authorizeRead}) is decided
 *   before the file is looked at: a URL carrying `expires` or `signature` must be a valid,
 *   unexpired read URL for its key, and a key under `private/` is served only at one;
 *   else a `403` problem. A signed read is cached `private` until the URL expires; an
 *   unsigned one a year, immutable (keys contain a uuid and are never reused).
 *   One byte range (RFC 9110: `bytes=a-b`, `bytes=a-`, `bytes=-n`) answers `206` with
 *   `Content-Range` and just those bytes, read from the file as they stream; a range
 *   starting past the end `416`, its `Content-Range` giving the size alone; several ranges,
 *   another unit, a malformed header or an `If-Range` other than the ETag the whole file
 *   (`200`), as the RFC allows. `HEAD` answers the same headers without a body. A `404`
 *   problem for absent and invalid keys, and for files {@link ServedKeys} does not serve
 *   (by default: uploads never finalized); `503` when the disk fails.
 *
 * The paths must match the paths of the store's `uploadBaseUrl` and `publicBaseUrl`.
 * Merge {@link layer} beside the server's other routes
 * (`Layer.mergeAll(CoursekitHttp.layerRoutes, LocalStorageRoutes.layer())`, with
 * `import * as LocalStorageRoutes from "@coursekit/http/local-storage"`) and provide
 * `LocalObjectStore.layer` and a {@link ServedKeys} layer.
 *
 * @since 0.1.0
 */
import { isPartUpload, LocalTransfers, type ReadRefusalReason, type RefusalReason, ServedKeys } from "@coursekit/storage-local"
import { Clock, Effect, type Layer, Option } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { problem } from "../edge/EdgeMiddleware.ts"
import type { ProblemStatus } from "../problems/Problems.ts"

/** Where the routes are mounted. */
export interface RoutesOptions {
  /** The path of `uploadBaseUrl`. Default `/storage`. */
  readonly uploadPath?: `/${string}` | undefined
  /** The path of `publicBaseUrl`. Default `/files`. */
  readonly filesPath?: `/${string}` | undefined
}

/**
 * The status of each refusal of the store (`RefusalReason` of uploads, `ReadRefusalReason`
 * of reads). The two share a name only where it means the same: a bad, misspelled or
 * expired signature, 403.
 */
const refusalStatus = {
  InvalidKey: 400,
  LengthMismatch: 400,
  Incomplete: 400,
  BadSignature: 403,
  NotSignedForm: 403,
  Expired: 403,
  TypeMismatch: 403,
  Private: 403,
  // Aborted or completed: the client starts a new upload.
  NoSuchUpload: 404,
  Conflict: 409,
  AlreadyStored: 409,
  // The newer PUT of the same part goes on.
  Superseded: 409,
  LengthRequired: 411,
  TooLarge: 413,
  // Being completed or aborted: a retry finds the upload open, or gone (404).
  Completing: 503
} satisfies Record<RefusalReason | ReadRefusalReason, ProblemStatus>

const refusal = (refused: { readonly reason: RefusalReason | ReadRefusalReason; readonly detail: string }) =>
  Effect.succeed(problem(refusalStatus[refused.reason], refused.detail))

const storageUnavailable = (error: unknown) =>
  Effect.as(
    Effect.logError("local storage failed", error),
    problem(503, "The file storage did not complete the request; try again.")
  )

/** The key in the matched path, percent-decoded by the router. */
const keyParam = Effect.map(HttpRouter.params, (params) => params["*"] ?? "")

/**
 * What follows `base` (the routes' `<path>/`) in `url`, exactly as received: the key's
 * path still percent-encoded, and the query. A URL that does not start with `base` as
 * written (its base spelled otherwise) is all of it, which no signed form equals.
 */
const targetOf = (url: string, base: string) => url.startsWith(base) ? url.slice(base.length) : url

const upload = (uploads: LocalTransfers["Service"], base: string) =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const key = yield* keyParam
    const query = yield* HttpServerRequest.ParsedSearchParams
    const target = targetOf(request.url, base)
    if (isPartUpload(query)) {
      return yield* uploads.receivePart({ key, query, target, headers: request.headers, body: request.stream }).pipe(
        Effect.map((part) =>
          HttpServerResponse.empty({
            status: 200,
            // Cross-origin, a browser reads the ETag only when it is exposed.
            headers: { etag: part.etag, "access-control-expose-headers": "ETag" }
          })
        ),
        Effect.catchTags({
          UploadRefused: refusal,
          StorageError: storageUnavailable
        })
      )
    }
    return yield* uploads.receive({ key, query, target, headers: request.headers, body: request.stream }).pipe(
      Effect.as(HttpServerResponse.empty({ status: 200 })),
      Effect.catchTags({
        UploadRefused: refusal,
        StorageError: storageUnavailable
      })
    )
  })

// The stored type is the one the service signed; `sandbox` keeps any document type
// from running script on this origin all the same.
const servedHeaders = (etag: string, lastModified: string, cacheControl: string) => ({
  etag,
  "last-modified": lastModified,
  "cache-control": cacheControl,
  "accept-ranges": "bytes",
  "x-content-type-options": "nosniff",
  "content-security-policy": "sandbox"
})

/** Unsigned reads are of public keys, which contain a uuid and never change. */
const publicCaching = "public, max-age=31536000, immutable"

/** What a `Range` header asks of a file: all of it, bytes `start` up to (not including) `end`, or nothing it has. */
type RangeAnswer =
  | { readonly _tag: "Whole" }
  | { readonly _tag: "Partial"; readonly start: number; readonly end: number }
  | { readonly _tag: "Unsatisfiable" }

const whole: RangeAnswer = { _tag: "Whole" }

/**
 * The answer to `range` (RFC 9110 §14.1.2) for a file of `size` bytes with `etag`. Only
 * one range is served; anything else a server may ignore, and this one does (the whole
 * file): several ranges, another unit, a malformed or backwards range, and an `If-Range`
 * other than the file's strong ETag (a date included).
 */
const rangeOf = (range: string | undefined, ifRange: string | undefined, size: number, etag: string): RangeAnswer => {
  if (range === undefined) return whole
  if (ifRange !== undefined && ifRange.trim() !== etag) return whole
  const match = /^bytes=(\d*)-(\d*)$/i.exec(range.trim())
  if (match === null) return whole
  const [first, last] = [match[1]!, match[2]!]
  if (first === "") {
    if (last === "") return whole
    // The last `suffix` bytes (the whole file when it is shorter).
    const suffix = Number(last)
    if (suffix === 0) return { _tag: "Unsatisfiable" }
    return size === 0 ? whole : { _tag: "Partial", start: Math.max(0, size - suffix), end: size }
  }
  const start = Number(first)
  if (last !== "" && Number(last) < start) return whole
  if (start >= size) return { _tag: "Unsatisfiable" }
  // A last byte past the end means up to the end. Digits beyond 2^53 are only ever past it.
  return { _tag: "Partial", start, end: last === "" ? size : Math.min(Number(last) + 1, size) }
}

const matchesEtag = (ifNoneMatch: string | undefined, etag: string) =>
  ifNoneMatch !== undefined &&
  (ifNoneMatch.trim() === "*" || ifNoneMatch.split(",").some((tag) => tag.trim().replace(/^W\//, "") === etag))

const notFound = () => problem(404, "No file is stored under this address.")

const serve = (uploads: LocalTransfers["Service"], served: ServedKeys["Service"], base: string) =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const key = yield* keyParam
    const query = yield* HttpServerRequest.ParsedSearchParams
    // Before the file is looked at: without a valid signature, whether a private key
    // exists is not told.
    const access = yield* uploads.authorizeRead({ key, query, target: targetOf(request.url, base) })
    // The file stays open until the request's scope closes, after the body is sent. An
    // invalid key (NUL, traversal) is None here, before anything else is asked.
    const opened = yield* uploads.open(key)
    if (Option.isNone(opened)) return notFound()
    // An upload nobody finalized is not a file of this service, signed URL or not.
    if (!(yield* served.isServed(key))) return notFound()
    const file = opened.value
    // A signed read is one viewer's: no shared cache keeps it, and none past the URL's expiry.
    const cacheControl = access._tag === "Signed"
      ? `private, max-age=${Math.max(0, Math.floor((access.expiresAt.epochMilliseconds - (yield* Clock.currentTimeMillis)) / 1000))}`
      : publicCaching
    const headers = servedHeaders(file.etag, new Date(file.lastModified.epochMilliseconds).toUTCString(), cacheControl)
    if (matchesEtag(request.headers["if-none-match"], file.etag)) {
      return HttpServerResponse.empty({ status: 304, headers })
    }
    const contentType = file.contentType ?? "application/octet-stream"
    const range = rangeOf(request.headers["range"], request.headers["if-range"], file.size, file.etag)
    // HEAD is routed here too; the server sends the headers (of a 206 or 416 as well) and drops the body.
    switch (range._tag) {
      case "Whole":
        return HttpServerResponse.stream(file.stream, { headers, contentType, contentLength: file.size })
      case "Partial":
        return HttpServerResponse.stream(file.slice(range.start, range.end), {
          status: 206,
          headers: { ...headers, "content-range": `bytes ${range.start}-${range.end - 1}/${file.size}` },
          contentType,
          contentLength: range.end - range.start
        })
      case "Unsatisfiable":
        return problem(416, `The file has ${file.size} bytes; the range asks for none of them.`).pipe(
          HttpServerResponse.setHeader("content-range", `bytes */${file.size}`)
        )
    }
  }).pipe(Effect.catchTags({
    ReadRefused: refusal,
    StorageError: storageUnavailable,
    PersistenceError: storageUnavailable
  }))

const wildcard = (path: `/${string}`): `/${string}` => path.endsWith("/") ? `${path}*` : `${path}/*`

/**
 * Adds `PUT <uploadPath>/*` and `GET <filesPath>/*` (which answers `HEAD` as well) to
 * the `HttpRouter`. Needs {@link LocalTransfers} (from `LocalObjectStore.layer`) and
 * {@link ServedKeys} (`ServedKeys.layerFinalized` behind Coursekit's uploads).
 */
export const layer = (
  options: RoutesOptions = {}
): Layer.Layer<never, never, HttpRouter.HttpRouter | LocalTransfers | ServedKeys> => {
  const uploadPath = wildcard(options.uploadPath ?? "/storage")
  const filesPath = wildcard(options.filesPath ?? "/files")
  return HttpRouter.use(Effect.fnUntraced(function*(router) {
    const uploads = yield* LocalTransfers
    const served = yield* ServedKeys
    // The wildcards' bases (`/storage/`): what follows them is each request's target.
    yield* router.add("PUT", uploadPath, upload(uploads, uploadPath.slice(0, -1)))
    yield* router.add("GET", filesPath, serve(uploads, served, filesPath.slice(0, -1)))
  }))
}
