/**
 * "Generate with AI" beside a rich-text body: a panel with a "Prompt", "Generate" and
 * "Stop"; the answer shows block by block as the server's sanitized `html` events arrive,
 * with each model's attempt and, once done, the provider, model, attempts and cost.
 * "Insert" puts the answer at the body's cursor and "Replace" replaces the body, both as
 * editor commands, so they reach autosave and history the way typing does.
 */
import type { Editor } from "@tiptap/react"
import { useId, useState } from "react"
import { Button, FieldError, Label, TextArea, TextField } from "react-aria-components"
import { attemptText, costText, type GenerationView, htmlOf, phaseText } from "./generationView.ts"
import { useGeneration } from "./useGeneration.ts"
import "./assistant.css"

interface Props {
  /** The body's editor; null while it is being made. */
  readonly editor: Editor | null
  /** The body's name ("Course body"), said in the panel. */
  readonly body: string
}

export const GenerateWithAi = ({ editor, body }: Props) => {
  const [open, setOpen] = useState(false)
  const panelId = useId()
  return (
    <div className="assistant">
      <Button className="assistant-toggle" aria-expanded={open} {...(open ? { "aria-controls": panelId } : {})} onPress={() => setOpen((was) => !was)}>
        Generate with AI
      </Button>
      {open && <AssistantPanel id={panelId} editor={editor} body={body} onClose={() => setOpen(false)} />}
    </div>
  )
}

const AssistantPanel = ({ id, editor, body, onClose }: Props & { readonly id: string; readonly onClose: () => void }) => {
  const { view, generate, stop } = useGeneration()
  const [prompt, setPrompt] = useState("")
  const [promptError, setPromptError] = useState<string | undefined>(undefined)
  const busy = view.phase === "generating"
  const usable = !busy && view.blocks.length > 0 && editor !== null
  const submit = () => {
    if (prompt.trim() === "") return setPromptError("Write what the text should be about.")
    setPromptError(undefined)
    generate(prompt)
  }
  // Editor commands, as the toolbar's: the body's onUpdate sees them as it sees typing.
  const insert = () => void editor?.chain().focus().insertContent(htmlOf(view)).run()
  const replace = () => void editor?.chain().focus().setContent(htmlOf(view), { emitUpdate: true }).run()
  return (
    <section id={id} className="assistant-panel" aria-label="Generate with AI">
      <TextField
        value={prompt}
        onChange={(next) => (setPrompt(next), setPromptError(undefined))}
        isInvalid={promptError !== undefined}
        maxLength={20_000}
        autoFocus
      >
        <Label>Prompt</Label>
        <TextArea rows={3} />
        <FieldError>{promptError}</FieldError>
      </TextField>
      <div className="assistant-actions">
        {busy
          ? <Button onPress={stop}>Stop</Button>
          : <Button onPress={submit}>Generate</Button>}
        <Button onPress={onClose}>Close</Button>
      </div>
      <p role="status" className="assistant-status">{phaseText(view)}</p>
      {view.error !== undefined && <p role="alert" className="error">{view.error}</p>}
      <Outcome view={view} />
      {view.phase !== "idle" && (
        <>
          <div role="region" aria-label="Generated text" className="assistant-result rich-text">
            {view.blocks.map((html, index) => (
              // Sanitized by the server (the stored bodies' pipeline); each block whole.
              <div key={index} className="assistant-block" dangerouslySetInnerHTML={{ __html: html }} />
            ))}
          </div>
          <div className="assistant-actions">
            <Button isDisabled={!usable} onPress={insert}>Insert</Button>
            <Button isDisabled={!usable} onPress={replace}>Replace</Button>
            <span className="assistant-hint">Insert puts it at the cursor in the {body.toLowerCase()}; Replace replaces the whole {body.toLowerCase()}.</span>
          </div>
        </>
      )}
    </section>
  )
}

/** Who wrote it, the attempts and what they cost. */
const Outcome = ({ view }: { readonly view: GenerationView }) => {
  if (view.attempts.length === 0 && view.writer === undefined) return null
  return (
    <div className="assistant-outcome">
      <dl>
        {view.writer !== undefined && (
          <>
            <dt>Provider</dt>
            <dd>{view.writer.provider}</dd>
            <dt>Model</dt>
            <dd>{view.writer.model}</dd>
          </>
        )}
        <dt>Attempts</dt>
        <dd>{view.attempts.length}</dd>
        <dt>Cost</dt>
        <dd>{costText(view.attempts)}</dd>
      </dl>
      <ol aria-label="Attempts" className="assistant-attempts">
        {view.attempts.map((attempt, index) => <li key={index}>{attemptText(attempt)}</li>)}
      </ol>
    </div>
  )
}
