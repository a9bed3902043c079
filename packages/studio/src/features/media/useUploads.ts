/**
 * The uploads of the Media view, each through the client's own `uploadMedia`: one presigned
 * PUT below its multipart threshold (64 MiB), else parts in parallel, remembered in
 * `localStorage` so that choosing the same file again (after a reload, a dropped
 * connection, a pause) sends only the parts storage lacks. Pause aborts the run's PUTs and
 * keeps the upload (`pause`); Resume runs it again; Cancel aborts it (`signal`: the client
 * deletes the upload in parts and forgets it).
 */
import { defaultMultipartThreshold } from "@coursekit/client"
import type { MediaFile, MediaVisibility } from "@coursekit/core"
import { useQueryClient } from "@tanstack/react-query"
import { useCallback, useRef, useState } from "react"
import { studioClient } from "../../app/studioClient.ts"
import { problemMessage } from "../../shared/problemMessage.ts"
import { mediaKey } from "./mediaQueries.ts"
import { addSample, rateOf, type Sample } from "./transferRate.ts"

export type UploadState = "uploading" | "paused" | "done" | "failed"

export interface Upload {
  readonly id: number
  readonly name: string
  readonly visibility: MediaVisibility
  readonly total: number
  readonly loaded: number
  readonly state: UploadState
  readonly bytesPerSecond: number | undefined
  readonly secondsLeft: number | undefined
  readonly error: string | undefined
  readonly media: MediaFile | undefined
}

interface Run {
  readonly file: File
  readonly visibility: MediaVisibility
  cancel: AbortController
  pause: AbortController
  samples: ReadonlyArray<Sample>
  /** Set by Cancel: the run's end removes the upload from the list. */
  cancelled: boolean
}

export const useUploads = () => {
  const queries = useQueryClient()
  const [uploads, setUploads] = useState<ReadonlyArray<Upload>>([])
  const runs = useRef(new Map<number, Run>())
  const nextId = useRef(1)

  const update = useCallback((id: number, change: Partial<Upload>) =>
    setUploads((current) => current.map((upload) => (upload.id === id ? { ...upload, ...change } : upload))), [])
  const remove = useCallback((id: number) => {
    runs.current.delete(id)
    setUploads((current) => current.filter((upload) => upload.id !== id))
  }, [])

  const run = useCallback(async (id: number, options: { readonly cancelAtOnce?: boolean } = {}) => {
    const entry = runs.current.get(id)
    if (entry === undefined) return
    entry.cancel = new AbortController()
    entry.pause = new AbortController()
    entry.samples = []
    const { cancel, pause } = entry
    update(id, { state: "uploading", error: undefined, bytesPerSecond: undefined, secondsLeft: undefined })
    try {
      const media = await studioClient.uploadMedia(entry.file, {
        visibility: entry.visibility,
        signal: cancel.signal,
        pause: pause.signal,
        onProgress: ({ loaded, total }) => {
          // Cancelling a paused upload: the client has looked the upload up (its first
          // progress, before any PUT); aborting now deletes it and forgets it.
          if (options.cancelAtOnce === true) return cancel.abort()
          entry.samples = addSample(entry.samples, { at: performance.now(), loaded })
          update(id, { loaded, total, ...rateOf(entry.samples, total) })
        }
      })
      update(id, { state: "done", loaded: entry.file.size, media, bytesPerSecond: undefined, secondsLeft: undefined })
      void queries.invalidateQueries({ queryKey: mediaKey })
    } catch (error) {
      if (entry.cancelled || cancel.signal.aborted) return remove(id)
      if (pause.signal.aborted) return update(id, { state: "paused", bytesPerSecond: undefined, secondsLeft: undefined })
      update(id, { state: "failed", error: problemMessage(error), bytesPerSecond: undefined, secondsLeft: undefined })
    }
  }, [queries, remove, update])

  /** Starts an upload of each file, all at once. */
  const start = useCallback((files: ReadonlyArray<File>, visibility: MediaVisibility) => {
    const added: Array<Upload> = []
    for (const file of files) {
      const id = nextId.current++
      runs.current.set(id, { file, visibility, cancel: new AbortController(), pause: new AbortController(), samples: [], cancelled: false })
      added.push({
        id,
        name: file.name,
        visibility,
        total: file.size,
        loaded: 0,
        state: "uploading",
        bytesPerSecond: undefined,
        secondsLeft: undefined,
        error: undefined,
        media: undefined
      })
    }
    setUploads((current) => [...current, ...added])
    for (const upload of added) void run(upload.id)
  }, [run])

  const pause = useCallback((id: number) => runs.current.get(id)?.pause.abort(), [])
  /** Runs it again: the client resumes from the parts storage holds (one PUT starts anew). */
  const resume = useCallback((id: number) => void run(id), [run])
  const cancel = useCallback((id: number) => {
    const entry = runs.current.get(id)
    if (entry === undefined) return
    entry.cancelled = true
    const state = uploads.find((upload) => upload.id === id)?.state
    if (state === "uploading") return entry.cancel.abort()
    // Paused or failed: nothing runs; an upload in parts is still remembered, and deleted by a
    // run cancelled as soon as it has looked it up. A file that went up in one PUT has nothing kept.
    if ((state === "paused" || state === "failed") && entry.file.size >= defaultMultipartThreshold) return void run(id, { cancelAtOnce: true })
    remove(id)
  }, [remove, run, uploads])
  /** Takes a finished upload off the list. */
  const dismiss = useCallback((id: number) => remove(id), [remove])

  return { uploads, start, pause, resume, cancel, dismiss }
}
