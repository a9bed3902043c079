/**
 * The object storage port. Files never pass through the service: a client PUTs bytes to a
 * presigned URL, straight to the store, and the service then asks the store what arrived
 * (`head`). Adapters (S3 in `@coursekit/storage-s3`, local disk in
 * `@coursekit/storage-local`, the in-memory layer here) pass the conformance suite in
 * `@coursekit/core/testing`.
 *
 * @since 0.1.0
 */
import { Context, DateTime, Duration, Effect, Layer, Option, Ref, Schema } from "effect"
import { md5Hex } from "../shared/md5.ts"

/** The object store did not complete an operation; retrying may work. */
export class StorageError extends Schema.TaggedError<StorageError>()(
  "StorageError",
  {
    operation: Schema.String,
    cause: Schema.Defect()
  },
  { description: "The object storage did not complete the operation." }
) {
  override get message(): string {
    return `The object storage did not complete ${this.operation}.`
  }
}

/** What to sign: the store refuses a PUT that does not match it. */
export interface PutRequest {
  readonly key: string
  /** Signed: a PUT with another `Content-Type` is refused. */
  readonly contentType: string
  /** When given, signed as `Content-Length`: a PUT of another size is refused. */
  readonly contentLength?: number | undefined
  /**
   * Without a `contentLength`, the most bytes the PUT may carry (the purpose's limit).
   * Stores that can enforce it on an undeclared length do (local disk, memory); an S3
   * presigned PUT cannot, and there finalize's size check is the limit.
   */
  readonly maxLength?: number | undefined
  readonly expiresIn: Duration.Duration
}

/** A presigned PUT: send the bytes to `url` with exactly these `headers`. */
export interface PresignedPut {
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  readonly expiresAt: DateTime.Utc
}

/**
 * The headers a PUT to `request`'s URL must carry: `Content-Type`, and `Content-Length`
 * when a length was signed. For adapters, so every store hands clients the same set.
 */
export const presignedPutHeaders = (request: Pick<PutRequest, "contentType" | "contentLength">): Readonly<Record<string, string>> =>
  request.contentLength === undefined
    ? { "Content-Type": request.contentType }
    : { "Content-Type": request.contentType, "Content-Length": String(request.contentLength) }

/**
 * Keys under this prefix are private: a store serves them only through a signed GET
 * (`presignGet`), never at `publicUrl`, so a bucket policy or a CDN can expose every
 * other prefix and never this one.
 */
export const privateKeyPrefix = "private/"

/** Whether `key` is private (under {@link privateKeyPrefix}). */
export const isPrivateKey = (key: string): boolean => key.startsWith(privateKeyPrefix)

/** What to sign for reading: one key, for a while. */
export interface GetRequest {
  readonly key: string
  readonly expiresIn: Duration.Duration
  /**
   * The instant the URL is signed as of (default: now; never later than now). It is valid
   * until `issuedAt + expiresIn`, and the same key, `issuedAt` and `expiresIn` give the same
   * URL: a caller that rounds `issuedAt` down hands out one URL for a while, which
   * browsers, CDNs and the responses that carry it can cache.
   */
  readonly issuedAt?: DateTime.Utc | undefined
}

/** A signed GET: read the object at `url` until `expiresAt`. */
export interface PresignedGet {
  readonly url: string
  readonly expiresAt: DateTime.Utc
}

/** A multipart upload to start: the object's key and the type it will be stored with. */
export interface MultipartRequest {
  readonly key: string
  readonly contentType: string
  /**
   * The size of every part but the last, when the caller knows it (Coursekit's service
   * always does). A store may then lay each part out in place, at
   * `(partNumber − 1) × partSize`, instead of assembling a copy at completion; such a
   * store refuses a part larger than this, and a completion whose parts are not
   * 1…k with every part but the last exactly this size (see {@link ObjectStore}).
   */
  readonly partSize?: number | undefined
}

/**
 * What to sign for one part of a multipart upload. The presigned PUT's `headers` are
 * `Content-Length` alone (a part has no type of its own: see {@link presignedPartHeaders}).
 */
export interface PartRequest {
  readonly key: string
  readonly uploadId: string
  /** 1 to 10,000. */
  readonly partNumber: number
  /** Signed as `Content-Length`: a PUT of another size is refused. */
  readonly contentLength: number
  readonly expiresIn: Duration.Duration
}

/** A part the store holds, as `listParts` reports it. */
export interface StoredPart {
  readonly partNumber: number
  readonly size: number
  /** As the store answered the part's PUT (`ETag` header), quotes included. */
  readonly etag: string
}

/** A part named at completion: its number and the ETag its PUT answered (quotes optional, as S3 takes it). */
export interface CompletedPart {
  readonly partNumber: number
  readonly etag: string
}

/**
 * The store refused to complete a multipart upload, and changed nothing: the upload is
 * not there (never started, aborted, or completed already), or a part is missing, not
 * the one uploaded (another ETag), or too small (every part but the last must hold at
 * least {@link minPartSize} bytes). `partNumber` names the part at fault.
 */
export class MultipartRefused extends Schema.TaggedError<MultipartRefused>()(
  "MultipartRefused",
  {
    reason: Schema.Literals(["NoSuchUpload", "InvalidPart", "EntityTooSmall"]),
    partNumber: Schema.optionalKey(Schema.Int)
  },
  { description: "The store refused to complete the multipart upload." }
) {}

/** The headers a PUT of a part must carry: its signed `Content-Length`. For adapters, as {@link presignedPutHeaders}. */
export const presignedPartHeaders = (request: Pick<PartRequest, "contentLength">): Readonly<Record<string, string>> => ({
  "Content-Length": String(request.contentLength)
})

/** The smallest part but the last (S3's and R2's limit). */
export const minPartSize = 5 * 1024 * 1024

/** The most parts of one upload (S3's limit). */
export const maxPartCount = 10_000

/**
 * Why `request` cannot be signed: a part number outside 1 to {@link maxPartCount}, or a
 * length that is not a number of bytes. `undefined` when it can. For adapters.
 */
export const partRequestRefusal = (request: Pick<PartRequest, "partNumber" | "contentLength">): string | undefined =>
  !(Number.isInteger(request.partNumber) && request.partNumber >= 1 && request.partNumber <= maxPartCount)
    ? `Part number ${request.partNumber} is not between 1 and ${maxPartCount}`
    : !(Number.isSafeInteger(request.contentLength) && request.contentLength >= 0)
    ? `Content length ${request.contentLength} is not a number of bytes`
    : undefined

const unquoted = (etag: string) => etag.replace(/^"(.*)"$/, "$1")

/**
 * The index of the first of `partNumbers` not above the one before it (out of ascending
 * order, or named twice), or `undefined` when they ascend: a completion lists its parts
 * so, as S3 requires (`InvalidPartOrder`).
 */
export const firstOutOfOrder = (partNumbers: ReadonlyArray<number>): number | undefined => {
  for (let index = 1; index < partNumbers.length; index++) {
    if (partNumbers[index]! <= partNumbers[index - 1]!) return index
  }
  return undefined
}

/**
 * Why completing with `parts` is refused, given the parts a store holds (`stored` of a
 * part number: its size and ETag, `undefined` when absent), or `undefined` when it may go
 * on: the port's rules in one place, for adapters that check before they assemble (the
 * memory and local stores; S3 checks them itself).
 */
export const completionRefusal = (
  parts: ReadonlyArray<CompletedPart>,
  stored: (partNumber: number) => { readonly size: number; readonly etag: string } | undefined
): MultipartRefused | undefined => {
  if (parts.length === 0) return new MultipartRefused({ reason: "InvalidPart" })
  const disorder = firstOutOfOrder(parts.map((part) => part.partNumber))
  for (const [index, part] of parts.entries()) {
    if (index === disorder) return new MultipartRefused({ reason: "InvalidPart", partNumber: part.partNumber })
    const held = stored(part.partNumber)
    if (held === undefined || unquoted(held.etag) !== unquoted(part.etag)) {
      return new MultipartRefused({ reason: "InvalidPart", partNumber: part.partNumber })
    }
  }
  for (const [index, part] of parts.entries()) {
    if (index < parts.length - 1 && stored(part.partNumber)!.size < minPartSize) {
      return new MultipartRefused({ reason: "EntityTooSmall", partNumber: part.partNumber })
    }
  }
  return undefined
}

/** A multipart upload in the memory store. */
interface MemoryUpload {
  readonly key: string
  readonly contentType: string
  /** Its start, or its last part's PUT: what `removeIncomplete` compares. */
  readonly lastWrite: DateTime.Utc
  readonly parts: ReadonlyMap<number, { readonly bytes: Uint8Array; readonly etag: string }>
}

/** What the store says about an object (`head`). */
export interface ObjectInfo {
  readonly size: number
  /** As the store recorded it from the PUT. */
  readonly contentType: string | undefined
  readonly lastModified: DateTime.Utc
}

/** One object of a listing. */
export interface ListedObject {
  readonly key: string
  readonly size: number
  readonly lastModified: DateTime.Utc
}

/** One page of a listing; `next` continues it. */
export interface ObjectPage {
  readonly objects: ReadonlyArray<ListedObject>
  readonly next: string | undefined
}

/**
 * Stores files under keys (`courses/12/<uuid>.png`).
 *
 * - `presignPut` signs a PUT of one object: content type always, length when given,
 *   valid until `expiresAt`. An upload either lands whole or not at all.
 * - `presignGet` signs a GET of one object, valid until `expiresAt` (whole seconds, never
 *   later than asked); equal requests (with an `issuedAt`) give equal URLs. The URL answers the bytes with `Cache-Control: private` (never
 *   `immutable`) and single `Range` requests with 206; once its key, expiry or signature
 *   is changed, or its expiry has passed, it is refused (403). Keys under
 *   {@link privateKeyPrefix} are readable only this way.
 * - `head` is `None` for an absent key.
 * - `delete` of an absent key succeeds.
 * - `list` pages through keys that start with `prefix`, in ascending key order,
 *   at most `limit` per page.
 * - `removeIncomplete` removes what uploads that never completed left behind (a killed
 *   process's temporary files, a multipart upload never completed) and that nothing
 *   has written to since `before`; it answers how many it removed. A store whose PUTs
 *   land whole or leave nothing (the memory store, S3 single PUTs) has none to remove.
 *   It covers the keys under the service's prefixes (`keyPrefixes`); a store that may
 *   be shared with other applications (an S3 bucket) leaves everything else alone.
 * - Multipart uploads, for files too large for one PUT: `createMultipart` starts one and
 *   answers its upload id; `presignPart` signs the PUT of one part (its length signed,
 *   valid until `expiresAt`; the PUT answers the part's `ETag`, and a part uploaded again
 *   replaces it); `listParts` answers the parts held now in part-number order (`None`
 *   for an upload that is not there); `completeMultipart` assembles the named parts, in
 *   order, into the object under the key (content type as started) and ends the upload,
 *   or fails with `MultipartRefused` and changes nothing — the named parts must be at
 *   least one, in ascending part-number order, each once (else `InvalidPart` naming the
 *   first out of place; none named for an empty list, as S3's `InvalidPartOrder` and
 *   `MalformedXML`); a part number outside 1 to {@link maxPartCount} or a length that is not a
 *   number of bytes is a `StorageError` of `presignPart`; `abortMultipart` ends an upload
 *   and frees its parts (an absent one is fine). Nothing is readable under the key
 *   before completion. An upload nobody completes or aborts stays until
 *   `removeIncomplete` removes it. An upload started with a `partSize` may be held to
 *   it: a part PUT larger than `partSize` refused (413), and a completion refused unless
 *   its parts are 1…k (else `InvalidPart` naming the first missing) with every part but
 *   the last of exactly `partSize` bytes (else `EntityTooSmall` naming it); a part
 *   being uploaded again is not held until its new bytes are (the local store, which
 *   writes parts in place); stores that ignore `partSize` (S3) keep S3's rules.
 * - `publicUrl` is where the store itself serves a key (a CDN may front it: see
 *   `FileUrl`); `check` answers when the store is reachable (readiness).
 */
export class ObjectStore extends Context.Service<ObjectStore, {
  presignPut(request: PutRequest): Effect.Effect<PresignedPut, StorageError>
  presignGet(request: GetRequest): Effect.Effect<PresignedGet, StorageError>
  createMultipart(request: MultipartRequest): Effect.Effect<string, StorageError>
  presignPart(request: PartRequest): Effect.Effect<PresignedPut, StorageError>
  listParts(key: string, uploadId: string): Effect.Effect<Option.Option<ReadonlyArray<StoredPart>>, StorageError>
  completeMultipart(key: string, uploadId: string, parts: ReadonlyArray<CompletedPart>): Effect.Effect<void, StorageError | MultipartRefused>
  abortMultipart(key: string, uploadId: string): Effect.Effect<void, StorageError>
  head(key: string): Effect.Effect<Option.Option<ObjectInfo>, StorageError>
  delete(key: string): Effect.Effect<void, StorageError>
  list(prefix: string, options?: {
    readonly after?: string | undefined
    readonly limit?: number | undefined
  }): Effect.Effect<ObjectPage, StorageError>
  removeIncomplete(before: DateTime.Utc): Effect.Effect<number, StorageError>
  publicUrl(key: string): string
  readonly check: Effect.Effect<void, StorageError>
}>()("@coursekit/core/ObjectStore") {
  /**
   * An in-memory store, with {@link MemoryObjectStore} to play the client's PUT: for
   * use-case tests and for trying the core without storage.
   */
  static readonly layerMemory: Layer.Layer<ObjectStore | MemoryObjectStore> = Layer.effectContext(
    Effect.gen(function*() {
      const objects = yield* Ref.make(new Map<string, { readonly bytes: Uint8Array; readonly info: ObjectInfo }>())
      const signed = yield* Ref.make(new Map<string, PutRequest & { readonly expiresAt: DateTime.Utc }>())
      const signedGets = yield* Ref.make(new Map<string, { readonly key: string; readonly expiresAt: DateTime.Utc }>())
      const uploads = yield* Ref.make(new Map<string, MemoryUpload>())
      const signedParts = yield* Ref.make(new Map<string, PartRequest & { readonly expiresAt: DateTime.Utc }>())
      let issued = 0
      const getSignatures = new Map<string, number>()
      /** The upload `uploadId` of `key`, if it is there. */
      const uploadOf = (key: string, uploadId: string) =>
        Effect.map(Ref.get(uploads), (map) => Option.filter(Option.fromNullishOr(map.get(uploadId)), (upload) => upload.key === key))
      const withoutUpload = (uploadId: string) =>
        Ref.update(uploads, (map) => {
          const next = new Map(map)
          next.delete(uploadId)
          return next
        })

      const store = ObjectStore.of({
        presignPut: Effect.fn("ObjectStore.presignPut")(function*(request: PutRequest) {
          const expiresAt = DateTime.addDuration(yield* DateTime.now, request.expiresIn)
          const url = `memory://objects/${encodeURIComponent(request.key)}?signature=${++issued}`
          yield* Ref.update(signed, (map) => new Map(map).set(url, { ...request, expiresAt }))
          const headers = presignedPutHeaders(request)
          return { url, headers, expiresAt }
        }),
        presignGet: Effect.fn("ObjectStore.presignGet")(function*(request: GetRequest) {
          const now = DateTime.toEpochMillis(yield* DateTime.now)
          const from = request.issuedAt === undefined ? now : Math.min(DateTime.toEpochMillis(request.issuedAt), now)
          // Whole seconds, rounded down, as the real stores sign them.
          const expiresAt = DateTime.makeUnsafe(Math.floor((from + Duration.toMillis(request.expiresIn)) / 1000) * 1000)
          const expires = DateTime.toEpochMillis(expiresAt) / 1000
          // Equal requests, equal URLs: the "signature" of a key and an expiry is issued once.
          const signature = getSignatures.get(`${request.key}\n${expires}`) ?? ++issued
          getSignatures.set(`${request.key}\n${expires}`, signature)
          const url = `memory://files/${encodeURIComponent(request.key)}?expires=${expires}&signature=${signature}`
          yield* Ref.update(signedGets, (map) => new Map(map).set(url, { key: request.key, expiresAt }))
          return { url, expiresAt }
        }),
        createMultipart: Effect.fn("ObjectStore.createMultipart")(function*(request: MultipartRequest) {
          const uploadId = `upload-${++issued}-${Math.random().toString(36).slice(2, 10)}`
          const upload: MemoryUpload = { key: request.key, contentType: request.contentType, lastWrite: yield* DateTime.now, parts: new Map() }
          yield* Ref.update(uploads, (map) => new Map(map).set(uploadId, upload))
          return uploadId
        }),
        presignPart: Effect.fn("ObjectStore.presignPart")(function*(request: PartRequest) {
          const refused = partRequestRefusal(request)
          if (refused !== undefined) return yield* new StorageError({ operation: "presignPart", cause: new Error(refused) })
          const expiresAt = DateTime.addDuration(yield* DateTime.now, request.expiresIn)
          const url = `memory://parts/${encodeURIComponent(request.key)}?uploadId=${encodeURIComponent(request.uploadId)}&partNumber=${request.partNumber}&signature=${++issued}`
          yield* Ref.update(signedParts, (map) => new Map(map).set(url, { ...request, expiresAt }))
          return { url, headers: presignedPartHeaders(request), expiresAt }
        }),
        listParts: (key, uploadId) =>
          Effect.map(uploadOf(key, uploadId), (upload) =>
            Option.map(upload, (upload) =>
              [...upload.parts.entries()]
                .sort(([a], [b]) => a - b)
                .map(([partNumber, part]): StoredPart => ({ partNumber, size: part.bytes.byteLength, etag: part.etag })))),
        completeMultipart: Effect.fn("ObjectStore.completeMultipart")(function*(key: string, uploadId: string, parts: ReadonlyArray<CompletedPart>) {
          const found = yield* uploadOf(key, uploadId)
          if (Option.isNone(found)) return yield* new MultipartRefused({ reason: "NoSuchUpload" })
          const upload = found.value
          const refusal = completionRefusal(parts, (partNumber) => {
            const part = upload.parts.get(partNumber)
            return part === undefined ? undefined : { size: part.bytes.byteLength, etag: part.etag }
          })
          if (refusal !== undefined) return yield* refusal
          const chosen = parts.map(({ partNumber }) => upload.parts.get(partNumber)!.bytes)
          const body = new Uint8Array(chosen.reduce((total, bytes) => total + bytes.byteLength, 0))
          chosen.reduce((offset, bytes) => {
            body.set(bytes, offset)
            return offset + bytes.byteLength
          }, 0)
          const info: ObjectInfo = { size: body.byteLength, contentType: upload.contentType, lastModified: yield* DateTime.now }
          yield* Ref.update(objects, (map) => new Map(map).set(key, { bytes: body, info }))
          yield* withoutUpload(uploadId)
        }),
        abortMultipart: (key, uploadId) =>
          Effect.flatMap(uploadOf(key, uploadId), (upload) => Option.isSome(upload) ? withoutUpload(uploadId) : Effect.void),
        head: (key) => Effect.map(Ref.get(objects), (map) => Option.map(Option.fromNullishOr(map.get(key)), (object) => object.info)),
        delete: (key) =>
          Ref.update(objects, (map) => {
            const next = new Map(map)
            next.delete(key)
            return next
          }),
        list: (prefix, options) =>
          Effect.map(Ref.get(objects), (map) => {
            const limit = options?.limit ?? 1000
            const keys = [...map.keys()].filter((key) => key.startsWith(prefix) && (options?.after === undefined || key > options.after)).sort()
            const page = keys.slice(0, limit)
            return {
              objects: page.map((key) => ({ key, size: map.get(key)!.info.size, lastModified: map.get(key)!.info.lastModified })),
              next: keys.length > limit ? page[page.length - 1] : undefined
            }
          }),
        // A PUT here is one map update: nothing partial is ever left but multipart uploads.
        removeIncomplete: (before) =>
          Ref.modify(uploads, (map) => {
            const next = new Map([...map].filter(([, upload]) => DateTime.isGreaterThanOrEqualTo(upload.lastWrite, before)))
            return [map.size - next.size, next] as const
          }),
        publicUrl: (key) => `memory://files/${key}`,
        check: Effect.void
      })

      const memory = MemoryObjectStore.of({
        put: Effect.fn("MemoryObjectStore.put")(function*(url: string, headers: Readonly<Record<string, string>>, body: Uint8Array) {
          const refused: MemoryPut = { _tag: "Refused" }
          const request = (yield* Ref.get(signed)).get(url)
          if (request === undefined) return refused
          const now = yield* DateTime.now
          if (DateTime.isGreaterThanOrEqualTo(now, request.expiresAt)) return refused
          const header = (name: string) => Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1]
          if (header("content-type") !== request.contentType) return refused
          if (request.contentLength !== undefined && body.byteLength !== request.contentLength) return refused
          if (request.contentLength === undefined && request.maxLength !== undefined && body.byteLength > request.maxLength) {
            return { _tag: "TooLarge" } satisfies MemoryPut
          }
          const info: ObjectInfo = { size: body.byteLength, contentType: request.contentType, lastModified: now }
          yield* Ref.update(objects, (map) => new Map(map).set(request.key, { bytes: body, info }))
          return { _tag: "Stored" } satisfies MemoryPut
        }),
        putPart: Effect.fn("MemoryObjectStore.putPart")(function*(url: string, _headers: Readonly<Record<string, string>>, body: Uint8Array) {
          const refused: MemoryPutPart = { _tag: "Refused" }
          const request = (yield* Ref.get(signedParts)).get(url)
          if (request === undefined) return refused
          const now = yield* DateTime.now
          if (DateTime.isGreaterThanOrEqualTo(now, request.expiresAt)) return refused
          if (body.byteLength !== request.contentLength) return refused
          const upload = (yield* Ref.get(uploads)).get(request.uploadId)
          // As S3's NoSuchUpload, for an upload aborted or completed.
          if (upload === undefined || upload.key !== request.key) return { _tag: "NoSuchUpload" } satisfies MemoryPutPart
          const etag = `"${md5Hex(body)}"`
          const parts = new Map(upload.parts).set(request.partNumber, { bytes: body, etag })
          yield* Ref.update(uploads, (map) => new Map(map).set(request.uploadId, { ...upload, parts, lastWrite: now }))
          return { _tag: "Stored", etag } satisfies MemoryPutPart
        }),
        get: Effect.fn("MemoryObjectStore.get")(function*(url: string) {
          const request = (yield* Ref.get(signedGets)).get(url)
          if (request === undefined || DateTime.isGreaterThanOrEqualTo(yield* DateTime.now, request.expiresAt)) {
            return { _tag: "Refused" } satisfies MemoryGet
          }
          const object = (yield* Ref.get(objects)).get(request.key)
          return (object === undefined ? { _tag: "NotFound" } : { _tag: "Found", body: object.bytes }) satisfies MemoryGet
        }),
        read: (key) => Effect.map(Ref.get(objects), (map) => Option.map(Option.fromNullishOr(map.get(key)), (object) => object.bytes)),
        putObject: (key, body, contentType) =>
          Effect.gen(function*() {
            const now = yield* DateTime.now
            yield* Ref.update(objects, (map) => new Map(map).set(key, { bytes: body, info: { size: body.byteLength, contentType, lastModified: now } }))
          })
      })

      return Context.make(ObjectStore, store).pipe(Context.add(MemoryObjectStore, memory))
    })
  )
}

/**
 * What a PUT to a presigned URL came to in the memory store:
 * - `Stored`: the object landed under the signed key.
 * - `Refused`: the URL was not issued or has expired, or the `Content-Type` or the
 *   length is not the signed one; nothing was stored.
 * - `TooLarge`: no length was signed and the body is over the signed `maxLength`.
 */
export type MemoryPut =
  | { readonly _tag: "Stored" }
  | { readonly _tag: "Refused" }
  | { readonly _tag: "TooLarge" }

/**
 * What a PUT of a part came to in the memory store:
 * - `Stored`: the part landed (replacing one of its number); `etag` is what S3 would
 *   answer for it, `"<md5 hex>"`, quotes included.
 * - `Refused`: the URL was not issued or has expired, or the body is not the signed length.
 * - `NoSuchUpload`: the upload is no longer there (aborted or completed).
 */
export type MemoryPutPart =
  | { readonly _tag: "Stored"; readonly etag: string }
  | { readonly _tag: "Refused" }
  | { readonly _tag: "NoSuchUpload" }

/**
 * What a GET of a signed URL came to in the memory store:
 * - `Found`: the object's bytes.
 * - `Refused`: the URL was not issued or has expired.
 * - `NotFound`: nothing is stored under the key.
 */
export type MemoryGet =
  | { readonly _tag: "Found"; readonly body: Uint8Array }
  | { readonly _tag: "Refused" }
  | { readonly _tag: "NotFound" }

/**
 * The in-memory store's side of a client: what a PUT to a presigned URL or a GET of a
 * signed one does. It answers in the store's words, no HTTP statuses: a test that
 * compares it with stores on HTTP maps them itself.
 */
export class MemoryObjectStore extends Context.Service<MemoryObjectStore, {
  /** A PUT to a URL from `presignPut` (see {@link MemoryPut}). */
  put(url: string, headers: Readonly<Record<string, string>>, body: Uint8Array): Effect.Effect<MemoryPut>
  /** A PUT of a part to a URL from `presignPart` (see {@link MemoryPutPart}). */
  putPart(url: string, headers: Readonly<Record<string, string>>, body: Uint8Array): Effect.Effect<MemoryPutPart>
  /** A GET of a URL from `presignGet` (see {@link MemoryGet}). */
  get(url: string): Effect.Effect<MemoryGet>
  /** The bytes stored under `key`. */
  read(key: string): Effect.Effect<Option.Option<Uint8Array>>
  /** Stores an object directly, as something beside the service would. */
  putObject(key: string, body: Uint8Array, contentType: string): Effect.Effect<void>
}>()("@coursekit/core/MemoryObjectStore") {}
