/**
 * What the author typed and the server has not confirmed yet, kept in this browser
 * (`localStorage`) so that a crash or a closed tab loses nothing: offered again when the
 * record is opened next. Cleared when a save leaves nothing unsaved.
 */
export interface LocalDraft<D> {
  /** The version the draft was made from. */
  readonly version: number
  readonly draft: D
  /** When it was kept (milliseconds since the epoch). */
  readonly at: number
}

const keyOf = (kind: string, id: number) => `coursekit-studio:draft:${kind}:${id}`

const storage = (): Storage | undefined => {
  try {
    return window.localStorage
  } catch {
    return undefined
  }
}

export const keepDraft = <D>(kind: string, id: number, version: number, draft: D) => {
  try {
    storage()?.setItem(keyOf(kind, id), JSON.stringify({ version, draft, at: Date.now() } satisfies LocalDraft<D>))
  } catch {
    // Full or refused: the server still gets the edit; only the crash copy is missing.
  }
}

export const readDraft = <D>(kind: string, id: number): LocalDraft<D> | undefined => {
  const text = storage()?.getItem(keyOf(kind, id))
  if (text === null || text === undefined) return undefined
  try {
    return JSON.parse(text) as LocalDraft<D>
  } catch {
    return undefined
  }
}

export const clearDraft = (kind: string, id: number) => storage()?.removeItem(keyOf(kind, id))

/**
 * The crash copy of one open record, kept while the author edits: at most every `everyMs`
 * (a long body's HTML and its write to `localStorage` cost milliseconds a keystroke cannot
 * spare), and at once on `flush` (the page hidden or closed, the editor left). A crash
 * loses at most the last `everyMs` of typing; a closed tab loses nothing.
 */
export interface CrashCopy {
  /** The content changed: keep it within `everyMs`. */
  changed(): void
  /** Keep what changed since the last copy, now. */
  flush(): void
  /** The server has everything: drop the copy (and any copy still to come). */
  clear(): void
  dispose(): void
}

export const makeCrashCopy = <D>(
  kind: string,
  id: number,
  read: () => { readonly version: number; readonly draft: D },
  everyMs = 2000
): CrashCopy => {
  let timer: ReturnType<typeof setTimeout> | undefined
  const cancel = () => {
    if (timer !== undefined) clearTimeout(timer)
    timer = undefined
  }
  const keep = () => {
    cancel()
    const { version, draft } = read()
    keepDraft(kind, id, version, draft)
  }
  return {
    changed() {
      timer ??= setTimeout(keep, everyMs)
    },
    flush() {
      if (timer !== undefined) keep()
    },
    clear() {
      cancel()
      clearDraft(kind, id)
    },
    dispose: cancel
  }
}
