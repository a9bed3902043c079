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
