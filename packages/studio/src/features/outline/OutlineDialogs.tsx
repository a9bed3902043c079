/**
 * The outline's dialogs: "Add section", "Add lesson", "Rename" and "Delete" (with its
 * confirmation, and "Move its lessons out" when a section still has lessons). Each says
 * what happened through `onDone`, which the outline's live region announces.
 */
import { type ReactNode, useState } from "react"
import { Button, Dialog, DialogTrigger, Form, Heading, Input, Label, ListBox, ListBoxItem, Modal, Popover, Select, SelectValue, TextField } from "react-aria-components"
import { findLesson, groupPhrase, type GroupId, type Outline, type OutlineLesson, type OutlineSection } from "./outlineMoves.ts"
import { type OutlineWrite, type OutlineWriteOutcome, useOutlineWrite } from "./outlineQueries.ts"

const quoted = (title: string) => `“${title}”`

/** What to say when a write met a newer version: nothing was written, the outline is read again. */
export const conflictMessage = (title: string) =>
  `${quoted(title)} changed since the outline was read, so nothing was changed. The outline now shows what is stored: check it and try again.`

/** What to say when a write failed otherwise. */
const failedMessage = (outcome: Extract<OutlineWriteOutcome, { _tag: "failed" }>) => outcome.message

interface Announce {
  /** Says what happened; `itemGone`: the dialog's trigger went with its item, focus needs another home. */
  readonly onDone: (message: string, options?: { readonly itemGone: boolean }) => void
}

/** The section picker of a lesson: "No section" or a section, by id. */
export const SectionOptions = ({ outline }: { readonly outline: Outline }) => (
  <Popover className="react-aria-Popover outline-popover">
    <ListBox>
      <ListBoxItem id="loose" textValue="No section">No section</ListBoxItem>
      {outline.sections.map((section) => <ListBoxItem key={section.id} id={section.id} textValue={section.title}>{section.title}</ListBoxItem>)}
    </ListBox>
  </Popover>
)

/** A form dialog: a title field and a submit button, running one write. */
const TitleDialog = ({ trigger, heading, label, initial, submit, children, run }: {
  readonly trigger: string
  readonly heading: string
  readonly label: string
  readonly initial: string
  readonly submit: string
  readonly children?: ReactNode
  /** Runs the write; resolves with the problem's words to show, or undefined when the dialog may close. */
  readonly run: (title: string) => Promise<string | undefined>
}) => {
  const [title, setTitle] = useState(initial)
  const [error, setError] = useState<string>()
  const [busy, setBusy] = useState(false)
  return (
    <DialogTrigger onOpenChange={(open) => open && (setTitle(initial), setError(undefined))}>
      <Button>{trigger}</Button>
      <Modal className="modal" isDismissable>
        <Dialog>
          {({ close }) => (
            <Form
              onSubmit={async (event) => {
                event.preventDefault()
                if (busy || title.trim() === "") return
                setBusy(true)
                const problem = await run(title.trim())
                setBusy(false)
                if (problem === undefined) close()
                else setError(problem)
              }}
            >
              <Heading slot="title">{heading}</Heading>
              <TextField value={title} onChange={setTitle} isRequired autoFocus maxLength={200}>
                <Label>{label}</Label>
                <Input />
              </TextField>
              {children}
              {error !== undefined && <p role="alert" className="error">{error}</p>}
              <div className="actions">
                <Button onPress={close}>Cancel</Button>
                <Button type="submit" className="react-aria-Button primary" isDisabled={busy}>{submit}</Button>
              </div>
            </Form>
          )}
        </Dialog>
      </Modal>
    </DialogTrigger>
  )
}

export const AddSectionDialog = ({ courseId, onDone }: { readonly courseId: number } & Announce) => {
  const write = useOutlineWrite(courseId)
  return (
    <TitleDialog
      trigger="Add section"
      heading="Add section"
      label="Section title"
      initial=""
      submit="Add"
      run={async (title) => {
        const outcome = await write.mutateAsync({ _tag: "addSection", title })
        if (outcome._tag === "failed") return failedMessage(outcome)
        const stored = outcome.outline?.sections.findIndex((section) => section.id === (outcome._tag === "done" ? outcome.createdId : undefined))
        onDone(stored === undefined || stored === -1 ? `Added section ${quoted(title)}.` : `Added section ${quoted(title)} at position ${stored + 1}.`)
        return undefined
      }}
    />
  )
}

export const AddLessonDialog = ({ courseId, outline, onDone }: { readonly courseId: number; readonly outline: Outline } & Announce) => {
  const write = useOutlineWrite(courseId)
  // A new lesson goes to the end of the last section, where an outline usually grows.
  const [sectionId, setSectionId] = useState<GroupId>(null)
  const initialSection = outline.sections.at(-1)?.id ?? null
  return (
    <DialogTrigger onOpenChange={(open) => open && setSectionId(initialSection)}>
      <Button className="react-aria-Button primary">Add lesson</Button>
      <Modal className="modal" isDismissable>
        <Dialog>
          {({ close }) => (
            <AddLessonForm
              close={close}
              outline={outline}
              sectionId={sectionId}
              setSectionId={setSectionId}
              add={async (title) => {
                const outcome = await write.mutateAsync({ _tag: "addLesson", title, sectionId })
                if (outcome._tag === "failed") return failedMessage(outcome)
                const created = outcome._tag === "done" && outcome.createdId !== undefined && outcome.outline !== undefined
                  ? findLesson(outcome.outline, outcome.createdId)
                  : undefined
                onDone(created === undefined || outcome.outline === undefined
                  ? `Added ${quoted(title)}.`
                  : `Added ${quoted(title)} at position ${created.position} ${groupPhrase(outcome.outline, created.sectionId)}, as a draft.`)
                return undefined
              }}
            />
          )}
        </Dialog>
      </Modal>
    </DialogTrigger>
  )
}

const AddLessonForm = ({ close, outline, sectionId, setSectionId, add }: {
  readonly close: () => void
  readonly outline: Outline
  readonly sectionId: GroupId
  readonly setSectionId: (sectionId: GroupId) => void
  readonly add: (title: string) => Promise<string | undefined>
}) => {
  const [title, setTitle] = useState("")
  const [error, setError] = useState<string>()
  const [busy, setBusy] = useState(false)
  return (
    <Form
      onSubmit={async (event) => {
        event.preventDefault()
        if (busy || title.trim() === "") return
        setBusy(true)
        const problem = await add(title.trim())
        setBusy(false)
        if (problem === undefined) close()
        else setError(problem)
      }}
    >
      <Heading slot="title">Add lesson</Heading>
      <TextField value={title} onChange={setTitle} isRequired autoFocus maxLength={200}>
        <Label>Title</Label>
        <Input />
      </TextField>
      <Select className="react-aria-Select field-select" value={sectionId ?? "loose"} onChange={(key) => setSectionId(key === "loose" || key === null ? null : Number(key))}>
        <Label>Section</Label>
        <Button><SelectValue /></Button>
        <SectionOptions outline={outline} />
      </Select>
      <p className="hint">It goes to the end of that section, as a draft: publish it from its editor.</p>
      {error !== undefined && <p role="alert" className="error">{error}</p>}
      <div className="actions">
        <Button onPress={close}>Cancel</Button>
        <Button type="submit" className="react-aria-Button primary" isDisabled={busy}>Add</Button>
      </div>
    </Form>
  )
}

type Item = { readonly _tag: "lesson"; readonly lesson: OutlineLesson } | { readonly _tag: "section"; readonly section: OutlineSection }

const titleOf = (item: Item) => (item._tag === "lesson" ? item.lesson.title : item.section.title)

export const RenameDialog = ({ courseId, item, onDone }: { readonly courseId: number; readonly item: Item } & Announce) => {
  const write = useOutlineWrite(courseId)
  const before = titleOf(item)
  return (
    <TitleDialog
      trigger="Rename"
      heading={`Rename ${item._tag === "section" ? "section " : ""}${quoted(before)}`}
      label="Title"
      initial={before}
      submit="Rename"
      run={async (title) => {
        if (title === before) return undefined
        const change: OutlineWrite = item._tag === "lesson"
          ? { _tag: "renameLesson", lesson: item.lesson, title }
          : { _tag: "renameSection", section: item.section, title }
        const outcome = await write.mutateAsync(change)
        if (outcome._tag === "conflict") return conflictMessage(before)
        if (outcome._tag === "failed") return failedMessage(outcome)
        onDone(`Renamed ${quoted(before)} to ${quoted(title)}.`)
        return undefined
      }}
    />
  )
}

/**
 * "Delete" and its confirmation. A section that still has lessons is refused by the API
 * (409): the dialog then offers "Move its lessons out", which deletes the section and
 * makes its lessons loose lessons, after the others.
 */
export const DeleteDialog = ({ courseId, item, onDone }: { readonly courseId: number; readonly item: Item } & Announce) => {
  const write = useOutlineWrite(courseId)
  const [notEmpty, setNotEmpty] = useState<number>()
  const [error, setError] = useState<string>()
  const title = titleOf(item)
  const run = async (detach: boolean, close: () => void) => {
    setError(undefined)
    const outcome = await write.mutateAsync(
      item._tag === "lesson" ? { _tag: "deleteLesson", lesson: item.lesson } : { _tag: "deleteSection", section: item.section, detach }
    )
    switch (outcome._tag) {
      case "done":
        close()
        onDone(
          item._tag === "lesson"
            ? `Deleted ${quoted(title)}.`
            : detach
            ? `Deleted section ${quoted(title)}; its lessons are now at the end of the lessons without a section.`
            : `Deleted section ${quoted(title)}.`,
          { itemGone: true }
        )
        return
      case "notEmpty": {
        // The 409's problem names no count: the outline read after it has them.
        const stored = item._tag === "section" ? outcome.outline?.sections.find((section) => section.id === item.section.id) : undefined
        setNotEmpty(stored?.lessons.length ?? (item._tag === "section" ? item.section.lessons.length : 0))
        return
      }
      case "conflict":
        setError(conflictMessage(title))
        return
      case "failed":
        setError(outcome.message)
        return
    }
  }
  return (
    <DialogTrigger onOpenChange={(open) => open && (setNotEmpty(undefined), setError(undefined))}>
      <Button className="react-aria-Button danger">Delete</Button>
      <Modal className="modal" isDismissable>
        <Dialog role="alertdialog">
          {({ close }) => (
            <>
              <Heading slot="title">{item._tag === "lesson" ? `Delete ${quoted(title)}?` : `Delete section ${quoted(title)}?`}</Heading>
              {item._tag === "lesson"
                ? <p>The lesson and its history are deleted; the lessons after it move up. This cannot be undone.</p>
                : <p>The section is deleted; the sections after it move up.</p>}
              {notEmpty !== undefined && (
                <p role="alert">
                  {quoted(title)} still has {notEmpty} lesson{notEmpty === 1 ? "" : "s"}. Move its lessons out
                  to delete it: they become lessons without a section, after the ones there now.
                </p>
              )}
              {error !== undefined && <p role="alert" className="error">{error}</p>}
              <div className="actions">
                <Button onPress={close} autoFocus>Cancel</Button>
                {notEmpty === undefined
                  ? <Button className="react-aria-Button danger primary" isDisabled={write.isPending} onPress={() => void run(false, close)}>Delete</Button>
                  : <Button className="react-aria-Button danger primary" isDisabled={write.isPending} onPress={() => void run(true, close)}>Move its lessons out</Button>}
              </div>
            </>
          )}
        </Dialog>
      </Modal>
    </DialogTrigger>
  )
}
