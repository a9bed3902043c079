/**
 * Paging as the API pages: by the cursors its `Link` headers hand out, the ones before this
 * page kept so "Previous page" goes back. `useCursorPages` holds them; `PageButtons` are
 * "Previous page" and "Next page".
 */
import { useState } from "react"
import { Button } from "react-aria-components"

export interface CursorPages {
  /** This page's cursor (undefined: the first page). */
  readonly cursor: string | undefined
  readonly isFirst: boolean
  readonly previous: () => void
  readonly next: (cursor: string) => void
  /** Back to the first page (the filter or the search changed). */
  readonly restart: () => void
}

export const useCursorPages = (): CursorPages => {
  const [cursors, setCursors] = useState<ReadonlyArray<string | undefined>>([undefined])
  return {
    cursor: cursors.at(-1),
    isFirst: cursors.length === 1,
    previous: () => setCursors(cursors.slice(0, -1)),
    next: (cursor) => setCursors([...cursors, cursor]),
    restart: () => setCursors([undefined])
  }
}

export const PageButtons = ({ pages, next, label = "Pages" }: {
  readonly pages: CursorPages
  /** The next page's cursor, when there is one. */
  readonly next: string | undefined
  readonly label?: string
}) => (
  <nav className="paging" aria-label={label}>
    <Button isDisabled={pages.isFirst} onPress={pages.previous}>Previous page</Button>
    <Button isDisabled={next === undefined} onPress={() => next !== undefined && pages.next(next)}>Next page</Button>
  </nav>
)
