/**
 * The autosave queue of one record (a course or a lesson): what the editor hands it is
 * saved about `quietMs` after the author stops typing, read only then (an edit hands a
 * reader of the newest content, so a keystroke never pays for serializing a long body), one save in flight at a time, each
 * naming the version it was made from (`If-Match`). An edit made while a save is in
 * flight is kept and saved next, with the newest content; nothing the author typed is
 * dropped by a save finishing, failing or conflicting. A 412 stops the queue until the
 * author chooses (`keepMine` saves their content over the current version, `useTheirs`
 * drops it). Other writes of the record (publish, schedule, restore) go through the same
 * lane (`write`), after the content waiting to be saved, so no two requests ever name
 * one version. Plain TypeScript, no React: the timers are injected so tests drive them.
 */

/** What the editor shows: `saving` while a save is in flight, `saved` when nothing is left to save. */
export type SaveStatus =
  | { readonly _tag: "saved" }
  | { readonly _tag: "unsaved" }
  | { readonly _tag: "saving" }
  | { readonly _tag: "failed"; readonly message: string }
  | { readonly _tag: "conflict"; readonly current: unknown; readonly currentVersion: number }

/** The answer of one save. */
export type SaveOutcome =
  | { readonly _tag: "saved"; readonly version: number }
  | { readonly _tag: "conflict"; readonly current: unknown; readonly currentVersion: number }
  | { readonly _tag: "failed"; readonly message: string }

export interface Timers {
  setTimeout(run: () => void, ms: number): unknown
  clearTimeout(handle: unknown): void
}

export interface SaveQueueOptions<D> {
  /** The version the editor opened. */
  readonly version: number
  /** Saves `draft` as a change of `version`. Never rejects: a failure is an outcome. */
  readonly save: (draft: D, version: number) => Promise<SaveOutcome>
  /** Told every change of status. */
  readonly onStatus: (status: SaveStatus) => void
  /** Told the version each successful save made. */
  readonly onSaved?: (version: number, draft: D) => void
  /** Quiet time after the last edit before a save starts. */
  readonly quietMs?: number
  /** After a failure, the next attempt waits this long (unless the author edits again). */
  readonly retryMs?: number
  readonly timers?: Timers
}

export interface SaveQueue<D> {
  /**
   * The content changed; a save follows after the quiet time. `read` gives the newest
   * content and is called when the save starts (once per save, not once per edit).
   */
  edit(read: () => D): void
  /** Save what is unsaved now, without waiting for the quiet time. */
  flush(): void
  /**
   * Another write of the record (publishing, a restore), made from the version the queue
   * holds once everything before it is saved; its new version is the queue's from then on.
   * A conflict stops the queue as a save's does.
   */
  write(task: (version: number) => Promise<SaveOutcome>): Promise<SaveOutcome>
  /** Whether some content is not saved yet (in flight counts as not saved). */
  readonly dirty: boolean
  /** The version the next save names. */
  readonly version: number
  /** After a conflict: save the author's content over `currentVersion`. */
  keepMine(currentVersion: number): void
  /** After a conflict: drop the author's unsaved content and continue from `currentVersion`. */
  useTheirs(currentVersion: number): void
  /** Stops the timers (the editor closed). */
  dispose(): void
}

const browserTimers: Timers = {
  setTimeout: (run, ms) => globalThis.setTimeout(run, ms),
  clearTimeout: (handle) => globalThis.clearTimeout(handle as ReturnType<typeof setTimeout>)
}

export const makeSaveQueue = <D>(options: SaveQueueOptions<D>): SaveQueue<D> => {
  const quietMs = options.quietMs ?? 1000
  const retryMs = options.retryMs ?? 5000
  const timers = options.timers ?? browserTimers
  let version = options.version
  // The newest content not yet saved, and how many edits have been made (to tell whether
  // the content in flight is still the newest when its save answers).
  let pending: { readonly read: () => D } | undefined
  let edits = 0
  let inFlight = false
  const writes: Array<{ readonly task: (version: number) => Promise<SaveOutcome>; readonly done: (outcome: SaveOutcome) => void }> = []
  let blocked = false
  let disposed = false
  let timer: unknown

  const tell = (next: SaveStatus) => options.onStatus(next)
  const schedule = (ms: number) => {
    if (timer !== undefined) timers.clearTimeout(timer)
    timer = timers.setTimeout(() => {
      timer = undefined
      start()
    }, ms)
  }
  const start = (): void => {
    if (disposed || inFlight || blocked) return
    if (pending !== undefined) return saveDraft(pending.read())
    const next = writes.shift()
    if (next !== undefined) runWrite(next)
  }
  const conflict = (outcome: Extract<SaveOutcome, { _tag: "conflict" }>) => {
    blocked = true
    if (timer !== undefined) timers.clearTimeout(timer)
    timer = undefined
    tell({ _tag: "conflict", current: outcome.current, currentVersion: outcome.currentVersion })
  }
  const runWrite = ({ task, done }: (typeof writes)[number]) => {
    inFlight = true
    tell({ _tag: "saving" })
    void task(version).then((outcome) => {
      inFlight = false
      done(outcome)
      if (disposed) return
      if (outcome._tag === "conflict") return conflict(outcome)
      if (outcome._tag === "saved") version = outcome.version
      // A failed write is the caller's to report; the lane goes on.
      tell(pending === undefined ? { _tag: "saved" } : { _tag: "unsaved" })
      if (timer === undefined) start()
    })
  }
  const saveDraft = (draft: D) => {
    const editsAtStart = edits
    inFlight = true
    tell({ _tag: "saving" })
    void options.save(draft, version).then((outcome) => {
      inFlight = false
      if (disposed) return
      if (outcome._tag === "saved") {
        version = outcome.version
        // Edits made meanwhile stay pending, and go next with the new version. Cleared
        // before `onSaved`, which reads `dirty` to drop the crash copy.
        const newest = edits === editsAtStart
        if (newest) pending = undefined
        options.onSaved?.(outcome.version, draft)
        if (newest) {
          tell({ _tag: "saved" })
          start()
        } else if (timer === undefined) {
          start()
        } else {
          tell({ _tag: "unsaved" })
        }
        return
      }
      if (outcome._tag === "conflict") return conflict(outcome)
      tell({ _tag: "failed", message: outcome.message })
      schedule(retryMs)
    })
  }

  return {
    edit(read) {
      if (disposed) return
      pending = { read }
      edits++
      if (blocked) return
      if (!inFlight) tell({ _tag: "unsaved" })
      schedule(quietMs)
    },
    flush() {
      if (timer !== undefined) timers.clearTimeout(timer)
      timer = undefined
      start()
    },
    write(task) {
      return new Promise<SaveOutcome>((done) => {
        writes.push({ task, done })
        // The content waiting for its quiet time goes first, now.
        if (timer !== undefined) timers.clearTimeout(timer)
        timer = undefined
        start()
      })
    },
    get dirty() {
      return pending !== undefined
    },
    get version() {
      return version
    },
    keepMine(currentVersion) {
      version = currentVersion
      blocked = false
      if (pending === undefined) tell({ _tag: "saved" })
      start()
    },
    useTheirs(currentVersion) {
      version = currentVersion
      blocked = false
      pending = undefined
      tell({ _tag: "saved" })
      start()
    },
    dispose() {
      disposed = true
      if (timer !== undefined) timers.clearTimeout(timer)
      timer = undefined
    }
  }
}
