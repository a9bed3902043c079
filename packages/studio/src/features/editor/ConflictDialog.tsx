/**
 * The answer to a 412: someone saved the record since this editor opened it. Both
 * versions side by side, the differences marked; "Keep mine" saves the author's version
 * over the current one, "Use theirs" loads the current one. The dialog cannot be dismissed
 * any other way: either choice is explicit, and nothing the author typed is dropped unasked.
 */
import { Button, Dialog, Heading, Modal } from "react-aria-components"
import { type ComparedField, SideBySide } from "../history/SideBySide.tsx"

export const ConflictDialog = ({ title, fields, onKeepMine, onUseTheirs }: {
  readonly title: string
  readonly fields: ReadonlyArray<ComparedField>
  readonly onKeepMine: () => void
  readonly onUseTheirs: () => void
}) => (
  <Modal className="modal wide" isOpen isDismissable={false} isKeyboardDismissDisabled>
    <Dialog role="alertdialog">
      <Heading slot="title">{title}</Heading>
      <p>Someone saved it while you were editing. Compare the two versions, then keep yours or take theirs.</p>
      <SideBySide fields={fields} leftTitle="Theirs (saved)" rightTitle="Yours" />
      <div className="actions">
        <Button onPress={onUseTheirs}>Use theirs</Button>
        <Button className="primary" onPress={onKeepMine} autoFocus>Keep mine</Button>
      </div>
    </Dialog>
  </Modal>
)
