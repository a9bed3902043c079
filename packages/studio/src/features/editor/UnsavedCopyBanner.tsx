/** The offer of what this browser kept and the server never got (a crash, a closed tab): restore it or discard it. */
import { Button } from "react-aria-components"

export const UnsavedCopyBanner = ({ what, onRestore, onDiscard }: {
  /** "course" or "lesson". */
  readonly what: string
  readonly onRestore: () => void
  readonly onDiscard: () => void
}) => (
  <div className="banner" role="region" aria-label="Unsaved changes">
    <p>This browser kept changes to this {what} that were not saved.</p>
    <Button onPress={onRestore}>Restore unsaved changes</Button>
    <Button onPress={onDiscard}>Discard them</Button>
  </div>
)
