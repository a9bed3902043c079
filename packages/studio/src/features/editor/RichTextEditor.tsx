/**
 * A rich-text field: Tiptap over the body's HTML, named for screen readers and tests by
 * `label` ("Course body", "Lesson body"), with a toolbar of the common marks and blocks.
 * `html` is read when the editor is made and when `resetKey` changes (a conflict resolved
 * with the other version, a restored revision); typing reports through `onChange`, with a
 * reader of the new document's HTML: serialized when first read, not per keystroke.
 * Beside the toolbar, "Generate with AI" (features/assistant) writes into the same editor.
 */
import { EditorContent, getHTMLFromFragment, useEditor, useEditorState } from "@tiptap/react"
import { useEffect, useState } from "react"
import { Button, Toolbar } from "react-aria-components"
import { GenerateWithAi } from "../ai/GenerateWithAi.tsx"
import { courseBodyExtensions } from "./courseBodyExtensions.ts"
import "./editor.css"

interface Props {
  readonly label: string
  readonly html: string
  readonly resetKey: number
  readonly onChange: (readHtml: () => string) => void
}

export const RichTextEditor = ({ label, html, resetKey, onChange }: Props) => {
  // The sanitizer's allow-list as the editor's schema: what one keeps, the other keeps.
  const [extensions] = useState(() => courseBodyExtensions())
  const editor = useEditor({
    extensions,
    content: html,
    // No <style> element: the Studio's Content-Security-Policy refuses inline styles (editor.css has the rules).
    injectCSS: false,
    editorProps: { attributes: { "aria-label": label, role: "textbox", "aria-multiline": "true", class: "rich-text" } },
    onUpdate: ({ editor: changed }) => {
      // The document of this change (immutable), turned into HTML once, when someone reads it.
      const { doc, schema } = changed.state
      let html: string | undefined
      onChange(() => (html ??= getHTMLFromFragment(doc.content, schema)))
    }
  })
  useEffect(() => {
    // Replaced from outside: not an edit of the author's, so no onChange.
    if (editor !== null && editor.getHTML() !== html) editor.commands.setContent(html, { emitUpdate: false })
    // Only when the caller says the content was replaced, never on the author's own typing.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [editor, resetKey])
  const active = useEditorState({
    editor,
    selector: ({ editor: current }) => ({
      bold: current?.isActive("bold") ?? false,
      italic: current?.isActive("italic") ?? false,
      heading: current?.isActive("heading", { level: 2 }) ?? false,
      bullets: current?.isActive("bulletList") ?? false,
      numbers: current?.isActive("orderedList") ?? false
    })
  })
  const run = (command: () => boolean) => () => void command()
  return (
    <div className="rich-text-field">
      <div className="rich-text-head">
        <Toolbar aria-label="Text formatting" className="rich-text-toolbar">
          <Button aria-pressed={active?.bold} onPress={run(() => editor?.chain().focus().toggleBold().run() ?? false)}>Bold</Button>
          <Button aria-pressed={active?.italic} onPress={run(() => editor?.chain().focus().toggleItalic().run() ?? false)}>Italic</Button>
          <Button aria-pressed={active?.heading} onPress={run(() => editor?.chain().focus().toggleHeading({ level: 2 }).run() ?? false)}>Heading</Button>
          <Button aria-pressed={active?.bullets} onPress={run(() => editor?.chain().focus().toggleBulletList().run() ?? false)}>Bulleted list</Button>
          <Button aria-pressed={active?.numbers} onPress={run(() => editor?.chain().focus().toggleOrderedList().run() ?? false)}>Numbered list</Button>
        </Toolbar>
        <GenerateWithAi editor={editor} body={label} />
      </div>
      <EditorContent editor={editor} />
    </div>
  )
}
