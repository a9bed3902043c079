/** Two versions of a record's fields side by side, the words only one side has marked. */
import { type DiffPart, wordDiff } from "./wordDiff.ts"

export interface ComparedField {
  readonly label: string
  readonly left: string
  readonly right: string
}

const Marked = ({ parts, side }: { readonly parts: ReadonlyArray<DiffPart>; readonly side: "left" | "right" }) => (
  <div className="diff-text">
    {parts.map((part, index) => {
      if (part._tag === "same") return <span key={index}>{part.text}</span>
      if (part._tag === "removed") return side === "left" ? <del key={index}>{part.text}</del> : null
      return side === "right" ? <ins key={index}>{part.text}</ins> : null
    })}
  </div>
)

export const SideBySide = ({ fields, leftTitle, rightTitle }: {
  readonly fields: ReadonlyArray<ComparedField>
  readonly leftTitle: string
  readonly rightTitle: string
}) => (
  <table className="side-by-side">
    <thead>
      <tr>
        <th scope="col">Field</th>
        <th scope="col">{leftTitle}</th>
        <th scope="col">{rightTitle}</th>
      </tr>
    </thead>
    <tbody>
      {fields.map((field) => {
        const parts = wordDiff(field.left, field.right)
        const changed = parts.some((part) => part._tag !== "same")
        return (
          <tr key={field.label} className={changed ? "changed" : undefined}>
            <th scope="row">{field.label}{changed ? " (changed)" : ""}</th>
            <td><Marked parts={parts} side="left" /></td>
            <td><Marked parts={parts} side="right" /></td>
          </tr>
        )
      })}
    </tbody>
  </table>
)
