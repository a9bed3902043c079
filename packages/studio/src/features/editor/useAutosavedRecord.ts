/**
 * What each editor holds for the record it edits: the draft ({@link useEditedDraft}), its
 * autosave ({@link useAutosave}), its crash copy ({@link useCrashCopy}), the copy an earlier
 * visit kept and the server never got, when it differs from the record (offered by
 * `UnsavedCopyBanner`), and `changed`, which the author's every edit calls. An empty title
 * is not sent: the API would refuse it, and the field says why.
 */
import { useState } from "react"
import { readDraft } from "./localDraft.ts"
import type { SaveOutcome } from "./SaveQueue.ts"
import { useAutosave } from "./useAutosave.ts"
import { useCrashCopy, useEditedDraft } from "./useEditedDraft.ts"

export const useAutosavedRecord = <D extends { readonly title: string; readonly content_html: string }>(options: {
  /** "course" or "lesson": names the crash copy. */
  readonly kind: string
  readonly id: number
  /** The record as opened: its version and its draft (read once). */
  readonly version: number
  readonly opened: D
  readonly save: (draft: D, version: number) => Promise<SaveOutcome>
  /** Told each save's new version and what it saved. */
  readonly onSaved: (version: number, saved: D) => void
}) => {
  const draft = useEditedDraft<D>(() => options.opened)
  const [recovered, setRecovered] = useState(() => {
    const kept = readDraft<D>(options.kind, options.id)
    return kept !== undefined && JSON.stringify(kept.draft) !== JSON.stringify(options.opened) ? kept : undefined
  })
  const { status, queue } = useAutosave<D>({
    version: options.version,
    save: options.save,
    onSaved: (version, saved) => {
      options.onSaved(version, saved)
      if (!queue.dirty) crashCopy.clear()
    }
  })
  const crashCopy = useCrashCopy(options.kind, options.id, () => ({ version: queue.version, draft: draft.read() }))
  const changed = () => {
    crashCopy.changed()
    if (draft.fields().title.trim() !== "") queue.edit(draft.read)
  }
  return { draft, status, queue, crashCopy, recovered, dismissRecovered: () => setRecovered(undefined), changed }
}
