/**
 * Multipart uploads on disk: where an upload and its parts lie, how a part is committed,
 * and how parts are assembled into an object. Internal to the package: the store's
 * methods (`LocalObjectStore`) and the part receiver (`LocalTransfers.receivePart`) use it.
 *
 * Layout under the root (no key segment starts with a dot, so nothing here is a key):
 *
 * - `.multipart/<uploadId>/upload.json`: `{ key, contentType, created, partSize? }`,
 *   written before the id is handed out; an upload is there exactly while this file is.
 *
 * An upload started with a `partSize` (the service always gives one) is laid out in
 * place, so that completing it moves no bytes — for a 20 GB lecture, no 20 GB copy, no
 * second 20 GB on disk:
 *
 * - `.multipart/<uploadId>/data`: the object to be. Part `n` is written straight to its
 *   place, `(n − 1) × partSize`; a part over `partSize` is refused.
 * - `.multipart/<uploadId>/<n>.json`: `{ size, etag }`, written (durably, by rename)
 *   only once part `n`'s bytes are flushed. A part PUT again streams to a file of its
 *   own first, so the part that landed stays whole until then; then, in one
 *   uninterruptible step, the pointer goes (durably), the bytes are copied into place and
 *   flushed, and the new pointer is written. One write per place at a time (`claimPart`:
 *   a newer PUT waits for the older, or stops it once stalled).
 * - Completion stops every write of the upload, checks the parts are 1…k with all but
 *   the last of `partSize`, cuts `data` to their length and renames it into place.
 *
 * Without a `partSize` (the port's other callers), parts are files of their own and
 * completion assembles a copy:
 *
 * - `.multipart/<uploadId>/<n>-<random>.part`: the bytes of one PUT of part `n`.
 * - `.multipart/<uploadId>/<n>.json`: `{ file, size, etag }`, the part `n` now is. A PUT
 *   streams to a temporary file, renames it to a fresh `.part` name, then renames a new
 *   pointer over `<n>.json`: that rename is the commit, so bytes and ETag always agree
 *   and a part uploaded again replaces the old one whole. A `.part` no pointer names (a
 *   killed process, a replaced part) goes with its upload's directory.
 *
 * @since 0.1.0
 */
import { completionRefusal, type CompletedPart, MultipartRefused, StorageError, type StoredPart } from "@coursekit/core"
import { Deferred, Duration, Effect, Option, Result, type Scope } from "effect"
import { randomBytes } from "node:crypto"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import * as LocalDisk from "./LocalDisk.ts"
import { uploadIdPattern } from "./UrlSignature.ts"

/** The directory under the root holding multipart uploads. */
export const multipartDirectory = ".multipart"

const recordName = "upload.json"
const dataName = "data"

/** The object to be of an upload laid out in place. */
export const dataPath = (directory: string): string => path.join(directory, dataName)

/** What `upload.json` holds. */
export interface UploadRecord {
  readonly key: string
  readonly contentType: string
  /** ISO 8601. */
  readonly created: string
  /** Present when parts are laid out in place in `data`. */
  readonly partSize?: number | undefined
}

/** What `<n>.json` holds: the committed bytes of part `n`, in `file`, or in place when there is none. */
interface PartPointer {
  readonly file?: string | undefined
  readonly size: number
  readonly etag: string
}

/** An upload that is there: its directory and record. */
export interface FoundUpload {
  readonly directory: string
  readonly record: UploadRecord
}

/** A fresh upload id: 16 random bytes, URL-safe base64 (22 characters). */
export const newUploadId = (): string => randomBytes(16).toString("base64url")

const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

const isRecord = (value: unknown): value is UploadRecord =>
  typeof value === "object" && value !== null && "key" in value && typeof value.key === "string" &&
  "contentType" in value && typeof value.contentType === "string" && "created" in value && typeof value.created === "string" &&
  (!("partSize" in value) || (Number.isSafeInteger(value.partSize) && (value.partSize as number) > 0))

const isPointer = (value: unknown): value is PartPointer =>
  typeof value === "object" && value !== null &&
  (!("file" in value) || (typeof value.file === "string" && /^\d{1,5}-[0-9a-f]{24}\.part$/.test(value.file))) &&
  "size" in value && Number.isSafeInteger(value.size) && "etag" in value && typeof value.etag === "string"

/**
 * The upload `uploadId` of `key`, when it is there. An id the store could not have issued
 * (a path trick, NUL, anything but 22 URL-safe characters) names no upload: it is never
 * joined to a path.
 */
export const findUpload = (
  disk: LocalDisk.LocalDisk,
  operation: string,
  key: string,
  uploadId: string
): Effect.Effect<Option.Option<FoundUpload>, StorageError> => {
  if (typeof uploadId !== "string" || !uploadIdPattern.test(uploadId)) return Effect.succeed(Option.none())
  const directory = path.join(disk.root, multipartDirectory, uploadId)
  return LocalDisk.attempt(operation, () => fs.readFile(path.join(directory, recordName), "utf8")).pipe(
    Effect.map((text) => {
      const record = parseJson(text)
      return isRecord(record) && record.key === key ? Option.some({ directory, record }) : Option.none()
    }),
    Effect.catchIf(LocalDisk.isMissing, () => Effect.succeed(Option.none<FoundUpload>()))
  )
}

/** Starts an upload of `key`; its id. */
export const create = (disk: LocalDisk.LocalDisk, record: UploadRecord): Effect.Effect<string, StorageError> =>
  LocalDisk.attempt("createMultipart", async () => {
    const parent = path.join(disk.root, multipartDirectory)
    await fs.mkdir(parent, { recursive: true, mode: 0o700 })
    const uploadId = newUploadId()
    const directory = path.join(parent, uploadId)
    await fs.mkdir(directory, { mode: 0o700 })
    // Before the record: an upload laid out in place always has its data file.
    if (record.partSize !== undefined) await fs.writeFile(dataPath(directory), new Uint8Array(), { flag: "wx", mode: 0o600 })
    const temporary = LocalDisk.temporaryPath(directory)
    await LocalDisk.writeDurably(temporary, new TextEncoder().encode(JSON.stringify(record)))
    await fs.rename(temporary, path.join(directory, recordName))
    await LocalDisk.syncDirectory(directory)
    await LocalDisk.syncDirectory(parent)
    return uploadId
  })

/** The committed parts of the upload in `directory`, by part number. */
const readPointers = async (directory: string): Promise<Map<number, PartPointer>> => {
  const pointers = new Map<number, PartPointer>()
  for (const name of await fs.readdir(directory)) {
    const match = /^(\d{1,5})\.json$/.exec(name)
    if (match === null) continue
    try {
      const pointer = parseJson(await fs.readFile(path.join(directory, name), "utf8"))
      if (isPointer(pointer)) pointers.set(Number(match[1]), pointer)
    } catch (error) {
      // Replaced or removed meanwhile.
      if (!LocalDisk.isMissing(error)) throw error
    }
  }
  return pointers
}

/** The parts of the upload `uploadId` of `key`, in part-number order; `None` when it is not there. */
export const list = (
  disk: LocalDisk.LocalDisk,
  key: string,
  uploadId: string
): Effect.Effect<Option.Option<ReadonlyArray<StoredPart>>, StorageError> =>
  Effect.gen(function*() {
    const upload = yield* findUpload(disk, "listParts", key, uploadId)
    if (Option.isNone(upload)) return Option.none()
    const pointers = yield* LocalDisk.attempt("listParts", () => readPointers(upload.value.directory)).pipe(
      // Aborted or completed since.
      Effect.map(Option.some),
      Effect.catchIf(LocalDisk.isMissing, () => Effect.succeed(Option.none<Map<number, PartPointer>>()))
    )
    return Option.map(pointers, (pointers) =>
      [...pointers.entries()]
        .sort(([a], [b]) => a - b)
        .map(([partNumber, pointer]): StoredPart => ({ partNumber, size: pointer.size, etag: pointer.etag })))
  })

/**
 * Commits part `partNumber` from `temporary` (flushed, in the upload's directory): the
 * bytes get a name of their own, then the part's pointer is renamed over the old one,
 * then the old bytes go. Fails with `ENOENT` (see `LocalDisk.isMissing`) when the upload's
 * directory is gone (aborted or completed).
 */
export const commitPart = async (
  directory: string,
  partNumber: number,
  temporary: string,
  part: { readonly size: number; readonly etag: string }
): Promise<void> => {
  const file = `${partNumber}-${randomBytes(12).toString("hex")}.part`
  const pointerPath = path.join(directory, `${partNumber}.json`)
  await fs.rename(temporary, path.join(directory, file))
  const previous = await fs.readFile(pointerPath, "utf8").then(parseJson, () => undefined)
  const pointerTemporary = LocalDisk.temporaryPath(directory)
  try {
    await LocalDisk.writeDurably(pointerTemporary, new TextEncoder().encode(JSON.stringify({ file, ...part } satisfies PartPointer)))
    await fs.rename(pointerTemporary, pointerPath)
  } catch (error) {
    await LocalDisk.removeQuietly(pointerTemporary)
    await LocalDisk.removeQuietly(path.join(directory, file))
    throw error
  }
  await LocalDisk.syncDirectory(directory)
  if (isPointer(previous) && previous.file !== undefined && previous.file !== file) await LocalDisk.removeQuietly(path.join(directory, previous.file))
}

/** A write in place that received no bytes for this long is stopped by a newer PUT of its part. */
export const stalledWriteMillis = 5_000

/** A monotonic clock for stalls: a step of the wall clock (or a test clock) must not stop a live write. */
export const progressNow = (): number => performance.now()

/**
 * Claims the place of part `partNumber` of `uploadId` for a write, until the scope
 * closes. A write of the same part under way is waited for while its bytes flow (two
 * clients resuming one upload both PUT it: each gets its answer, as on S3), and told to
 * stop once it has received nothing for {@link stalledWriteMillis} (a client that went
 * away without closing its connection), then waited for until its file is closed.
 * `None` while the upload is being completed or aborted. The check and the claim are
 * one uninterruptible step, with its release: no two claims of one place, and none left
 * behind. Close the files before the scope: its finalizer, run last, lets the next
 * write in.
 */
export const claimPart = (
  disk: LocalDisk.LocalDisk,
  uploadId: string,
  partNumber: number
): Effect.Effect<Option.Option<LocalDisk.PartWriter>, never, Scope.Scope> =>
  Effect.gen(function*() {
    for (;;) {
      const taken = yield* Effect.acquireRelease(
        Effect.sync((): { readonly _tag: "Closing" } | { readonly _tag: "Taken"; readonly by: LocalDisk.PartWriter } | { readonly _tag: "Claimed"; readonly writer: LocalDisk.PartWriter } => {
          if (disk.closingUploads.has(uploadId)) return { _tag: "Closing" }
          const writers = disk.partWriters.get(uploadId) ?? new Map<number, LocalDisk.PartWriter>()
          const previous = writers.get(partNumber)
          if (previous !== undefined) return { _tag: "Taken", by: previous }
          const writer: LocalDisk.PartWriter = { stop: Deferred.makeUnsafe<void>(), done: Deferred.makeUnsafe<void>(), lastProgress: progressNow() }
          disk.partWriters.set(uploadId, writers.set(partNumber, writer))
          return { _tag: "Claimed", writer }
        }),
        (claim) =>
          Effect.sync(() => {
            if (claim._tag !== "Claimed") return
            const writers = disk.partWriters.get(uploadId)
            if (writers?.get(partNumber) === claim.writer) writers.delete(partNumber)
            if (writers !== undefined && writers.size === 0) disk.partWriters.delete(uploadId)
            Deferred.doneUnsafe(claim.writer.done, Effect.void)
          })
      )
      if (taken._tag === "Closing") return Option.none()
      if (taken._tag === "Claimed") return Option.some(taken.writer)
      const ended = yield* Deferred.await(taken.by.done).pipe(Effect.timeoutOption(Duration.seconds(1)))
      if (Option.isNone(ended) && progressNow() - taken.by.lastProgress >= stalledWriteMillis) {
        yield* Deferred.succeed(taken.by.stop, undefined)
        yield* Deferred.await(taken.by.done)
      }
    }
  })

/** Whether part `partNumber` of the upload in `directory` has landed (its pointer is there). */
export const hasPlacedPart = async (directory: string, partNumber: number): Promise<boolean> => {
  try {
    await fs.access(path.join(directory, `${partNumber}.json`))
    return true
  } catch (error) {
    if (LocalDisk.isMissing(error)) return false
    throw error
  }
}

/**
 * Marks `uploadId` as being completed or aborted until the scope closes: no part write
 * starts on it, and those under way are stopped and waited for.
 */
export const closeUpload = (disk: LocalDisk.LocalDisk, uploadId: string): Effect.Effect<void, never, Scope.Scope> =>
  Effect.gen(function*() {
    yield* Effect.acquireRelease(
      Effect.sync(() => void disk.closingUploads.set(uploadId, (disk.closingUploads.get(uploadId) ?? 0) + 1)),
      () =>
        Effect.sync(() => {
          const count = (disk.closingUploads.get(uploadId) ?? 1) - 1
          if (count === 0) disk.closingUploads.delete(uploadId)
          else disk.closingUploads.set(uploadId, count)
        })
    )
    for (const writer of [...(disk.partWriters.get(uploadId)?.values() ?? [])]) {
      yield* Deferred.succeed(writer.stop, undefined)
      yield* Deferred.await(writer.done)
    }
  })

/**
 * Forgets part `partNumber` of an upload laid out in place before its place is written
 * again, durably: after a crash, a pointer never claims bytes half rewritten.
 */
export const forgetPlacedPart = async (directory: string, partNumber: number): Promise<void> => {
  try {
    await fs.unlink(path.join(directory, `${partNumber}.json`))
  } catch (error) {
    if (LocalDisk.isMissing(error)) return
    throw error
  }
  await LocalDisk.syncDirectory(directory)
}

/**
 * Commits part `partNumber` of an upload laid out in place, its bytes flushed in
 * `data`: a new pointer is renamed over `<n>.json`. Fails with `ENOENT` when the
 * upload's directory is gone.
 */
export const commitPlacedPart = async (
  directory: string,
  partNumber: number,
  part: { readonly size: number; readonly etag: string }
): Promise<void> => {
  const pointerTemporary = LocalDisk.temporaryPath(directory)
  try {
    await LocalDisk.writeDurably(pointerTemporary, new TextEncoder().encode(JSON.stringify(part satisfies PartPointer)))
    await fs.rename(pointerTemporary, path.join(directory, `${partNumber}.json`))
  } catch (error) {
    await LocalDisk.removeQuietly(pointerTemporary)
    throw error
  }
  await LocalDisk.syncDirectory(directory)
}

const copyChunkBytes = 1024 * 1024

/** Copies the first `size` bytes of `source` to `target` at `position`; fails when `source` holds fewer. */
export const copyRange = async (source: fs.FileHandle, target: fs.FileHandle, size: number, position: number): Promise<void> => {
  const buffer = Buffer.allocUnsafe(Math.min(copyChunkBytes, Math.max(size, 1)))
  let copied = 0
  while (copied < size) {
    const { bytesRead } = await source.read(buffer, 0, Math.min(buffer.byteLength, size - copied), copied)
    if (bytesRead === 0) throw new Error(`A part file ended after ${copied} of ${size} bytes`)
    await LocalDisk.writeAllAt(target, buffer.subarray(0, bytesRead), position + copied)
    copied += bytesRead
  }
}

/**
 * How a whole object is committed (`LocalTransfers.commitObject` on the store's disk),
 * passed in so this module does not depend on the receiver.
 */
export type CommitObject = (
  paths: LocalDisk.KeyPaths,
  temporary: { readonly data: string; meta: string | undefined },
  contentType: string
) => Effect.Effect<void, { readonly _tag: "UploadRefused"; readonly detail: string } | StorageError>

/**
 * For an upload laid out in place: the named parts must be 1…k, every one but the last
 * of exactly `partSize` bytes (a shorter one would leave a gap in `data`).
 */
const placementRefusal = (
  parts: ReadonlyArray<CompletedPart>,
  pointers: ReadonlyMap<number, PartPointer>,
  partSize: number
): MultipartRefused | undefined => {
  for (const [index, { partNumber }] of parts.entries()) {
    if (partNumber !== index + 1) return new MultipartRefused({ reason: "InvalidPart", partNumber: index + 1 })
    if (index < parts.length - 1 && pointers.get(partNumber)!.size !== partSize) {
      return new MultipartRefused({ reason: "EntityTooSmall", partNumber })
    }
  }
  return undefined
}

/**
 * Completes the upload into the object under `key` and ends it: the parts are checked
 * (`completionRefusal`, and `placementRefusal` for an upload laid out in place), the
 * object's bytes made ready beside nothing readable — laid out in place, `data` is cut
 * to the parts' length (parts past them are forgotten, as S3 drops parts a completion
 * does not name) and flushed; otherwise the parts are streamed in order into a
 * temporary file and flushed — and committed with their metadata exactly as a whole
 * upload is (`commitObject`: a key holding a file already refuses it); only then is the
 * upload's directory removed. Killed before the commit, the parts are all still there
 * and nothing is readable under the key; after it, the object is whole.
 */
export const complete = (
  disk: LocalDisk.LocalDisk,
  commitObject: CommitObject,
  key: string,
  uploadId: string,
  parts: ReadonlyArray<CompletedPart>
): Effect.Effect<void, MultipartRefused | StorageError> =>
  Effect.scoped(Effect.gen(function*() {
    const operation = "completeMultipart"
    const found = yield* findUpload(disk, operation, key, uploadId)
    if (Option.isNone(found)) return yield* new MultipartRefused({ reason: "NoSuchUpload" })
    const { directory, record } = found.value
    const { partSize } = record
    if (partSize !== undefined) {
      // In place, no part may be written while the parts are checked and the data moves.
      yield* closeUpload(disk, uploadId)
      // Its data gone: committed by a completion killed before it removed the directory,
      // so the object is under the key and the upload done. Cleared, whatever parts it lists.
      if (!(yield* LocalDisk.attempt(operation, () => fs.access(dataPath(directory)).then(() => true, (error) => {
        if (LocalDisk.isMissing(error)) return false
        throw error
      })))) {
        yield* LocalDisk.attempt(operation, () => fs.rm(directory, { recursive: true, force: true, maxRetries: 3 }))
        return yield* new MultipartRefused({ reason: "NoSuchUpload" })
      }
    }
    const pointers = yield* LocalDisk.attempt(operation, () => readPointers(directory)).pipe(
      Effect.catchIf(LocalDisk.isMissing, () => Effect.fail(new MultipartRefused({ reason: "NoSuchUpload" })))
    )
    const refused = completionRefusal(parts, (partNumber) => pointers.get(partNumber)) ??
      (partSize === undefined ? undefined : placementRefusal(parts, pointers, partSize))
    if (refused !== undefined) return yield* refused
    const resolved = LocalDisk.resolveKey(disk.root, key)
    if (Result.isFailure(resolved)) return yield* new StorageError({ operation, cause: resolved.failure })
    const paths = resolved.success

    // The bytes of each part as checked: a `.part` file never changes once a pointer names
    // it (a part PUT again gets a file of its own), so it is opened when its turn comes —
    // one at a time, however many parts (8,534 for 50 GiB) — and one removed meanwhile
    // (replaced, or the upload ended) refuses the completion as InvalidPart.
    // Each at the offset where the parts before it end.
    const sources: Array<{ readonly partNumber: number; readonly file: string; readonly size: number; readonly offset: number }> = []
    if (partSize === undefined) {
      let offset = 0
      for (const { partNumber } of parts) {
        const pointer = pointers.get(partNumber)!
        if (pointer.file === undefined) return yield* new MultipartRefused({ reason: "InvalidPart", partNumber })
        sources.push({ partNumber, file: path.join(directory, pointer.file), size: pointer.size, offset })
        offset += pointer.size
      }
    }

    const objectDirectory = path.dirname(paths.file)
    const conflict = (cause: unknown) => new StorageError({ operation, cause })
    if (!(yield* LocalDisk.attempt(operation, () => LocalDisk.ensureDirectory(objectDirectory)))) {
      return yield* conflict(new Error("Another stored key is in the way of this one (one names a directory of the other)."))
    }
    const temporary: { readonly data: string; meta: string | undefined } = {
      data: partSize === undefined ? LocalDisk.temporaryPath(objectDirectory) : dataPath(directory),
      meta: undefined
    }
    let committed = false
    yield* Effect.addFinalizer(() =>
      committed ? Effect.void : Effect.promise(async () => {
        // The data laid out in place stays with its upload, which can still be completed.
        if (partSize === undefined) await LocalDisk.removeQuietly(temporary.data)
        if (temporary.meta !== undefined) await LocalDisk.removeQuietly(temporary.meta)
      })
    )
    if (partSize === undefined) {
      const close = (handle: fs.FileHandle) => Effect.promise(() => handle.close().catch(() => undefined))
      yield* Effect.acquireUseRelease(
        LocalDisk.attempt(operation, () => fs.open(temporary.data, "wx", 0o600)),
        (target) =>
          Effect.andThen(
            Effect.forEach(sources, (source) =>
              Effect.acquireUseRelease(
                LocalDisk.attempt(operation, () => fs.open(source.file, "r")).pipe(
                  Effect.catchIf(LocalDisk.isMissing, () => Effect.fail(new MultipartRefused({ reason: "InvalidPart", partNumber: source.partNumber })))
                ),
                (handle) => LocalDisk.attempt(operation, () => copyRange(handle, target, source.size, source.offset)),
                close
              ), { discard: true }),
            LocalDisk.attempt(operation, () => target.sync())
          ),
        close
      )
    } else {
      const length = parts.reduce((sum, { partNumber }) => sum + pointers.get(partNumber)!.size, 0)
      // Uninterruptible: a cut left running detached after this completion let go of the
      // upload would cut bytes a later part PUT wrote.
      yield* Effect.uninterruptible(LocalDisk.attempt(operation, async () => {
        for (const partNumber of pointers.keys()) if (partNumber > parts.length) await forgetPlacedPart(directory, partNumber)
        const data = await fs.open(temporary.data, "r+")
        try {
          await data.truncate(length)
          await data.sync()
        } finally {
          await data.close()
        }
      })).pipe(Effect.catchIf(LocalDisk.isMissing, () => Effect.fail(new MultipartRefused({ reason: "NoSuchUpload" }))))
    }
    yield* Effect.uninterruptible(commitObject(paths, temporary, record.contentType)).pipe(
      Effect.catchTag("UploadRefused", (refusal) =>
        // A completion that raced this one has already committed and ended the upload.
        Effect.flatMap(findUpload(disk, operation, key, uploadId), (upload): Effect.Effect<never, MultipartRefused | StorageError> =>
          Option.isNone(upload)
            ? Effect.fail(new MultipartRefused({ reason: "NoSuchUpload" }))
            : Effect.fail(conflict(new Error(refusal.detail)))))
    )
    committed = true
    yield* LocalDisk.attempt(operation, () => fs.rm(directory, { recursive: true, force: true, maxRetries: 3 }))
  }))

/** Ends the upload `uploadId` of `key` and removes its parts; one not there is fine. */
export const abort = (disk: LocalDisk.LocalDisk, key: string, uploadId: string): Effect.Effect<void, StorageError> =>
  Effect.flatMap(findUpload(disk, "abortMultipart", key, uploadId), (upload) =>
    Option.isNone(upload) ? Effect.void : Effect.scoped(
      // Part writes under way stop first: none lands in a directory being removed.
      Effect.andThen(
        closeUpload(disk, uploadId),
        LocalDisk.attempt("abortMultipart", () => fs.rm(upload.value.directory, { recursive: true, force: true, maxRetries: 3 }))
      )
    ))

/** The latest modification in `directory`: itself (an entry added or renamed) or any file in it (a part streaming). */
const lastWrite = async (directory: string): Promise<number> => {
  let latest = (await fs.lstat(directory)).mtimeMs
  for (const name of await fs.readdir(directory)) {
    try {
      latest = Math.max(latest, (await fs.lstat(path.join(directory, name))).mtimeMs)
    } catch (error) {
      if (!LocalDisk.isMissing(error)) throw error
    }
  }
  return latest
}

/**
 * Removes the uploads nothing has written to since `beforeMs` (nobody completed or
 * aborted them); answers how many. Links are never followed.
 */
export const removeAbandoned = async (disk: LocalDisk.LocalDisk, beforeMs: number): Promise<number> => {
  const parent = path.join(disk.root, multipartDirectory)
  let entries
  try {
    entries = await fs.readdir(parent, { withFileTypes: true })
  } catch (error) {
    if (LocalDisk.isMissing(error)) return 0
    throw error
  }
  let removed = 0
  for (const entry of entries) {
    if (!entry.isDirectory() || !uploadIdPattern.test(entry.name)) continue
    const directory = path.join(parent, entry.name)
    try {
      if ((await lastWrite(directory)) >= beforeMs) continue
      await fs.rm(directory, { recursive: true, force: true, maxRetries: 3 })
      removed++
    } catch (error) {
      // Completed or aborted meanwhile.
      if (!LocalDisk.isMissing(error)) throw error
    }
  }
  return removed
}
