/**
 * The autosave of one open record, for a React view: a {@link makeSaveQueue} made when the
 * view mounts (key the view by the record), its status as state, and the browser asked to
 * confirm leaving while something is unsaved.
 */
import { useEffect, useRef, useState } from "react"
import { makeSaveQueue, type SaveOutcome, type SaveQueue, type SaveStatus } from "./SaveQueue.ts"

export const useAutosave = <D>(options: {
  /** The version the record was opened at; read once (mount the view again for another record). */
  readonly version: number
  readonly save: (draft: D, version: number) => Promise<SaveOutcome>
  readonly onSaved?: (version: number, draft: D) => void
}): { readonly status: SaveStatus; readonly queue: SaveQueue<D> } => {
  const [status, setStatus] = useState<SaveStatus>({ _tag: "saved" })
  // The newest callbacks, read when a save starts or ends (not captured at creation).
  const latest = useRef(options)
  latest.current = options
  const [queue] = useState(() =>
    makeSaveQueue<D>({
      version: options.version,
      save: (draft, version) => latest.current.save(draft, version),
      onSaved: (version, draft) => latest.current.onSaved?.(version, draft),
      // The same status again (each keystroke says "unsaved") renders nothing.
      onStatus: (next) => setStatus((now) => (now._tag === next._tag && now._tag !== "failed" && now._tag !== "conflict" ? now : next))
    })
  )
  // Leaving the view saves what is unsaved now, rather than dropping it.
  useEffect(() => () => queue.flush(), [queue])
  useEffect(() => {
    const ask = (event: BeforeUnloadEvent) => {
      if (!queue.dirty) return
      event.preventDefault()
      // Older browsers show the dialog only when returnValue is set.
      event.returnValue = ""
    }
    window.addEventListener("beforeunload", ask)
    return () => window.removeEventListener("beforeunload", ask)
  }, [queue])
  return { status, queue }
}

/** The words of the status line. */
export const statusText = (status: SaveStatus): string => {
  switch (status._tag) {
    case "saved":
      return "Saved"
    case "saving":
      return "Saving…"
    case "unsaved":
      return "Unsaved changes"
    case "failed":
      return `Not saved: ${status.message} Retrying…`
    case "conflict":
      return "Not saved: changed by someone else"
  }
}
