/**
 * One process per data directory. PGlite keeps its database in files that only one
 * process may have open: a second process on the same directory would write a diverging
 * copy that a restart loses or corrupts. The lock is a file in the directory
 * (`coursekit.lock`, mode 0600) naming the process that holds it; it is held for the
 * layer's lifetime and removed on release.
 *
 * A lock whose process is gone (a `kill -9`, a crash, a power cut) is stale and is taken
 * over. "Gone" means: the same host, and no live process with that id — or one with that
 * id that started at another instant than the holder (the id was reused; on Linux the
 * start time comes from `/proc`). A lock written on another host (a directory on a
 * network share) is never taken over automatically: the error says which host holds it.
 *
 * @since 0.1.0
 */
import { Data, Effect, type Scope } from "effect"
import { randomBytes } from "node:crypto"
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeSync } from "node:fs"
import { hostname } from "node:os"
import { join } from "node:path"

/** The lock file's name inside the directory. */
export const lockFileName = "coursekit.lock"

/** Who holds a data directory. */
export interface LockHolder {
  readonly pid: number
  readonly host: string
  /** When it took the lock (ISO 8601). */
  readonly since: string
  /** Its start time in clock ticks since boot (Linux), which tells a reused process id apart. */
  readonly started?: string | undefined
}

/** Another process holds the directory. */
export class DataDirectoryInUse extends Data.TaggedError("DataDirectoryInUse")<{
  readonly directory: string
  readonly holder: LockHolder
}> {
  override get message(): string {
    const { holder } = this
    const where = holder.host === hostname() ? "" : ` on host ${holder.host}`
    return `${this.directory} is in use by process ${holder.pid}${where} (since ${holder.since})`
  }
}

/** The lock file could not be read or written. */
export class DataDirectoryLockError extends Data.TaggedError("DataDirectoryLockError")<{
  readonly directory: string
  readonly cause: unknown
}> {
  override get message(): string {
    return `could not lock ${this.directory}: ${this.cause instanceof Error ? this.cause.message : String(this.cause)}`
  }
}

const codeOf = (error: unknown) => (error as { code?: string } | undefined)?.code

/** Field 22 of `/proc/<pid>/stat`; `undefined` off Linux or for a process that is gone. */
const startTimeOf = (pid: number): string | undefined => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    // The command name (field 2) may hold spaces and parentheses: count from the last ")".
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19]
  } catch {
    return undefined
  }
}

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: it exists, under another user.
    return codeOf(error) === "EPERM"
  }
}

/** Directories this process holds: a second layer in the same process is refused too. */
const heldHere = new Set<string>()

const readHolder = (file: string): LockHolder | undefined => {
  try {
    const parsed = JSON.parse(readFileSync(file, "utf8")) as Partial<LockHolder>
    return typeof parsed.pid === "number" && typeof parsed.host === "string" && typeof parsed.since === "string"
      ? { pid: parsed.pid, host: parsed.host, since: parsed.since, started: parsed.started }
      : undefined
  } catch (error) {
    if (codeOf(error) === "ENOENT") return undefined
    // Unreadable or half-written: treat it as held by nobody we can name.
    return { pid: 0, host: "", since: "" }
  }
}

/** How long a lock file may stay unreadable (created, not yet written) before it counts as stale. */
const unwrittenGraceMs = 10_000

const pause = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms)

const isStale = (holder: LockHolder, file: string): boolean => {
  if (holder.pid === 0) {
    // Left empty by a process that died between creating and writing it.
    try {
      return Date.now() - statSync(file).mtimeMs > unwrittenGraceMs
    } catch {
      return false
    }
  }
  if (holder.host !== hostname()) return false
  if (holder.pid === process.pid) return true // not us (we check heldHere first): the id was reused
  if (!isAlive(holder.pid)) return true
  if (holder.started === undefined) return false
  const started = startTimeOf(holder.pid)
  return started !== undefined && started !== holder.started
}

const writeNew = (file: string, holder: LockHolder): boolean => {
  let fd: number
  try {
    fd = openSync(file, "wx", 0o600)
  } catch (error) {
    if (codeOf(error) === "EEXIST") return false
    throw error
  }
  try {
    writeSync(fd, JSON.stringify(holder))
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
  return true
}

const tryAcquire = (file: string): LockHolder | { readonly busy: LockHolder } => {
  const mine: LockHolder = {
    pid: process.pid,
    host: hostname(),
    since: new Date().toISOString(),
    started: startTimeOf(process.pid)
  }
  // A few rounds: a stale lock moved away, a holder that released in between, or one
  // caught between creating its lock file and writing it (read as pid 0).
  for (let round = 0; round < 10; round++) {
    if (writeNew(file, mine)) return mine
    const holder = readHolder(file)
    if (holder === undefined) continue
    if (!isStale(holder, file)) {
      if (holder.pid !== 0) return { busy: holder }
      pause(50)
      continue
    }
    // Moved aside, not deleted: only the file we judged stale leaves, even if another
    // process took the lock over in between (then it is put back).
    const aside = `${file}.stale-${randomBytes(6).toString("hex")}`
    try {
      renameSync(file, aside)
    } catch (error) {
      if (codeOf(error) === "ENOENT") continue
      throw error
    }
    const moved = readHolder(aside)
    if (moved !== undefined && moved.pid === holder.pid && moved.since === holder.since) {
      unlinkSync(aside)
    } else {
      try {
        renameSync(aside, file)
      } catch {
        // Nothing to put back.
      }
    }
  }
  return { busy: readHolder(file) ?? { pid: 0, host: "", since: "" } }
}

/**
 * Holds `directory` (which must exist) for the scope: fails with {@link DataDirectoryInUse}
 * when a live process holds it, takes a stale lock over, and removes the lock on release.
 */
export const acquire = (directory: string): Effect.Effect<void, DataDirectoryInUse | DataDirectoryLockError, Scope.Scope> => {
  const file = join(directory, lockFileName)
  return Effect.acquireRelease(
    Effect.suspend(() => {
      if (heldHere.has(file)) {
        return Effect.fail(
          new DataDirectoryInUse({ directory, holder: { pid: process.pid, host: hostname(), since: "earlier in this process" } })
        )
      }
      return Effect.try({
        try: () => tryAcquire(file),
        catch: (cause) => new DataDirectoryLockError({ directory, cause })
      }).pipe(Effect.flatMap((result) => {
        if ("busy" in result) return Effect.fail(new DataDirectoryInUse({ directory, holder: result.busy }))
        heldHere.add(file)
        return Effect.succeed(result)
      }))
    }),
    (mine) =>
      Effect.sync(() => {
        heldHere.delete(file)
        const holder = readHolder(file)
        // Only our own lock is removed.
        if (holder?.pid === mine.pid && holder.since === mine.since) {
          try {
            unlinkSync(file)
          } catch {
            // Already gone.
          }
        }
      })
  ).pipe(Effect.asVoid)
}
