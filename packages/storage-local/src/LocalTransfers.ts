/**
 * The local store's side of HTTP: receiving a PUT to a signed upload URL, deciding
 * whether a GET may read a file (a private key only with a valid read signature), and
 * opening a stored file to serve it, whole or a byte range. `LocalStorageRoutes`
 * (`@coursekit/http/local-storage`) puts them on routes and answers the refusals with
 * their statuses; the service itself speaks no HTTP, so another host (a framework route
 * handler) can call it too.
 * It is provided with the store by `LocalObjectStore.layer`.
 *
 * @since 0.1.0
 */
import { isPrivateKey, StorageError } from "@coursekit/core"
import { Clock, Context, Data, DateTime, Deferred, Effect, Option, Result, type Scope, Stream } from "effect"
import type { Redacted } from "effect"
import type { FileHandle } from "node:fs/promises"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { createHash } from "node:crypto"
import * as LocalDisk from "./LocalDisk.ts"
import * as LocalMultipart from "./LocalMultipart.ts"
import * as UrlSignature from "./UrlSignature.ts"

/** The body of an upload: a request's byte stream, or any async iterable of bytes. */
export type UploadBody = Stream.Stream<Uint8Array, unknown> | AsyncIterable<Uint8Array>

/** A PUT to an upload URL, as the HTTP layer hands it over. */
export interface IncomingUpload {
  /** The key from the URL path, percent-decoded. */
  readonly key: string
  /** The URL's decoded query (`expires`, `type`, `length`, `signature`). */
  readonly query: UrlSignature.Query
  /**
   * What followed the upload base URL in the request, exactly as received: the key's
   * path, still percent-encoded, and the query (`media/a%20b.mp4?expires=…`). It must be
   * the URL as the store signed it, in no other spelling.
   */
  readonly target: string
  /** The request headers; names are matched case-insensitively. */
  readonly headers: Readonly<Record<string, string | undefined>>
  readonly body: UploadBody
}

/** An upload that landed. */
export interface StoredUpload {
  readonly key: string
  readonly size: number
  readonly contentType: string
}

/** A part that landed: the `ETag` its PUT answers is `etag`. */
export interface StoredUploadPart {
  readonly key: string
  readonly uploadId: string
  readonly partNumber: number
  readonly size: number
  /** `"<md5 hex of the bytes>"`, quotes included, as S3's. */
  readonly etag: string
}

/** Why an upload was refused. */
export type RefusalReason =
  | "InvalidKey" //          the key is not one the store accepts
  | "LengthMismatch" //      Content-Length is malformed or below the signed length
  | "Incomplete" //          the body ended (or failed) before Content-Length bytes
  | "BadSignature" //        the signature is missing, malformed or wrong
  | "NotSignedForm" //       signed, but spelled otherwise than the store wrote the URL
  | "Expired" //             the URL's `expires` has passed
  | "TypeMismatch" //        Content-Type is not the signed type
  | "Conflict" //            another key's file or directory is in the way
  | "AlreadyStored" //       a file already landed under this key
  | "Superseded" //          the PUT stalled and the same part was PUT again meanwhile; the newer PUT goes on
  | "Completing" //          the multipart upload is being completed or aborted; a retry finds it open, or gone (NoSuchUpload)
  | "NoSuchUpload" //        the part's multipart upload is not there (aborted, completed, or never started)
  | "LengthRequired" //      a length is signed but the request has no Content-Length
  | "TooLarge" //            above the signed length, or above the cap when none is signed

/** The store refused an upload; nothing of it was kept. */
export class UploadRefused extends Data.TaggedError("UploadRefused")<{
  readonly key: string
  readonly reason: RefusalReason
  /** For the client: says what to change. */
  readonly detail: string
}> {
  override get message(): string {
    return this.detail
  }
}

/**
 * Whether a PUT to an upload URL is a part of a multipart upload, for
 * {@link LocalTransfers.receivePart} (its query names `uploadId` or `partNumber`), or a
 * whole upload, for `receive`: what a host routing the PUT asks first.
 */
export const isPartUpload = (query: UrlSignature.Query): boolean => UrlSignature.claimsPart(query)

/** A GET of a stored file, as the HTTP layer hands it over. */
export interface IncomingRead {
  /** The key from the URL path, percent-decoded. */
  readonly key: string
  /** The URL's decoded query (`expires` and `signature` when the URL is signed). */
  readonly query: UrlSignature.Query
  /**
   * What followed the files base URL in the request, exactly as received (see
   * {@link IncomingUpload.target}): a signed read must be in its signed form.
   */
  readonly target: string
}

/**
 * Why a read may go on: an unsigned read of a public key, or a read URL signed for this
 * key until `expiresAt` (which a response may be cached for, privately).
 */
export type ReadAccess =
  | { readonly _tag: "Public" }
  | { readonly _tag: "Signed"; readonly expiresAt: DateTime.Utc }

/** Why a read was refused. */
export type ReadRefusalReason =
  | "Private" //       the key is under `private/` and the URL carries no signature
  | "BadSignature" //  a signature is claimed (`expires` or `signature`) but missing, malformed or wrong
  | "NotSignedForm" // signed, but spelled otherwise than the store wrote the URL
  | "Expired" //       the URL's `expires` has passed

/** The store refused a read; nothing of the file was read. */
export class ReadRefused extends Data.TaggedError("ReadRefused")<{
  readonly key: string
  readonly reason: ReadRefusalReason
  /** For the client: says what to change. */
  readonly detail: string
}> {
  override get message(): string {
    return this.detail
  }
}

/** A stored file opened for serving. */
export interface ServedObject {
  readonly key: string
  readonly size: number
  /** As recorded from the upload; `undefined` when its metadata is missing. */
  readonly contentType: string | undefined
  readonly lastModified: DateTime.Utc
  /** A strong entity tag (objects never change in place). */
  readonly etag: string
  /** Exactly `size` bytes, read from the file opened by `open`. */
  readonly stream: Stream.Stream<Uint8Array, StorageError>
  /** The bytes from `start` up to, not including, `end` (`0 <= start <= end <= size`), read from the file as they stream. */
  slice(start: number, end: number): Stream.Stream<Uint8Array, StorageError>
}

/**
 * Receives uploads and opens files for serving.
 *
 * - `receive` refuses a key that already holds a file (a URL takes one upload), and
 *   checks the key, the signature (constant time), the expiry, that
 *   `Content-Type` is the signed type and the size (a signed length must equal
 *   `Content-Length` and the bytes received; without one, the signed maximum — the
 *   upload purpose's limit — and the store's cap apply), while the
 *   body streams to a temporary file beside the final one. Only a complete body is
 *   flushed and renamed into place; on any refusal, failure or interruption the
 *   temporary files are removed, so nothing partial is ever visible.
 * - `receivePart` receives a part of a multipart upload (a PUT whose query names
 *   `uploadId` and `partNumber`): the key, the part signature (another kind of URL's
 *   never passes), the expiry and the signed length are checked as above, the upload
 *   must be there for this key (else `NoSuchUpload`), and the body streams to a
 *   temporary file, its MD5 computed on the way, capped at the signed length. A complete
 *   part is flushed and replaces the part of that number whole; its ETag is the MD5.
 * - `authorizeRead` lets a GET through, or refuses it: a URL that claims a read
 *   signature (it carries `expires` or `signature`) must carry a valid one for its key,
 *   checked in constant time, and not be past its expiry; a key under `private/` is read
 *   only that way. It checks no file: the caller opens it next.
 * - `open` is `None` for an absent or invalid key. The file stays open, and readable
 *   even if deleted meanwhile, until the scope closes.
 */
export class LocalTransfers extends Context.Service<LocalTransfers, {
  receive(upload: IncomingUpload): Effect.Effect<StoredUpload, UploadRefused | StorageError>
  receivePart(upload: IncomingUpload): Effect.Effect<StoredUploadPart, UploadRefused | StorageError>
  authorizeRead(read: IncomingRead): Effect.Effect<ReadAccess, ReadRefused>
  open(key: string): Effect.Effect<Option.Option<ServedObject>, StorageError, Scope.Scope>
}>()("@coursekit/storage-local/LocalTransfers") {}

/** What the receiver needs of the store's options. */
export interface UploadSettings {
  readonly secret: Redacted.Redacted<string>
  /** The cap when no length is signed. */
  readonly maxUploadBytes: number
}

/**
 * The detail of a signed URL in another spelling. One file, one URL: a parameter added or
 * moved, or the key percent-encoded otherwise, would give caches a new entry per spelling.
 */
const notSignedForm = "The URL is not in its signed form: use it exactly as issued, with no parameter added, removed or " +
  "reordered, nothing percent-encoded otherwise and no trailing slash."

const header = (headers: IncomingUpload["headers"], name: string): string | undefined => {
  const exact = headers[name]
  if (exact !== undefined) return exact
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === name) return value
  }
  return undefined
}

const readChunkBytes = 64 * 1024

/** Reads the bytes of an open file from `start` up to, not including, `end`. */
async function* readChunks(handle: FileHandle, start: number, end: number): AsyncGenerator<Uint8Array> {
  let position = start
  while (position < end) {
    const buffer = Buffer.allocUnsafe(Math.min(readChunkBytes, end - position))
    const { bytesRead } = await handle.read(buffer, 0, buffer.byteLength, position)
    // Cut short on disk: the response ends short, and Node aborts it rather than
    // send fewer bytes than its Content-Length.
    if (bytesRead === 0) return
    position += bytesRead
    yield buffer.subarray(0, bytesRead)
  }
}

const conflictDetail = "Another stored key is in the way of this one (one names a directory of the other)."
const alreadyStoredDetail = "A file was already uploaded to this address; it takes one. Finalize it, or ask for a new upload URL."

/** Whether a file exists at `file` (a key's place taken by a directory is not one). */
const fileExists = async (file: string) => {
  try {
    return (await fs.lstat(file)).isFile()
  } catch (error) {
    if (LocalDisk.isMissing(error)) return false
    throw error
  }
}

const etagOf = (stats: { readonly ino: number; readonly size: number; readonly mtimeMs: number }) =>
  `"${stats.ino.toString(36)}-${stats.size.toString(36)}-${Math.floor(stats.mtimeMs).toString(36)}"`

/**
 * Moves a finished upload (`temporary.data`, flushed, beside its final place) and its
 * metadata into place, under the commit lock; records the metadata's temporary file in
 * `temporary.meta` so a caller that fails can remove it. A key takes one file
 * (`AlreadyStored`). Used for whole uploads and assembled multipart uploads alike.
 */
export const commitObject = (
  disk: LocalDisk.LocalDisk,
  paths: LocalDisk.KeyPaths,
  temporary: { readonly data: string; meta: string | undefined },
  contentType: string
): Effect.Effect<void, UploadRefused | StorageError> =>
  Effect.gen(function*() {
    const refuseConflict = new UploadRefused({ key: paths.key, reason: "Conflict", detail: conflictDetail })
    const metaDirectory = path.dirname(paths.meta)
    if (!(yield* LocalDisk.attempt("receive", () => LocalDisk.ensureDirectory(metaDirectory)))) return yield* refuseConflict
    const metaTemporary = LocalDisk.temporaryPath(metaDirectory)
    temporary.meta = metaTemporary
    yield* LocalDisk.attempt("receive", () => LocalDisk.writeDurably(metaTemporary, LocalDisk.metadataBytes(contentType)))
    // Metadata first: a reader between the renames finds no object yet, never the
    // new bytes without their type. A key takes one file: replacing one that was
    // finalized would swap what is served under a record that describes other bytes.
    yield* Effect.gen(function*() {
      if (yield* LocalDisk.attempt("receive", () => fileExists(paths.file))) {
        return yield* new UploadRefused({ key: paths.key, reason: "AlreadyStored", detail: alreadyStoredDetail })
      }
      yield* LocalDisk.attempt("receive", async () => {
        await fs.rename(metaTemporary, paths.meta)
        try {
          await fs.rename(temporary.data, paths.file)
        } catch (error) {
          // No sidecar without its object: the key held no file (checked above, under the lock).
          await LocalDisk.removeQuietly(paths.meta)
          throw error
        }
      })
    }).pipe(
      disk.commitLock.withPermits(1),
      Effect.catchIf(
        (error) => ["EISDIR", "ENOTDIR", "ENOTEMPTY", "EEXIST"].includes(LocalDisk.codeOf(error) ?? ""),
        () => Effect.fail(refuseConflict)
      )
    )
    yield* Effect.promise(() =>
      Promise.all([LocalDisk.syncDirectory(path.dirname(paths.file)), LocalDisk.syncDirectory(metaDirectory)])
    )
  })

/**
 * The receiver on `disk`, built without effects (so not `make`: see the convention in
 * docs/writing-an-adapter.md); `LocalObjectStore.layer` provides it beside the store.
 */
export const fromDisk = (disk: LocalDisk.LocalDisk, settings: UploadSettings): LocalTransfers["Service"] => {
  const commit = (paths: LocalDisk.KeyPaths, temporary: { readonly data: string; meta: string | undefined }, contentType: string) =>
    commitObject(disk, paths, temporary, contentType)

  const receive = Effect.fn("LocalTransfers.receive")(function*(upload: IncomingUpload) {
    const refuse = (reason: RefusalReason, detail: string) => new UploadRefused({ key: upload.key, reason, detail })
    const resolved = LocalDisk.resolveKey(disk.root, upload.key)
    if (Result.isFailure(resolved)) return yield* refuse("InvalidKey", resolved.failure.message)
    const paths = resolved.success

    const claimed = UrlSignature.parsePutQuery(upload.key, upload.query)
    if (claimed === undefined || !UrlSignature.verifyPut(settings.secret, claimed.put, claimed.signature)) {
      return yield* refuse("BadSignature", "The upload URL is not signed for this request: use the URL exactly as issued.")
    }
    if (upload.target !== UrlSignature.putTarget(claimed.put, claimed.signature)) return yield* refuse("NotSignedForm", notSignedForm)
    const signed = claimed.put
    if ((yield* Clock.currentTimeMillis) >= signed.expires * 1000) {
      return yield* refuse("Expired", "The upload URL has expired: request a new one.")
    }
    if (header(upload.headers, "content-type") !== signed.contentType) {
      return yield* refuse("TypeMismatch", `The Content-Type must be ${signed.contentType}, as signed.`)
    }

    const lengthHeader = header(upload.headers, "content-length")
    if (lengthHeader !== undefined && !/^\d{1,15}$/.test(lengthHeader)) {
      return yield* refuse("LengthMismatch", "The Content-Length is not a number of bytes.")
    }
    const declared = lengthHeader === undefined ? undefined : Number(lengthHeader)
    if (signed.contentLength !== undefined) {
      if (declared === undefined) {
        return yield* refuse("LengthRequired", `A Content-Length of ${signed.contentLength} is required, as signed.`)
      }
      if (declared > signed.contentLength) {
        return yield* refuse("TooLarge", `The body must be ${signed.contentLength} bytes, as signed; it is ${declared}.`)
      }
      if (declared < signed.contentLength) {
        return yield* refuse("LengthMismatch", `The body must be ${signed.contentLength} bytes, as signed; it is ${declared}.`)
      }
    }
    // A signed length, else the signed maximum (the upload's purpose), else the store's cap.
    const cap = signed.contentLength ?? Math.min(signed.maxLength ?? settings.maxUploadBytes, settings.maxUploadBytes)
    if (signed.contentLength === undefined && declared !== undefined && declared > cap) {
      return yield* refuse("TooLarge", `The body is larger than the ${cap} bytes accepted.`)
    }

    // Said before the bytes stream; checked again, under the commit lock, before they land.
    if (yield* LocalDisk.attempt("receive", () => fileExists(paths.file))) return yield* refuse("AlreadyStored", alreadyStoredDetail)
    const directory = path.dirname(paths.file)
    if (!(yield* LocalDisk.attempt("receive", () => LocalDisk.ensureDirectory(directory)))) {
      return yield* refuse("Conflict", conflictDetail)
    }
    const temporary: { readonly data: string; meta: string | undefined } = {
      data: LocalDisk.temporaryPath(directory),
      meta: undefined
    }
    let committed = false
    const body = Stream.isStream(upload.body)
      ? upload.body
      : Stream.fromAsyncIterable(upload.body, (cause) => cause)

    return yield* Effect.acquireUseRelease(
      LocalDisk.attempt("receive", () => fs.open(temporary.data, "wx", 0o600)),
      (handle) =>
        Effect.gen(function*() {
          let received = 0
          yield* body.pipe(
            Stream.mapError(() => refuse("Incomplete", "The request body could not be read to its end.")),
            Stream.runForEach((chunk): Effect.Effect<void, UploadRefused | StorageError> => {
              received += chunk.byteLength
              if (received > cap) {
                return Effect.fail(refuse(
                  "TooLarge",
                  `The body is larger than the ${cap} bytes ${signed.contentLength === undefined ? "accepted" : "signed"}.`
                ))
              }
              // Node frames a body by its Content-Length; another host might not.
              if (declared !== undefined && received > declared) {
                return Effect.fail(refuse("LengthMismatch", "The body is longer than its Content-Length."))
              }
              return LocalDisk.attempt("receive", () => LocalDisk.writeAll(handle, chunk))
            })
          )
          const expected = declared ?? signed.contentLength
          if (expected !== undefined && received !== expected) {
            return yield* refuse("Incomplete", `The body ended after ${received} of ${expected} bytes.`)
          }
          yield* LocalDisk.attempt("receive", async () => {
            await handle.sync()
            await handle.close()
          })
          // The whole move is one step: an abort now cannot leave metadata alone in place.
          yield* Effect.uninterruptible(commit(paths, temporary, signed.contentType))
          committed = true
          return { key: upload.key, size: received, contentType: signed.contentType } satisfies StoredUpload
        }),
      (handle) =>
        Effect.promise(async () => {
          await handle.close().catch(() => undefined)
          if (!committed) {
            await LocalDisk.removeQuietly(temporary.data)
            if (temporary.meta !== undefined) await LocalDisk.removeQuietly(temporary.meta)
          }
        })
    )
  })

  /**
   * Writes a part to its place in the upload's data file. The place is claimed (after a
   * write of the same part under way, or stopping it once stalled; none starts while the
   * upload completes or aborts) and the data file opened. A part not there yet streams
   * straight to `(n − 1) × partSize` with its MD5, is flushed, then its pointer written.
   * A part that landed already stays whole while the new bytes stream to a file of their
   * own: a completion meanwhile completes with it. Then, in one uninterruptible step, its
   * pointer goes (durably), the new bytes are copied into place and flushed, and the new
   * pointer is written. Stopped or failed midway, a part is there whole or not at all.
   */
  const receivePlacedPart = (
    directory: string,
    signed: UrlSignature.SignedPart,
    partSize: number,
    body: Stream.Stream<Uint8Array, unknown>,
    refuse: (reason: RefusalReason, detail: string) => UploadRefused,
    noSuchUpload: UploadRefused
  ) =>
    Effect.scoped(Effect.gen(function*() {
      const { partNumber, contentLength: length } = signed
      const claimed = yield* LocalMultipart.claimPart(disk, signed.uploadId, partNumber)
      if (Option.isNone(claimed)) return yield* noSuchUpload
      const writer = claimed.value
      const superseded = refuse("Superseded", `This PUT of part ${partNumber} stalled and the part was uploaded again by another request; that upload of it goes on.`)
      const completing = refuse("Completing", "The upload is being completed or aborted; PUT this part again in a moment if it is still open.")
      const opened = (file: string, flags: string) =>
        // Closed before the claim ends (finalizers run in reverse): no write of this one lands after the next begins.
        Effect.acquireRelease(
          LocalDisk.attempt("receivePart", () => fs.open(file, flags, 0o600)),
          (handle) => Effect.promise(() => handle.close().catch(() => undefined))
        ).pipe(Effect.catchIf(LocalDisk.isMissing, () => Effect.fail(noSuchUpload)))
      // Opened first: an upload whose data went (completed by a process killed before it removed the directory) is not there.
      const data = yield* opened(LocalMultipart.dataPath(directory), "r+")
      const landed = yield* LocalDisk.attempt("receivePart", () => LocalMultipart.hasPlacedPart(directory, partNumber))
      const start = (partNumber - 1) * partSize
      let target = data
      let offset = start
      // Not landed, no pointer can appear meanwhile: only the claim's holder writes one.
      if (landed) {
        const side = LocalDisk.temporaryPath(directory)
        yield* Effect.addFinalizer(() => Effect.promise(() => LocalDisk.removeQuietly(side)))
        target = yield* opened(side, "wx+")
        offset = 0
      }
      const md5 = createHash("md5")
      let received = 0
      const write = body.pipe(
        Stream.mapError(() => refuse("Incomplete", "The request body could not be read to its end.")),
        Stream.runForEach((chunk): Effect.Effect<void, UploadRefused | StorageError> => {
          const position = offset + received
          received += chunk.byteLength
          // Node frames a body by its Content-Length; another host might not.
          if (received > length) return Effect.fail(refuse("TooLarge", `The part is larger than the ${length} bytes signed.`))
          md5.update(chunk)
          writer.lastProgress = LocalMultipart.progressNow()
          // Whole or not at all: a stop waits for the write under way.
          return Effect.uninterruptible(LocalDisk.attempt("receivePart", () => LocalDisk.writeAllAt(target, chunk, position)))
        })
      )
      const stopped = Effect.andThen(
        Deferred.await(writer.stop),
        // Stopped by a completion or abort (which may still leave the upload open), or by a newer PUT of this part.
        Effect.suspend(() => Effect.fail(disk.closingUploads.has(signed.uploadId) ? completing : superseded))
      )
      yield* Effect.raceFirst(write, stopped)
      if (received !== length) return yield* refuse("Incomplete", `The body ended after ${received} of ${length} bytes.`)
      const part = { size: received, etag: `"${md5.digest("hex")}"` }
      yield* Effect.uninterruptible(LocalDisk.attempt("receivePart", async () => {
        if (landed) {
          await LocalMultipart.forgetPlacedPart(directory, partNumber)
          await LocalMultipart.copyRange(target, data, received, start)
        }
        await data.datasync()
        await LocalMultipart.commitPlacedPart(directory, partNumber, part)
      })).pipe(Effect.catchIf(LocalDisk.isMissing, () => Effect.fail(noSuchUpload)))
      return { key: signed.key, uploadId: signed.uploadId, partNumber, ...part } satisfies StoredUploadPart
    }))

  const receivePart = Effect.fn("LocalTransfers.receivePart")(function*(upload: IncomingUpload) {
    const refuse = (reason: RefusalReason, detail: string) => new UploadRefused({ key: upload.key, reason, detail })
    const resolved = LocalDisk.resolveKey(disk.root, upload.key)
    if (Result.isFailure(resolved)) return yield* refuse("InvalidKey", resolved.failure.message)
    const claimed = UrlSignature.parsePartQuery(upload.key, upload.query)
    if (claimed === undefined || !UrlSignature.verifyPart(settings.secret, claimed.part, claimed.signature)) {
      return yield* refuse("BadSignature", "The part URL is not signed for this request: use the URL exactly as issued.")
    }
    if (upload.target !== UrlSignature.partTarget(claimed.part, claimed.signature)) return yield* refuse("NotSignedForm", notSignedForm)
    const signed = claimed.part
    if ((yield* Clock.currentTimeMillis) >= signed.expires * 1000) {
      return yield* refuse("Expired", "The part URL has expired: request a new one.")
    }
    const length = signed.contentLength
    const lengthHeader = header(upload.headers, "content-length")
    if (lengthHeader === undefined) return yield* refuse("LengthRequired", `A Content-Length of ${length} is required, as signed.`)
    if (!/^\d{1,15}$/.test(lengthHeader)) return yield* refuse("LengthMismatch", "The Content-Length is not a number of bytes.")
    const declared = Number(lengthHeader)
    if (declared > length) return yield* refuse("TooLarge", `The part must be ${length} bytes, as signed; it is ${declared}.`)
    if (declared < length) return yield* refuse("LengthMismatch", `The part must be ${length} bytes, as signed; it is ${declared}.`)

    const noSuchUpload = refuse("NoSuchUpload", "This multipart upload is not there: it was completed or aborted. Start a new one.")
    const found = yield* LocalMultipart.findUpload(disk, "receivePart", upload.key, signed.uploadId)
    if (Option.isNone(found)) return yield* noSuchUpload
    const directory = found.value.directory
    const partSize = found.value.record.partSize
    const body = Stream.isStream(upload.body)
      ? upload.body
      : Stream.fromAsyncIterable(upload.body, (cause) => cause)
    if (partSize !== undefined) {
      if (length > partSize) {
        return yield* refuse("TooLarge", `A part of this upload is at most its part size, ${partSize} bytes; this one is ${length}.`)
      }
      return yield* receivePlacedPart(directory, signed, partSize, body, refuse, noSuchUpload)
    }
    const temporary = LocalDisk.temporaryPath(directory)
    let committed = false

    return yield* Effect.acquireUseRelease(
      LocalDisk.attempt("receivePart", () => fs.open(temporary, "wx", 0o600)).pipe(
        Effect.catchIf(LocalDisk.isMissing, () => Effect.fail(noSuchUpload))
      ),
      (handle) =>
        Effect.gen(function*() {
          const md5 = createHash("md5")
          let received = 0
          yield* body.pipe(
            Stream.mapError(() => refuse("Incomplete", "The request body could not be read to its end.")),
            Stream.runForEach((chunk): Effect.Effect<void, UploadRefused | StorageError> => {
              received += chunk.byteLength
              // Node frames a body by its Content-Length; another host might not.
              if (received > length) return Effect.fail(refuse("TooLarge", `The part is larger than the ${length} bytes signed.`))
              md5.update(chunk)
              return LocalDisk.attempt("receivePart", () => LocalDisk.writeAll(handle, chunk))
            })
          )
          if (received !== length) return yield* refuse("Incomplete", `The body ended after ${received} of ${length} bytes.`)
          yield* LocalDisk.attempt("receivePart", async () => {
            await handle.sync()
            await handle.close()
          })
          const part = { size: received, etag: `"${md5.digest("hex")}"` }
          yield* Effect.uninterruptible(
            LocalDisk.attempt("receivePart", () => LocalMultipart.commitPart(directory, signed.partNumber, temporary, part))
          ).pipe(Effect.catchIf(LocalDisk.isMissing, () => Effect.fail(noSuchUpload)))
          committed = true
          return { key: upload.key, uploadId: signed.uploadId, partNumber: signed.partNumber, ...part } satisfies StoredUploadPart
        }),
      (handle) =>
        Effect.promise(async () => {
          await handle.close().catch(() => undefined)
          if (!committed) await LocalDisk.removeQuietly(temporary)
        })
    )
  })

  const authorizeRead = Effect.fn("LocalTransfers.authorizeRead")(function*(read: IncomingRead) {
    const refuse = (reason: ReadRefusalReason, detail: string) => new ReadRefused({ key: read.key, reason, detail })
    if (!UrlSignature.claimsGetSignature(read.query)) {
      if (isPrivateKey(read.key)) return yield* refuse("Private", "This file is private: read it at a signed URL.")
      return { _tag: "Public" } satisfies ReadAccess
    }
    const claimed = UrlSignature.parseGetQuery(read.key, read.query)
    if (claimed === undefined || !UrlSignature.verifyGet(settings.secret, claimed.get, claimed.signature)) {
      return yield* refuse("BadSignature", "The URL is not signed for this file: use the URL exactly as issued.")
    }
    if (read.target !== UrlSignature.getTarget(claimed.get, claimed.signature)) return yield* refuse("NotSignedForm", notSignedForm)
    const expiresAt = claimed.get.expires * 1000
    if ((yield* Clock.currentTimeMillis) >= expiresAt) return yield* refuse("Expired", "The URL has expired: ask for a new one.")
    return { _tag: "Signed", expiresAt: DateTime.makeUnsafe(expiresAt) } satisfies ReadAccess
  })

  const open = Effect.fn("LocalTransfers.open")(function*(key: string) {
    const resolved = LocalDisk.resolveKey(disk.root, key)
    if (Result.isFailure(resolved)) return Option.none<ServedObject>()
    const paths = resolved.success
    const opened = yield* Effect.acquireRelease(
      LocalDisk.openObject(paths),
      (opened) => Option.isSome(opened) ? Effect.promise(() => opened.value.handle.close().catch(() => undefined)) : Effect.void
    )
    if (Option.isNone(opened)) return Option.none<ServedObject>()
    const { handle, stats } = opened.value
    const contentType = yield* LocalDisk.readContentType(paths)
    const slice = (start: number, end: number) =>
      Stream.suspend(() =>
        Stream.fromAsyncIterable(readChunks(handle, start, end), (cause) => new StorageError({ operation: "read", cause }))
      )
    return Option.some<ServedObject>({
      key,
      size: stats.size,
      contentType,
      lastModified: DateTime.fromDateUnsafe(stats.mtime),
      etag: etagOf(stats),
      stream: slice(0, stats.size),
      slice
    })
  })

  return LocalTransfers.of({ receive, receivePart, authorizeRead, open })
}
