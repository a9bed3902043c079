/**
 * "History": a record's revisions, newest first (time, author, the fields that changed,
 * whether an autosave wrote it), paged as the API pages them. Selecting one shows it beside
 * the current text with the differences marked; "Restore" writes it back as a new change.
 */
import { useInfiniteQuery, useQuery } from "@tanstack/react-query"
import { useState } from "react"
import { Button, Dialog, DialogTrigger, Heading, ListBox, ListBoxItem, Modal } from "react-aria-components"
import { problemMessage } from "../../shared/problemMessage.ts"
import { type ComparedField, SideBySide } from "./SideBySide.tsx"

/** A revision as listed. */
export interface RevisionRow {
  readonly revision_id: number
  readonly created_at: { readonly epochMilliseconds: number }
  readonly author: string
  readonly autosave: boolean
  readonly changed: ReadonlyArray<string>
  readonly note: string | null
}

export interface HistorySource {
  /** Names the record in the query cache (`["course", 12]`). */
  readonly key: ReadonlyArray<unknown>
  /** A page of revisions from `cursor` (undefined: the newest), and the next page's cursor. */
  readonly page: (cursor: string | undefined) => Promise<{ readonly items: ReadonlyArray<RevisionRow>; readonly next: string | undefined }>
  /** One revision's fields, as compared with the current ones. */
  readonly fieldsOf: (revisionId: number) => Promise<ReadonlyArray<Omit<ComparedField, "right">>>
  /** The current fields, by label: read when a revision is compared (a long body's text is not free). */
  readonly current: () => Readonly<Record<string, string>>
  /** Restores a revision; resolves with the problem's words when it failed. */
  readonly restore: (revisionId: number) => Promise<string | undefined>
}

const when = (row: RevisionRow) =>
  new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" }).format(row.created_at.epochMilliseconds)

export const HistoryDialog = ({ source }: { readonly source: HistorySource }) => (
  <DialogTrigger>
    <Button>History</Button>
    <Modal className="modal wide" isDismissable>
      <Dialog>
        {({ close }) => <History source={source} close={close} />}
      </Dialog>
    </Modal>
  </DialogTrigger>
)

const History = ({ source, close }: { readonly source: HistorySource; readonly close: () => void }) => {
  const pages = useInfiniteQuery({
    queryKey: [...source.key, "revisions"],
    queryFn: ({ pageParam }) => source.page(pageParam),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.next
  })
  const [selected, setSelected] = useState<number>()
  const [restoring, setRestoring] = useState(false)
  const [error, setError] = useState<string>()
  const revision = useQuery({
    queryKey: [...source.key, "revision", selected],
    queryFn: () => source.fieldsOf(selected!),
    enabled: selected !== undefined
  })
  const rows = pages.data?.pages.flatMap((page) => page.items) ?? []
  const current = revision.data === undefined ? undefined : source.current()
  return (
    <>
      <Heading slot="title">History</Heading>
      {pages.isError && <p role="alert" className="error">{problemMessage(pages.error)}</p>}
      <div className="history">
        <div className="history-list">
          <ListBox
            aria-label="Revisions"
            selectionMode="single"
            // Escape is the dialog's: one press closes it (WAI-ARIA's modal dialog), rather than first clearing the selection.
            escapeKeyBehavior="none"
            selectedKeys={selected === undefined ? [] : [selected]}
            onSelectionChange={(keys) => {
              const [key] = keys === "all" ? [] : [...keys]
              setSelected(key === undefined ? undefined : Number(key))
              setError(undefined)
            }}
            items={rows.map((row) => ({ ...row, id: row.revision_id }))}
          >
            {(row) => (
              <ListBoxItem textValue={`${when(row)} ${row.author}`}>
                <span className="revision-when">{when(row)}</span>
                <span className="revision-author">{row.author}</span>
                <span className="revision-changed">{row.changed.join(", ")}</span>
                {row.autosave && <span className="revision-autosave">Autosave</span>}
                {row.note !== null && <span className="revision-note">{row.note}</span>}
              </ListBoxItem>
            )}
          </ListBox>
          {pages.hasNextPage && <Button onPress={() => void pages.fetchNextPage()} isDisabled={pages.isFetchingNextPage}>Older revisions</Button>}
        </div>
        <div className="history-view" aria-live="polite">
          {selected === undefined && <p className="hint">Select a revision to compare it with the current text.</p>}
          {revision.isError && <p role="alert" className="error">{problemMessage(revision.error)}</p>}
          {revision.data !== undefined && current !== undefined && (
            <>
              <SideBySide
                leftTitle="This revision"
                rightTitle="Current"
                fields={revision.data.map((field) => ({ ...field, right: current[field.label] ?? "" }))}
              />
              <div className="actions">
                <Button
                  className="primary"
                  isDisabled={restoring}
                  onPress={async () => {
                    setRestoring(true)
                    const problem = await source.restore(selected!)
                    setRestoring(false)
                    if (problem === undefined) close()
                    else setError(problem)
                  }}
                >
                  Restore
                </Button>
              </div>
            </>
          )}
          {error !== undefined && <p role="alert" className="error">{error}</p>}
        </div>
      </div>
      <div className="actions">
        <Button onPress={close}>Close</Button>
      </div>
    </>
  )
}
