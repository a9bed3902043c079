/**
 * Inline content written straight into a container, with no `<p>` of its own:
 * `<li>for</li>`, `<td>1.2 ms</td>`, `<blockquote>Repetition…</blockquote>`. HTML allows
 * it, the sanitizer keeps it, and course HTML is full of it; ProseMirror does not (a node
 * holds either blocks or inline content), so Tiptap's own list items and cells wrap it in
 * a paragraph, and `<li>for</li>` would be saved as `<li><p>for</p></li>`.
 *
 * An implicit paragraph is a textblock that is written as its content alone. Containers
 * take it through {@link flowContent}: first, so that the parser wraps loose inline
 * content in it (and new list items and cells are made of it), and never two in a row
 * (they would be written as one). Writing it without an element is the serializer's job
 * ({@link CourseBodySerializer}); in the editing view it is a `div` like a paragraph
 * without margins.
 *
 * At the top level the document keeps Tiptap's `block+`: a new document starts with a
 * real paragraph, and loose inline content there becomes one.
 */
import { Node } from "@tiptap/core"
import { DOMSerializer, type Fragment } from "@tiptap/pm/model"

/** The attribute marking an implicit paragraph's element, which the serializer removes. */
export const implicitParagraphMarker = "data-implicit-paragraph"

/**
 * What a container of blocks holds, as HTML's flow content: blocks, and inline content
 * between them (never two runs in a row), at least one of either.
 */
export const flowContent = "(implicitParagraph (block implicitParagraph?)* | (block implicitParagraph?)+)"

/**
 * ProseMirror's serializer, writing each implicit paragraph as its content alone. It is
 * the one `editor.getHTML()` and copying use (installed in the schema's cache by
 * {@link ImplicitParagraph}).
 */
export class CourseBodySerializer extends DOMSerializer {
  override serializeFragment(
    fragment: Fragment,
    options: { document?: Document } = {},
    target?: HTMLElement | DocumentFragment
  ): HTMLElement | DocumentFragment {
    const result = super.serializeFragment(fragment, options, target)
    // Each container's content passes here on its own (the serializer recurses through this
    // method), so only direct children need looking at.
    for (let child = result.firstChild; child !== null;) {
      const next = child.nextSibling
      if (child.nodeType === 1 && (child as Element).hasAttribute(implicitParagraphMarker)) {
        while (child.firstChild !== null) result.insertBefore(child.firstChild, child)
        result.removeChild(child)
      }
      child = next
    }
    return result
  }
}

/** Inline content straight in a container: see the module's description. */
export const ImplicitParagraph = Node.create({
  name: "implicitParagraph",
  content: "inline*",
  // Never parsed from an element: the parser makes one around loose inline content.
  parseHTML: () => [],
  renderHTML: () => ["div", { [implicitParagraphMarker]: "" }, 0],
  onBeforeCreate() {
    const schema = this.editor.schema
    schema.cached.domSerializer = new CourseBodySerializer(DOMSerializer.nodesFromSchema(schema), DOMSerializer.marksFromSchema(schema))
  }
})
