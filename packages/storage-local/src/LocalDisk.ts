/**
 * How objects lie on disk, shared by the store and the upload receiver: the one path
 * guard that turns a key into paths, the metadata sidecars, durable writes and the
 * ordered walk behind `list`. Internal to the package.
 *
 * Layout under the root (its real path, symlinks of the root itself resolved):
 *
 * - `<root>/<key>`: the bytes, a regular file, only ever renamed into place whole;
 * - `<root>/.meta/<key>`: JSON `{ "contentType": … }`, written the same way;
 * - `<dir>/.upload-<random>`: an upload in progress, beside its final place;
 * - `<root>/.multipart/<uploadId>/…`: a multipart upload and its parts (see `LocalMultipart`).
 *
 * No key segment may start with a dot, so `.meta`, `.multipart` and temporary files never collide
 * with keys, are never listed and are never served.
 *
 * @since 0.1.0
 */
import { StorageError } from "@coursekit/core"
import { Data, type Deferred, Effect, Option, Result, Semaphore } from "effect"
import { randomBytes } from "node:crypto"
import { constants, type Dir, type Stats } from "node:fs"
import * as fs from "node:fs/promises"
import * as path from "node:path"

/** The directory under the root holding the metadata sidecars. */
export const metaDirectory = ".meta"

/** Names of uploads in progress start with this. */
export const temporaryPrefix = ".upload-"

/** Longest key, in UTF-8 bytes (S3's limit). */
const maxKeyBytes = 1024
/** Longest segment, in UTF-8 bytes (NAME_MAX of common file systems). */
const maxSegmentBytes = 255

/** A key the store refuses: it could name a place outside the store or its own files. */
export class InvalidKey extends Data.TaggedError("InvalidKey")<{
  readonly key: string
  readonly reason: string
}> {
  override get message(): string {
    return `Invalid storage key ${JSON.stringify(this.key)}: ${this.reason}.`
  }
}

/** Where one key lives. */
export interface KeyPaths {
  readonly key: string
  /** The object's bytes. */
  readonly file: string
  /** Its metadata sidecar. */
  readonly meta: string
}

const within = (parent: string, child: string) => child.startsWith(parent + path.sep) && child.length > parent.length + 1

// C0 controls and DEL: NUL truncates paths in C, the rest have no place in a key.
const controlCharacter = /[\u0000-\u001f\u007f]/

/**
 * The path guard: every key becomes a path through here, and only here. `root` must be
 * absolute and resolved. The resolved paths are checked to stay under the root even
 * though the segment rules already exclude every way out.
 */
export const resolveKey = (root: string, key: string): Result.Result<KeyPaths, InvalidKey> => {
  const invalid = (reason: string) => Result.fail(new InvalidKey({ key, reason }))
  if (typeof key !== "string" || key.length === 0) return invalid("it is empty")
  if (Buffer.byteLength(key, "utf8") > maxKeyBytes) return invalid(`it is longer than ${maxKeyBytes} bytes`)
  if (controlCharacter.test(key)) return invalid("it contains a control character")
  if (key.includes("\\")) return invalid("it contains a backslash")
  if (key.startsWith("/") || path.isAbsolute(key)) return invalid("it is absolute")
  const segments = key.split("/")
  for (const segment of segments) {
    if (segment === "") return invalid("it has an empty segment")
    if (segment === "." || segment === "..") return invalid(`it has a "${segment}" segment`)
    if (segment.startsWith(".")) return invalid("a segment starts with a dot (reserved for the store)")
    if (Buffer.byteLength(segment, "utf8") > maxSegmentBytes) {
      return invalid(`a segment is longer than ${maxSegmentBytes} bytes`)
    }
  }
  const file = path.resolve(root, ...segments)
  const metaRoot = path.join(root, metaDirectory)
  const meta = path.resolve(metaRoot, ...segments)
  if (!within(root, file) || within(metaRoot, file) || !within(metaRoot, meta)) {
    return invalid("it resolves outside the store")
  }
  return Result.succeed({ key, file, meta })
}

/** Runs a file system call; a failure is a `StorageError` for `operation`. */
export const attempt = <A>(operation: string, run: () => Promise<A>): Effect.Effect<A, StorageError> =>
  Effect.tryPromise({ try: run, catch: (cause) => new StorageError({ operation, cause }) })

/** The error code of a failed file system call. */
export const codeOf = (error: unknown): string | undefined => {
  const cause = error instanceof StorageError ? error.cause : error
  return typeof cause === "object" && cause !== null && "code" in cause && typeof cause.code === "string"
    ? cause.code
    : undefined
}

/** The path, or one of its parents, does not exist (or a parent is a file). */
export const isMissing = (error: unknown): boolean => {
  const code = codeOf(error)
  return code === "ENOENT" || code === "ENOTDIR"
}

/** The root's state, shared by the store and the receiver of one layer. */
export interface LocalDisk {
  /** The root's real path. */
  readonly root: string
  /**
   * Held while data and metadata of one key change together (an upload's two renames,
   * a delete's two removals), so a reader never pairs bytes with another upload's type.
   */
  readonly commitLock: Semaphore.Semaphore
  /**
   * Parts this process is writing in place, by upload id and part number. A part PUT
   * again waits for the write before it (or stops it, stalled), and completion or abort
   * stop them all, so two writes never mix in one place (see `LocalMultipart.claimPart`).
   */
  readonly partWriters: Map<string, Map<number, PartWriter>>
  /** Uploads being completed or aborted, with how many such calls run: no part write starts on them. */
  readonly closingUploads: Map<string, number>
}

/** A part being written in place: told to `stop`, it ends, closes its file, then completes `done`. */
export interface PartWriter {
  readonly stop: Deferred.Deferred<void>
  readonly done: Deferred.Deferred<void>
  /** When bytes last arrived (epoch ms): a write that stalls may be stopped by a newer one. */
  lastProgress: number
}

/** Creates the root (mode 0700) and its metadata directory when missing. */
export const open = Effect.fn("LocalDisk.open")(function*(root: string) {
  const absolute = path.resolve(root)
  yield* attempt("start", () => fs.mkdir(absolute, { recursive: true, mode: 0o700 }))
  const real = yield* attempt("start", () => fs.realpath(absolute))
  yield* attempt("start", () => fs.mkdir(path.join(real, metaDirectory), { mode: 0o700 })).pipe(
    Effect.catchIf((error) => codeOf(error) === "EEXIST", () => Effect.void)
  )
  const commitLock = yield* Semaphore.make(1)
  return { root: real, commitLock, partWriters: new Map(), closingUploads: new Map() } satisfies LocalDisk
})

/**
 * Whether `file` is reached without following a symbolic link below the root. The
 * store only creates regular files and directories; a link placed under the root could
 * point anywhere, so it is never followed.
 */
const isPlain = (file: string): Effect.Effect<boolean, StorageError> =>
  attempt("resolve", () => fs.realpath(file)).pipe(
    Effect.map((real) => real === file),
    Effect.catchIf(isMissing, () => Effect.succeed(false))
  )

/** The stat of the object at `paths`, or `None` when there is no object. */
export const statObject = (operation: string, paths: KeyPaths): Effect.Effect<Option.Option<Stats>, StorageError> =>
  Effect.gen(function*() {
    if (!(yield* isPlain(paths.file))) return Option.none()
    const stats = yield* attempt(operation, () => fs.stat(paths.file)).pipe(
      Effect.map(Option.some),
      Effect.catchIf(isMissing, () => Effect.succeed(Option.none<Stats>()))
    )
    return Option.filter(stats, (stats) => stats.isFile())
  })

/** The object opened for reading, with its stat, or `None`. The caller closes the handle. */
export const openObject = (paths: KeyPaths): Effect.Effect<Option.Option<{ readonly handle: fs.FileHandle; readonly stats: Stats }>, StorageError> =>
  Effect.gen(function*() {
    if (!(yield* isPlain(paths.file))) return Option.none()
    // O_NOFOLLOW: the last segment may have become a link since the check above.
    const handle = yield* attempt("open", () => fs.open(paths.file, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0))).pipe(
      Effect.map(Option.some),
      Effect.catchIf((error) => isMissing(error) || codeOf(error) === "ELOOP", () => Effect.succeed(Option.none<fs.FileHandle>()))
    )
    if (Option.isNone(handle)) return Option.none()
    const stats = yield* attempt("open", () => handle.value.stat()).pipe(
      Effect.onError(() => Effect.promise(() => handle.value.close().catch(() => undefined)))
    )
    if (!stats.isFile()) {
      yield* Effect.promise(() => handle.value.close().catch(() => undefined))
      return Option.none()
    }
    return Option.some({ handle: handle.value, stats })
  })

/** What the sidecar records. */
interface Metadata {
  readonly contentType: string
}

/** The content type recorded for `paths`; `undefined` when no sidecar is readable. */
export const readContentType = (paths: KeyPaths): Effect.Effect<string | undefined, StorageError> =>
  attempt("head", () => fs.readFile(paths.meta, "utf8")).pipe(
    Effect.map((text) => {
      try {
        const parsed: unknown = JSON.parse(text)
        return typeof parsed === "object" && parsed !== null && "contentType" in parsed &&
            typeof parsed.contentType === "string"
          ? parsed.contentType
          : undefined
      } catch {
        // A sidecar cut short or edited by hand: the bytes are still the object.
        return undefined
      }
    }),
    Effect.catchIf(isMissing, () => Effect.succeed(undefined))
  )

/** A fresh name for an upload in progress in `directory`. */
export const temporaryPath = (directory: string): string =>
  path.join(directory, `${temporaryPrefix}${randomBytes(12).toString("hex")}`)

/** Writes `bytes` to a new file at `file` and flushes it to disk. */
export const writeDurably = async (file: string, bytes: Uint8Array): Promise<void> => {
  const handle = await fs.open(file, "wx", 0o600)
  try {
    await writeAll(handle, bytes)
    await handle.sync()
  } finally {
    await handle.close()
  }
}

/** Writes all of `bytes` at the handle's position (a write may take fewer). */
export const writeAll = async (handle: fs.FileHandle, bytes: Uint8Array): Promise<void> => {
  let offset = 0
  while (offset < bytes.byteLength) {
    const { bytesWritten } = await handle.write(bytes, offset, bytes.byteLength - offset)
    offset += bytesWritten
  }
}

/** Writes all of `bytes` at `position` in the file (a write may take fewer). */
export const writeAllAt = async (handle: fs.FileHandle, bytes: Uint8Array, position: number): Promise<void> => {
  let offset = 0
  while (offset < bytes.byteLength) {
    const { bytesWritten } = await handle.write(bytes, offset, bytes.byteLength - offset, position + offset)
    offset += bytesWritten
  }
}

/** The sidecar's bytes. */
export const metadataBytes = (contentType: string): Uint8Array =>
  new TextEncoder().encode(JSON.stringify({ contentType } satisfies Metadata))

/**
 * Flushes a directory, so a rename into it survives a crash. Best effort: not every
 * platform can open a directory for this.
 */
export const syncDirectory = async (directory: string): Promise<void> => {
  try {
    const handle = await fs.open(directory, "r")
    try {
      await handle.sync()
    } finally {
      await handle.close()
    }
  } catch {
    // Durability of the rename only; the data itself was flushed before.
  }
}

/**
 * Removes the temporary upload files under `root` (its `.meta` and `.multipart` too)
 * last modified before `beforeMs`; answers how many. Each directory is read as a stream
 * (a store holds many files), and symbolic links are never followed. A directory removed
 * after it was listed (an upload completed or aborted meanwhile) is passed over.
 */
export const removeTemporaryFiles = async (root: string, beforeMs: number): Promise<number> => {
  let removed = 0
  const visit = async (directory: string, entries: Dir): Promise<void> => {
    for await (const entry of entries) {
      const file = path.join(directory, entry.name)
      if (entry.isDirectory()) {
        const below = await fs.opendir(file).catch((error: unknown) => {
          if (isMissing(error)) return undefined
          throw error
        })
        if (below !== undefined) await visit(file, below)
        continue
      }
      if (!entry.isFile() || !entry.name.startsWith(temporaryPrefix)) continue
      try {
        if ((await fs.lstat(file)).mtimeMs >= beforeMs) continue
        await fs.unlink(file)
        removed++
      } catch (error) {
        // Committed or removed meanwhile.
        if (!isMissing(error)) throw error
      }
    }
  }
  await visit(root, await fs.opendir(root))
  return removed
}

/** Removes a file; an absent one is fine. */
export const removeQuietly = async (file: string): Promise<void> => {
  await fs.rm(file, { force: true }).catch(() => undefined)
}

/**
 * Creates `directory` and its parents (mode 0700) and checks that it is reached
 * without links. `false` when a parent is a file or a link: another key is in the way.
 */
export const ensureDirectory = async (directory: string): Promise<boolean> => {
  try {
    await fs.mkdir(directory, { recursive: true, mode: 0o700 })
    return (await fs.realpath(directory)) === directory
  } catch (error) {
    const code = codeOf(error)
    if (code === "EEXIST" || code === "ENOTDIR") return false
    throw error
  }
}

/** One key of a walk. */
export interface WalkedKey {
  readonly key: string
  readonly stats: Stats
}

/**
 * Up to `limit` keys starting with `prefix` and after `after`, in ascending order
 * (JavaScript string order), and whether more follow.
 *
 * A depth-first walk yields keys in order when each directory's entries are sorted by
 * name, a directory's name taken with its trailing `/`: every key under `d/` sorts
 * against a sibling exactly as `d/` does. Subtrees outside the prefix, or wholly at or
 * before `after`, are skipped, and the walk stops one key past the page.
 */
export const walk = async (
  root: string,
  prefix: string,
  after: string | undefined,
  limit: number,
  signal: AbortSignal
): Promise<{ readonly keys: ReadonlyArray<WalkedKey>; readonly more: boolean }> => {
  const keys: Array<WalkedKey> = []
  let more = false

  const visit = async (directory: string, keyPrefix: string): Promise<boolean> => {
    if (signal.aborted) throw signal.reason
    let entries
    try {
      entries = await fs.readdir(directory, { withFileTypes: true })
    } catch (error) {
      // A directory removed or replaced while walking holds no keys now.
      if (isMissing(error)) return true
      throw error
    }
    const named = entries
      .filter((entry) => !entry.name.startsWith(".") && (entry.isFile() || entry.isDirectory()))
      .map((entry) => ({ entry, sortName: entry.isDirectory() ? `${entry.name}/` : entry.name }))
      .sort((a, b) => (a.sortName < b.sortName ? -1 : a.sortName > b.sortName ? 1 : 0))
    for (const { entry, sortName } of named) {
      const key = keyPrefix + sortName
      if (entry.isDirectory()) {
        // Keys below share `key` as their prefix.
        if (!(key.startsWith(prefix) || prefix.startsWith(key))) continue
        if (after !== undefined && after > key && !after.startsWith(key)) continue
        if (!(await visit(path.join(directory, entry.name), key))) return false
        continue
      }
      if (!key.startsWith(prefix) || (after !== undefined && key <= after)) continue
      if (Result.isFailure(resolveKey(root, key))) continue
      if (keys.length === limit) {
        more = true
        return false
      }
      try {
        keys.push({ key, stats: await fs.stat(path.join(directory, entry.name)) })
      } catch (error) {
        if (!isMissing(error)) throw error
      }
    }
    return true
  }

  await visit(root, "")
  return { keys, more }
}
