/**
 * "Publish", "Unpublish" and "Schedule…": the record's state changed by the author, each a
 * write in the editor's save lane (after the content waiting to be saved, naming the
 * version that leaves). "Schedule…" asks for a date and time in the author's time zone and
 * sends it with that zone's offset on that date (`2026-12-01T10:00:00.000+01:00`).
 */
import { PublishAtInput } from "@coursekit/core"
import { Option, Schema } from "effect"
import { useState } from "react"
import { Button, Dialog, DialogTrigger, FieldError, Form, Heading, Input, Label, Modal, TextField } from "react-aria-components"
import { browserTimeZone, instantOfLocal, localOfInstant, offsetDateTimeOfLocal } from "./localDateTime.ts"

/**
 * A change of state: published now (`at` null), at a moment (as the API's `publish_at`
 * takes it: the instant with the author's offset, which the typed client sends as is), or
 * back to a draft.
 */
export type PublishChange =
  | { readonly _tag: "publish"; readonly at: PublishAtInput | null }
  | { readonly _tag: "unpublish" }

// The contract's own reading of the text: what it refuses (past 9999 in UTC) is not sent.
const publishAtOf = Schema.decodeUnknownOption(PublishAtInput)

interface Props {
  readonly status: "draft" | "published"
  readonly publishAt: Date | null
  /** Runs the change; resolves with the problem's words when it failed, undefined when it worked. */
  readonly onChange: (change: PublishChange) => Promise<string | undefined>
}

export const PublishControls = ({ status, publishAt, onChange }: Props) => {
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string>()
  const run = async (change: PublishChange) => {
    setBusy(true)
    setError(await onChange(change))
    setBusy(false)
  }
  const scheduled = status === "published" && publishAt !== null && publishAt.getTime() > Date.now()
  return (
    <div className="publishing" role="group" aria-label="Publishing">
      {(status === "draft" || scheduled) && <Button className="primary" isDisabled={busy} onPress={() => void run({ _tag: "publish", at: null })}>Publish</Button>}
      {status === "published" && <Button isDisabled={busy} onPress={() => void run({ _tag: "unpublish" })}>Unpublish</Button>}
      <ScheduleDialog initial={scheduled ? publishAt : null} isDisabled={busy} onSchedule={(at) => run({ _tag: "publish", at })} />
      {error !== undefined && <p role="alert" className="error">{error}</p>}
    </div>
  )
}

const ScheduleDialog = ({ initial, isDisabled, onSchedule }: {
  readonly initial: Date | null
  readonly isDisabled: boolean
  readonly onSchedule: (at: PublishAtInput) => Promise<void>
}) => {
  const [value, setValue] = useState("")
  const instant = instantOfLocal(value)
  const text = offsetDateTimeOfLocal(value)
  const at = text === undefined ? undefined : Option.getOrUndefined(publishAtOf(text))
  const problem = value === ""
    ? undefined
    : instant === undefined
    ? "Enter a date and a time."
    : instant.getTime() <= Date.now()
    ? "Choose a moment in the future."
    : at === undefined
    ? "Choose a moment before the year 10000."
    : undefined
  return (
    <DialogTrigger onOpenChange={(open) => open && setValue(initial === null ? "" : localOfInstant(initial))}>
      <Button isDisabled={isDisabled}>Schedule…</Button>
      <Modal className="modal" isDismissable>
        <Dialog>
          {({ close }) => (
            <Form
              onSubmit={(event) => {
                event.preventDefault()
                if (at === undefined || problem !== undefined) return
                close()
                void onSchedule(at)
              }}
            >
              <Heading slot="title">Schedule publishing</Heading>
              {/* Our problem when there is one; otherwise the browser's own checks decide, so an
                  incomplete date or time (its value is "") is named on submit, not ignored. */}
              <TextField value={value} onChange={setValue} isRequired {...(problem !== undefined ? { isInvalid: true } : {})} autoFocus>
                <Label>Date and time</Label>
                <Input type="datetime-local" />
                <FieldError>{problem}</FieldError>
              </TextField>
              <p className="hint">In your time zone, {browserTimeZone()}.</p>
              <div className="actions">
                <Button onPress={close}>Cancel</Button>
                <Button type="submit" className="primary">Schedule</Button>
              </div>
            </Form>
          )}
        </Dialog>
      </Modal>
    </DialogTrigger>
  )
}
