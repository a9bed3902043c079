/**
 * The draft of an open course or lesson, for its editor. The small fields (a title, a
 * description) are React state; the body is the rich-text editor's newest document, turned
 * into HTML only when read: by a save starting, the crash copy, a comparison. Typing into
 * the body re-renders nothing and serializes nothing (a 200 KB body's HTML would cost each
 * keystroke its frame: docs/benchmarks.md, "Studio speed").
 */
import { useCallback, useEffect, useRef, useState } from "react"
import { type CrashCopy, makeCrashCopy } from "./localDraft.ts"

export interface EditedDraft<D extends { readonly content_html: string }> {
  /** The fields as shown; its `content_html` is what the body editor was last given (`resetKey`). */
  readonly shown: D
  /** Bumped when the body is replaced from outside: the body editor takes `shown.content_html` then. */
  readonly resetKey: number
  /** The whole draft as it is now, the body included. A stable function. */
  readonly read: () => D
  /** The small fields as they are now, without serializing the body. */
  readonly fields: () => Omit<D, "content_html">
  /** The author changed small fields. */
  readonly setFields: (changes: Partial<Omit<D, "content_html">>) => void
  /** The author changed the body; `read` gives its newest HTML. */
  readonly setBody: (read: () => string) => void
  /** Replaced from outside (their version, a recovered copy, a restore). */
  readonly replace: (next: D) => void
}

export const useEditedDraft = <D extends { readonly content_html: string }>(initial: () => D): EditedDraft<D> => {
  const [shown, setShown] = useState<D>(initial)
  const [resetKey, setResetKey] = useState(0)
  // Read by `read` at any time, so set where the change happens, not when React renders it.
  const latest = useRef({ fields: shown, body: () => shown.content_html })
  const read = useCallback(() => ({ ...latest.current.fields, content_html: latest.current.body() }), [])
  return {
    shown,
    resetKey,
    read,
    fields: () => latest.current.fields,
    setFields: (changes) => {
      const next = { ...latest.current.fields, ...changes }
      latest.current.fields = next
      setShown(next)
    },
    setBody: (body) => {
      latest.current.body = body
    },
    replace: (next) => {
      latest.current = { fields: next, body: () => next.content_html }
      setShown(next)
      setResetKey((count) => count + 1)
    }
  }
}

/** The crash copy of the open record (see {@link makeCrashCopy}), kept at once when the page is hidden or closed and when the editor is left. */
export const useCrashCopy = <D>(kind: string, id: number, read: () => { readonly version: number; readonly draft: D }): CrashCopy => {
  const latest = useRef(read)
  latest.current = read
  const [copy] = useState(() => makeCrashCopy(kind, id, () => latest.current()))
  useEffect(() => {
    const hidden = () => {
      if (document.visibilityState === "hidden") copy.flush()
    }
    window.addEventListener("pagehide", copy.flush)
    document.addEventListener("visibilitychange", hidden)
    return () => {
      window.removeEventListener("pagehide", copy.flush)
      document.removeEventListener("visibilitychange", hidden)
      copy.flush()
      copy.dispose()
    }
  }, [copy])
  return copy
}
