/**
 * One process per data directory. PGlite keeps its database in files that only one
 * process may have open: a second process on the same directory would write a diverging
 * copy that a restart loses or corrupts. The lock is a file in the directory
 * (`coursekit.lock`, mode 0600) naming the process that holds it (id, start time, host).
 * It is held for the scope, its modification time refreshed every second (the
 * heartbeat), and removed on release.
 *
 * A lock is live when its process runs here (same host, that process id alive, with the
 * start time the lock names). Anything else — a process that is gone after a `kill -9`,
 * a lock from another host or another container (whose process ids say nothing here) —
 * is taken over only once its heartbeat has stopped for {@link staleAfterMillis}: a new
 * process waits that long at most. Takeovers are serialized through a second file, and
 * only the very file judged stale (by inode) is replaced.
 *
 * @since 0.1.0
 */
import { Effect, Schema, type Scope } from "effect"
import { closeSync, fsyncSync, openSync, readFileSync, statSync, unlinkSync, utimesSync, writeSync } from "node:fs"
import { hostname } from "node:os"
import { join } from "node:path"

/** The lock file's name inside the directory. */
export const lockFileName = "coursekit.lock"

/** How often the holder refreshes the lock file. */
export const heartbeatMillis = 1_000

/** How long a lock whose process is not known to be live must go unrefreshed before it is taken over. */
export const staleAfterMillis = 5_000

/** Who holds a data directory. */
export const LockHolder = Schema.Struct({
  pid: Schema.Int,
  host: Schema.String,
  /** When it took the lock (ISO 8601). */
  since: Schema.String,
  /** Its start time in clock ticks since boot (Linux), which tells a reused process id apart. */
  started: Schema.optionalKey(Schema.String)
})
export type LockHolder = typeof LockHolder.Type

/** Another process (or another part of this one) holds the directory. */
export class DataDirectoryInUse extends Schema.TaggedError<DataDirectoryInUse>()("DataDirectoryInUse", {
  directory: Schema.String,
  /** `undefined` when the lock file names nobody yet (a holder between creating and writing it). */
  holder: Schema.UndefinedOr(LockHolder)
}) {
  override get message(): string {
    const { holder } = this
    if (holder === undefined) return `${this.directory} is being locked by another process`
    const where = holder.host === hostname() ? "" : ` on host ${holder.host}`
    return `${this.directory} is in use by process ${holder.pid}${where} (since ${holder.since})`
  }
}

/** The lock file could not be read or written. */
export class DataDirectoryLockError extends Schema.TaggedError<DataDirectoryLockError>()("DataDirectoryLockError", {
  directory: Schema.String,
  cause: Schema.Defect()
}) {
  override get message(): string {
    return `could not lock ${this.directory}: ${this.cause instanceof Error ? this.cause.message : String(this.cause)}`
  }
}

// Lock files are judged by their modification times, which are wall-clock times: the
// lock reads the wall clock and waits with real timers, never the Effect clock (a test's
// TestClock would never agree with a file's mtime, nor ever let a wait end).
const wallClockMillis = Effect.sync(() => Date.now())
const pause = (millis: number) =>
  Effect.callback<void>((resume) => {
    const timer = setTimeout(() => resume(Effect.void), millis)
    return Effect.sync(() => clearTimeout(timer))
  })

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

/**
 * Directories held in this process, shared by every copy of this module (a bundle
 * and the sources, two versions): the lock file alone cannot tell two holders in one
 * process apart.
 */
const heldHere: Set<string> = ((globalThis as Record<symbol, unknown>)[Symbol.for("@coursekit/postgres/DataDirectoryLock")] ??= new Set<string>()) as Set<string>

const decodeHolder = Schema.decodeUnknownOption(Schema.fromJsonString(LockHolder))

/** What the lock file says now: absent, unreadable as a holder (being written), or its holder and inode. */
type Observed =
  | { readonly _tag: "Absent" }
  | { readonly _tag: "Unnamed"; readonly ino: number; readonly mtimeMs: number }
  | { readonly _tag: "Named"; readonly holder: LockHolder; readonly ino: number; readonly mtimeMs: number }

const observe = (file: string): Observed => {
  let text: string
  let stats: { ino: number; mtimeMs: number }
  try {
    stats = statSync(file)
    text = readFileSync(file, "utf8")
  } catch (error) {
    if (codeOf(error) === "ENOENT") return { _tag: "Absent" }
    throw error
  }
  const holder = decodeHolder(text)
  return holder._tag === "Some"
    ? { _tag: "Named", holder: holder.value, ino: stats.ino, mtimeMs: stats.mtimeMs }
    : { _tag: "Unnamed", ino: stats.ino, mtimeMs: stats.mtimeMs }
}

/** Whether `holder` is a process running now, here; only such a lock is never taken over. */
const isLive = (holder: LockHolder, mine: LockHolder): boolean => {
  if (holder.host !== mine.host) return false
  if (holder.pid === mine.pid) {
    // This process, through another copy of this module or a worker thread — unless the id was reused.
    return holder.started === undefined || mine.started === undefined || holder.started === mine.started
  }
  if (!isAlive(holder.pid)) return false
  if (holder.started === undefined) return true
  const started = startTimeOf(holder.pid)
  return started === undefined || started === holder.started
}

/** Creates `file` holding `text`, or `false` when it exists. */
const createExclusive = (file: string, text: string): boolean => {
  let fd: number
  try {
    fd = openSync(file, "wx", 0o600)
  } catch (error) {
    if (codeOf(error) === "EEXIST") return false
    throw error
  }
  try {
    writeSync(fd, text)
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
  return true
}

const unlinkIfPresent = (file: string) => {
  try {
    unlinkSync(file)
  } catch (error) {
    if (codeOf(error) !== "ENOENT") throw error
  }
}

/**
 * Replaces the lock judged stale (`stale`: its inode and time) with `mine`, under the
 * takeover file so that two processes never replace it at once. `false` when another
 * process got there first. The inode alone cannot tell: a file system reuses the inode of
 * the stale file for the lock that replaced it, so the time must match too (the
 * replacement is fresh).
 */
const takeOver = (file: string, stale: { readonly ino: number; readonly mtimeMs: number }, mine: string, nowMs: number): boolean => {
  const guard = `${file}.takeover`
  if (!createExclusive(guard, String(process.pid))) {
    // A takeover that died halfway leaves its guard behind: it is old by then.
    try {
      if (nowMs - statSync(guard).mtimeMs > staleAfterMillis * 2) unlinkIfPresent(guard)
    } catch (error) {
      if (codeOf(error) !== "ENOENT") throw error
    }
    return false
  }
  try {
    const now = observe(file)
    if (now._tag !== "Absent" && (now.ino !== stale.ino || now.mtimeMs !== stale.mtimeMs)) return false
    unlinkIfPresent(file)
    return createExclusive(file, mine)
  } finally {
    unlinkIfPresent(guard)
  }
}

const inUse = (directory: string, observed: Observed) =>
  new DataDirectoryInUse({ directory, holder: observed._tag === "Named" ? observed.holder : undefined })

/**
 * Holds `directory` (which must exist) for the scope. Fails with {@link DataDirectoryInUse}
 * when a live process holds it (or a lock keeps its heartbeat), takes a stale lock over,
 * and removes the lock on release.
 */
export const acquire = (directory: string): Effect.Effect<void, DataDirectoryInUse | DataDirectoryLockError, Scope.Scope> => {
  const file = join(directory, lockFileName)
  const attempt = <A>(run: () => A) => Effect.try({ try: run, catch: (cause) => new DataDirectoryLockError({ directory, cause }) })

  const take = Effect.gen(function*() {
    const startedAt = yield* wallClockMillis
    const mine: LockHolder = {
      pid: process.pid,
      host: hostname(),
      since: new Date(startedAt).toISOString(),
      ...(startTimeOf(process.pid) === undefined ? {} : { started: startTimeOf(process.pid)! })
    }
    const text = JSON.stringify(mine)
    // Long enough for a stopped heartbeat to show, and for a holder to finish writing.
    const giveUpAt = startedAt + staleAfterMillis + 2 * heartbeatMillis
    while (true) {
      if (yield* attempt(() => createExclusive(file, text))) return { mine, ino: yield* attempt(() => statSync(file).ino) }
      const observed = yield* attempt(() => observe(file))
      if (observed._tag === "Absent") continue
      if (observed._tag === "Named" && isLive(observed.holder, mine)) return yield* inUse(directory, observed)
      const now = yield* wallClockMillis
      if (now - observed.mtimeMs > staleAfterMillis) {
        if (yield* attempt(() => takeOver(file, observed, text, now))) {
          return { mine, ino: yield* attempt(() => statSync(file).ino) }
        }
      } else if (now >= giveUpAt) {
        // Its heartbeat goes on: a live holder elsewhere (another host or container).
        return yield* inUse(directory, observed)
      }
      yield* pause(250)
    }
  })

  return Effect.acquireRelease(
    Effect.suspend(() =>
      heldHere.has(file)
        ? Effect.fail(new DataDirectoryInUse({
          directory,
          holder: { pid: process.pid, host: hostname(), since: "earlier in this process" }
        }))
        : take.pipe(Effect.tap(() => Effect.sync(() => heldHere.add(file))))
    ),
    ({ ino }) =>
      Effect.sync(() => {
        heldHere.delete(file)
        // Only our own lock is removed.
        try {
          if (statSync(file).ino === ino) unlinkSync(file)
        } catch {
          // Already gone.
        }
      })
  ).pipe(
    // The heartbeat: while the scope lasts, the lock file's time says its holder is alive.
    Effect.tap(({ ino }) =>
      Effect.flatMap(wallClockMillis, (now) =>
        Effect.sync(() => {
          if (statSync(file).ino === ino) utimesSync(file, now / 1000, now / 1000)
        })).pipe(
          Effect.ignore,
          Effect.andThen(pause(heartbeatMillis)),
          Effect.forever,
          Effect.forkScoped
        )
    ),
    Effect.asVoid
  )
}
