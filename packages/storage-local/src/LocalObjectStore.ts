/**
 * Coursekit's `ObjectStore` on local disk: the embedded default, for a single server
 * that keeps its files in its data directory. Uploads are PUTs to URLs signed with an
 * HMAC key and received by {@link LocalTransfers}; files are served by the routes in
 * `LocalStorageRoutes` (`@coursekit/http/local-storage`), private ones (under
 * `private/`) only at read URLs signed with the same key (`presignGet`). It passes the `ObjectStore` conformance suite over real HTTP.
 *
 * One process owns a root: the commit lock that keeps an object's bytes and content
 * type together is in memory.
 *
 * @since 0.1.0
 */
import {
  type CompletedPart,
  type GetRequest,
  type MultipartRequest,
  type ObjectInfo,
  type ObjectPage,
  ObjectStore,
  type PartRequest,
  partRequestRefusal,
  type PresignedGet,
  presignedPartHeaders,
  presignedPutHeaders,
  type PutRequest,
  StorageError
} from "@coursekit/core"
import { Context, DateTime, type Duration, Effect, Layer, Option, Redacted, Result, Semaphore } from "effect"
import { constants } from "node:fs"
import * as fs from "node:fs/promises"
import * as LocalDisk from "./LocalDisk.ts"
import * as LocalMultipart from "./LocalMultipart.ts"
import { commitObject, fromDisk as uploadsFromDisk, LocalTransfers } from "./LocalTransfers.ts"
import * as UrlSignature from "./UrlSignature.ts"

/** Options of {@link layer}. */
export interface Options {
  /** The directory holding the files; created (mode 0700) when missing. */
  readonly root: string
  /**
   * Where upload URLs point, e.g. `http://127.0.0.1:3000/storage` (see `LocalStorageRoutes`).
   * A function is read on every use: a server on an ephemeral port knows its URL only
   * once it listens.
   */
  readonly uploadBaseUrl: string | (() => string)
  /** Where files are served, e.g. `http://127.0.0.1:3000/files`; a function as above. */
  readonly publicBaseUrl: string | (() => string)
  /** The HMAC-SHA256 key upload and read URLs are signed with (at least 16 characters). */
  readonly secret: Redacted.Redacted<string>
  /** The size cap of an upload whose URL signs no length. Default 5 GiB. */
  readonly maxUploadBytes?: number | undefined
}

/** 5 GiB, S3's limit for one PUT. */
export const defaultMaxUploadBytes = 5 * 1024 * 1024 * 1024

/** Most objects of one `list` page (S3's limit). */
const maxPageSize = 1000

// A header value a client can send unchanged: visible ASCII, inner spaces only
// (parsers trim the ends, which would break the exact match the receiver checks).
const headerValue = /^[\x21-\x7e](?:[\x20-\x7e]{0,253}[\x21-\x7e])?$/

const withoutTrailingSlash = (url: string) => url.replace(/\/+$/, "")

const startError = (reason: string) => new StorageError({ operation: "start", cause: new Error(reason) })

/** The path of `key`, or a `StorageError` of `operation` when the key is refused. */
const guard = (disk: LocalDisk.LocalDisk, operation: string, key: string) => {
  const resolved = LocalDisk.resolveKey(disk.root, key)
  return Result.isFailure(resolved)
    ? Effect.fail(new StorageError({ operation, cause: resolved.failure }))
    : Effect.succeed(resolved.success)
}

/**
 * A URL's `expires`: `from + expiresIn` in whole seconds, rounded down, so the URL never
 * outlives what was asked. The route reads at most 12 digits back: a longer expiry (an
 * infinite one) could never be used, and is refused.
 */
const expiresOf = (operation: string, from: DateTime.Utc, expiresIn: Duration.Duration): Effect.Effect<number, StorageError> => {
  const expires = Math.floor(DateTime.toEpochMillis(DateTime.addDuration(from, expiresIn)) / 1000)
  return Number.isSafeInteger(expires) && expires <= UrlSignature.maxExpires
    ? Effect.succeed(expires)
    : Effect.fail(new StorageError({ operation, cause: new Error(`Expiry ${expires} cannot be signed`) }))
}

/** Removes a regular file; absent (or a directory, as a key's path may be) is fine. */
const unlinkFile = async (file: string) => {
  try {
    if ((await fs.lstat(file)).isDirectory()) return
    await fs.unlink(file)
  } catch (error) {
    if (!LocalDisk.isMissing(error)) throw error
  }
}

/**
 * The store and its {@link LocalTransfers} receiver on `options.root`. Fails with a
 * `StorageError` when the root cannot be created or the options are unusable.
 */
export const layer = (options: Options): Layer.Layer<ObjectStore | LocalTransfers, StorageError> =>
  Layer.effectContext(Effect.gen(function*() {
    const uploadBase = () => withoutTrailingSlash(typeof options.uploadBaseUrl === "string" ? options.uploadBaseUrl : options.uploadBaseUrl())
    const publicBase = () => withoutTrailingSlash(typeof options.publicBaseUrl === "string" ? options.publicBaseUrl : options.publicBaseUrl())
    if (!URL.canParse(uploadBase())) return yield* startError("uploadBaseUrl is not an absolute URL")
    if (!URL.canParse(publicBase())) return yield* startError("publicBaseUrl is not an absolute URL")
    const secret = options.secret
    if (Redacted.value(secret).length < 16) return yield* startError("the signing secret is shorter than 16 characters")
    const maxUploadBytes = options.maxUploadBytes ?? defaultMaxUploadBytes
    if (!Number.isSafeInteger(maxUploadBytes) || maxUploadBytes < 0) {
      return yield* startError("maxUploadBytes is not a number of bytes")
    }
    const disk = yield* LocalDisk.open(options.root)

    const presignPut = Effect.fn("LocalObjectStore.presignPut")(function*(request: PutRequest) {
      yield* guard(disk, "presignPut", request.key)
      if (!headerValue.test(request.contentType)) {
        return yield* new StorageError({
          operation: "presignPut",
          cause: new Error(`Content type ${JSON.stringify(request.contentType)} cannot be sent as a header`)
        })
      }
      const length = request.contentLength
      if (length !== undefined && !(Number.isSafeInteger(length) && length >= 0)) {
        return yield* new StorageError({ operation: "presignPut", cause: new Error(`Content length ${length} is not a number of bytes`) })
      }
      const cap = length === undefined ? request.maxLength : undefined
      if (cap !== undefined && !(Number.isSafeInteger(cap) && cap >= 0)) {
        return yield* new StorageError({ operation: "presignPut", cause: new Error(`Maximum length ${cap} is not a number of bytes`) })
      }
      const expires = yield* expiresOf("presignPut", yield* DateTime.now, request.expiresIn)
      // The purpose's limit, signed, caps a PUT of undeclared length below the store's own cap.
      const maxLength = cap === undefined ? undefined : Math.min(cap, maxUploadBytes)
      const put: UrlSignature.SignedPut = {
        key: request.key,
        expires,
        contentType: request.contentType,
        contentLength: length,
        maxLength
      }
      const signature = UrlSignature.signPut(secret, put)
      const headers = presignedPutHeaders({ contentType: request.contentType, contentLength: length })
      return {
        url: `${uploadBase()}/${UrlSignature.putTarget(put, signature)}`,
        headers,
        expiresAt: DateTime.makeUnsafe(expires * 1000)
      }
    })

    // Under the files path, beside the key's public URL: the file route checks the
    // signature of every request that carries one (see `LocalStorageRoutes`).
    const presignGet = Effect.fn("LocalObjectStore.presignGet")(function*(request: GetRequest) {
      yield* guard(disk, "presignGet", request.key)
      const now = yield* DateTime.now
      const expires = yield* expiresOf("presignGet", request.issuedAt === undefined ? now : DateTime.min(request.issuedAt, now), request.expiresIn)
      const get: UrlSignature.SignedGet = { key: request.key, expires }
      const signature = UrlSignature.signGet(secret, get)
      return {
        url: `${publicBase()}/${UrlSignature.getTarget(get, signature)}`,
        expiresAt: DateTime.makeUnsafe(expires * 1000)
      } satisfies PresignedGet
    })

    const createMultipart = Effect.fn("LocalObjectStore.createMultipart")(function*(request: MultipartRequest) {
      yield* guard(disk, "createMultipart", request.key)
      if (!headerValue.test(request.contentType)) {
        return yield* new StorageError({
          operation: "createMultipart",
          cause: new Error(`Content type ${JSON.stringify(request.contentType)} cannot be sent as a header`)
        })
      }
      const { partSize } = request
      if (partSize !== undefined && !(Number.isSafeInteger(partSize) && partSize > 0 && partSize <= maxUploadBytes)) {
        return yield* new StorageError({
          operation: "createMultipart",
          cause: new Error(`A part size of ${partSize} is not a number of bytes up to the store's cap`)
        })
      }
      const created = DateTime.formatIso(yield* DateTime.now)
      return yield* LocalMultipart.create(disk, { key: request.key, contentType: request.contentType, created, ...(partSize === undefined ? {} : { partSize }) })
    })

    // Under the upload path, told from a whole upload by its query (`uploadId`, `partNumber`).
    const presignPart = Effect.fn("LocalObjectStore.presignPart")(function*(request: PartRequest) {
      const refuse = (reason: string) => new StorageError({ operation: "presignPart", cause: new Error(reason) })
      yield* guard(disk, "presignPart", request.key)
      const refused = partRequestRefusal(request)
      if (refused !== undefined) return yield* refuse(refused)
      if (!UrlSignature.uploadIdPattern.test(request.uploadId)) return yield* refuse("The upload id is not one this store issues")
      if (request.contentLength > maxUploadBytes) return yield* refuse(`A part of ${request.contentLength} bytes is over the store's cap`)
      const expires = yield* expiresOf("presignPart", yield* DateTime.now, request.expiresIn)
      const part: UrlSignature.SignedPart = {
        key: request.key,
        uploadId: request.uploadId,
        partNumber: request.partNumber,
        expires,
        contentLength: request.contentLength
      }
      const signature = UrlSignature.signPart(secret, part)
      return {
        url: `${uploadBase()}/${UrlSignature.partTarget(part, signature)}`,
        headers: presignedPartHeaders(request),
        expiresAt: DateTime.makeUnsafe(expires * 1000)
      }
    })

    const listParts = Effect.fn("LocalObjectStore.listParts")(function*(key: string, uploadId: string) {
      yield* guard(disk, "listParts", key)
      return yield* LocalMultipart.list(disk, key, uploadId)
    })

    // Completions and aborts of one upload run one at a time: a second completion waits,
    // then finds the upload ended (NoSuchUpload) or, when the first was refused, completes
    // it; never two assemblies racing to the commit, nor an abort removing the data a
    // completion is committing.
    const completing = new Map<string, { readonly lock: Semaphore.Semaphore; waiting: number }>()
    const oneAtATime = <A, E>(uploadId: string, effect: Effect.Effect<A, E>) =>
      Effect.suspend(() => {
        const entry = completing.get(uploadId) ?? { lock: Semaphore.makeUnsafe(1), waiting: 0 }
        completing.set(uploadId, entry)
        entry.waiting++
        return entry.lock.withPermits(1)(effect).pipe(Effect.ensuring(Effect.sync(() => {
          if (--entry.waiting === 0) completing.delete(uploadId)
        })))
      })

    const completeMultipart = Effect.fn("LocalObjectStore.completeMultipart")(
      function*(key: string, uploadId: string, parts: ReadonlyArray<CompletedPart>) {
        yield* guard(disk, "completeMultipart", key)
        return yield* oneAtATime(
          uploadId,
          LocalMultipart.complete(
            disk,
            (paths, temporary, contentType) => commitObject(disk, paths, temporary, contentType),
            key,
            uploadId,
            parts
          )
        )
      }
    )

    const abortMultipart = Effect.fn("LocalObjectStore.abortMultipart")(function*(key: string, uploadId: string) {
      yield* guard(disk, "abortMultipart", key)
      // After a completion under way, never in the middle of one (its data lies in the directory abort removes).
      return yield* oneAtATime(uploadId, LocalMultipart.abort(disk, key, uploadId))
    })

    const head = Effect.fn("LocalObjectStore.head")(function*(key: string) {
      const paths = yield* guard(disk, "head", key)
      const stats = yield* LocalDisk.statObject("head", paths)
      if (Option.isNone(stats)) return Option.none<ObjectInfo>()
      const contentType = yield* LocalDisk.readContentType(paths)
      return Option.some<ObjectInfo>({
        size: stats.value.size,
        contentType,
        lastModified: DateTime.fromDateUnsafe(stats.value.mtime)
      })
    })

    const delete_ = Effect.fn("LocalObjectStore.delete")(function*(key: string) {
      const paths = yield* guard(disk, "delete", key)
      // Bytes first: once they are gone the object is gone, whatever happens next.
      yield* LocalDisk.attempt("delete", async () => {
        await unlinkFile(paths.file)
        await unlinkFile(paths.meta)
      }).pipe(disk.commitLock.withPermits(1))
    })

    const list = Effect.fn("LocalObjectStore.list")(function*(prefix: string, listOptions?: {
      readonly after?: string | undefined
      readonly limit?: number | undefined
    }) {
      const limit = Math.min(Math.max(Math.floor(listOptions?.limit ?? maxPageSize), 1), maxPageSize)
      const { keys, more } = yield* Effect.tryPromise({
        try: (signal) => LocalDisk.walk(disk.root, prefix, listOptions?.after, limit, signal),
        catch: (cause) => new StorageError({ operation: "list", cause })
      })
      return {
        objects: keys.map(({ key, stats }) => ({ key, size: stats.size, lastModified: DateTime.fromDateUnsafe(stats.mtime) })),
        next: more ? keys[keys.length - 1]?.key : undefined
      } satisfies ObjectPage
    })

    const check = LocalDisk.attempt("check", async () => {
      const stats = await fs.stat(disk.root)
      if (!stats.isDirectory()) throw new Error(`${disk.root} is not a directory`)
      await fs.access(disk.root, constants.W_OK | constants.X_OK)
    }).pipe(Effect.withSpan("LocalObjectStore.check"))

    // Multipart uploads nobody completed or aborted, and temporary files of uploads that
    // never completed (a killed process, a failed commit); one being written has a
    // recent mtime, so only abandoned ones qualify.
    const removeIncomplete = Effect.fn("LocalObjectStore.removeIncomplete")(function*(before: DateTime.Utc) {
      const beforeMs = DateTime.toEpochMillis(before)
      return yield* LocalDisk.attempt("removeIncomplete", async () =>
        (await LocalMultipart.removeAbandoned(disk, beforeMs)) + (await LocalDisk.removeTemporaryFiles(disk.root, beforeMs)))
    })

    const store = ObjectStore.of({
      presignPut,
      presignGet,
      createMultipart,
      presignPart,
      listParts,
      completeMultipart,
      abortMultipart,
      head,
      delete: delete_,
      list,
      removeIncomplete,
      publicUrl: (key) => `${publicBase()}/${UrlSignature.keyPath(key)}`,
      check
    })
    const uploads = uploadsFromDisk(disk, { secret, maxUploadBytes })
    return Context.make(ObjectStore, store).pipe(Context.add(LocalTransfers, uploads))
  }))
