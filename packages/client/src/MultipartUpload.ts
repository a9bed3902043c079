/**
 * Large media files in parts: `uploadMedia` switches to this at `multipartThreshold`.
 * Parts are read as slices of the file (never the whole file in memory), PUT a few at a
 * time straight to storage with URLs asked in batches as it goes, each PUT retried with
 * backoff; open uploads are remembered in a {@link ResumeStore} so that uploading the same
 * file again sends only the parts storage lacks; an abort signal deletes the upload. Calls
 * for one file at once share its upload: in one client they join one run
 * ({@link joiningUploads}); across clients sharing a store, whoever finishes second answers
 * the media the first completed, and none forgets an entry that is not its own.
 *
 * @since 0.1.0
 */
import { type MediaFile, type MediaVisibility, type MultipartStatus, type MultipartUpload, partLength, type PartUrl } from "@coursekit/core"
import { CoursekitError } from "./CoursekitError.ts"
import { putFile, type UploadProgress } from "./PutFile.ts"

/** What is remembered of an open multipart upload. */
export interface ResumeEntry {
  readonly upload_id: string
  readonly file_key: string
  readonly part_size: number
  readonly part_count: number
}

/**
 * Where open multipart uploads are remembered between `uploadMedia` calls (and page loads).
 * `delete(key, uploadId)` deletes the entry only while it is that upload's: another client
 * sharing the store may have put its own upload there meanwhile. (The client reads the
 * entry first too, so a store that ignores `uploadId` still works.)
 */
export interface ResumeStore {
  readonly get: (key: string) => Promise<ResumeEntry | undefined>
  readonly set: (key: string, value: ResumeEntry) => Promise<void>
  readonly delete: (key: string, uploadId?: string) => Promise<void>
}

/** Whether `delete(key, uploadId)` may delete `entry`. */
const deletable = (entry: ResumeEntry | undefined, uploadId: string | undefined) =>
  entry !== undefined && (uploadId === undefined || entry.upload_id === uploadId)

/** A store in memory: resumes within one process (or page) only. */
export const memoryResumeStore = (): ResumeStore => {
  const entries = new Map<string, ResumeEntry>()
  return {
    get: async (key) => entries.get(key),
    set: async (key, value) => void entries.set(key, value),
    delete: async (key, uploadId) => {
      if (deletable(entries.get(key), uploadId)) entries.delete(key)
    }
  }
}

/** A store in `localStorage`: resumes after a page reload. */
export const localStorageResumeStore = (storage: Storage): ResumeStore => {
  const read = (key: string) => {
    const text = storage.getItem(key)
    return text === null ? undefined : JSON.parse(text) as ResumeEntry
  }
  return {
    get: async (key) => read(key),
    set: async (key, value) => storage.setItem(key, JSON.stringify(value)),
    delete: async (key, uploadId) => {
      if (deletable(read(key), uploadId)) storage.removeItem(key)
    }
  }
}

/** `localStorage` where the platform has a usable one, else a store in memory. */
export const defaultResumeStore = (): ResumeStore => {
  try {
    // Node may define `localStorage` without a backing file; probe it.
    const storage = (globalThis as { localStorage?: Storage }).localStorage
    if (storage !== undefined && typeof storage.getItem === "function") {
      storage.getItem("coursekit:probe")
      return localStorageResumeStore(storage)
    }
  } catch {
    // No usable storage (disabled, sandboxed frame).
  }
  return memoryResumeStore()
}

/** Options of the multipart path of `uploadMedia`. */
export interface MultipartOptions {
  /** Files of at least this many bytes go up in parts. Default 64 MiB. */
  readonly multipartThreshold?: number | undefined
  /** Most part PUTs at once. Default 4. */
  readonly partsInFlight?: number | undefined
  /** Where open uploads are remembered for resuming. Default `localStorage` where there is one, else memory (per client). */
  readonly resumeStore?: ResumeStore | undefined
}

export const defaultMultipartThreshold = 64 * 1024 * 1024
const defaultPartsInFlight = 4
/** Waits before each retry of a part PUT. */
const retryDelaysMs = [500, 1000, 2000]
/** Part URLs live 5 minutes; one older than this is asked again before a PUT. */
const partUrlMaxAgeMs = 4 * 60 * 1000
const maxPartUrlsPerCall = 100

/** The multipart endpoints as Promises (rejecting with `CoursekitError`). */
export interface MultipartCalls {
  readonly create: (payload: { filename: string; type: string; size_bytes: number; visibility?: MediaVisibility }) => Promise<MultipartUpload>
  readonly partUrls: (uploadId: string, partNumbers: ReadonlyArray<number>) => Promise<ReadonlyArray<PartUrl>>
  readonly status: (uploadId: string) => Promise<MultipartStatus>
  readonly complete: (uploadId: string, parts: ReadonlyArray<{ part_number: number; etag: string }>) => Promise<MediaFile>
  readonly abort: (uploadId: string) => Promise<void>
  /** `finalize-upload`: the media file of an upload completed already (the same record again). */
  readonly finalize: (fileKey: string) => Promise<MediaFile>
}

export interface MultipartRequest {
  readonly file: Blob
  readonly filename: string
  readonly type: string
  readonly visibility?: MediaVisibility | undefined
  readonly baseUrl: string
  readonly onProgress?: ((progress: UploadProgress) => void) | undefined
  readonly signal?: AbortSignal | undefined
  /** Pauses: the PUTs stop and the upload stays remembered (not deleted); rejects with an `AbortError`. */
  readonly pause?: AbortSignal | undefined
  readonly partsInFlight?: number | undefined
  readonly store: ResumeStore
  /** The `fetch` the part PUTs go through (outside browsers). */
  readonly fetch: typeof globalThis.fetch
  /** The clock part URLs are aged by, in epoch milliseconds; default `Date.now` (tests move it). */
  readonly now?: (() => number) | undefined
}

/** The key an upload of this file (to this service, with this visibility) is remembered under. */
export const resumeKey = (request: Pick<MultipartRequest, "file" | "filename" | "type" | "visibility" | "baseUrl">) =>
  "coursekit:multipart:" + JSON.stringify([
    request.baseUrl,
    request.filename,
    request.file.size,
    (request.file as { lastModified?: number }).lastModified ?? null,
    request.type,
    request.visibility ?? "public"
  ])

const abortError = (signal: AbortSignal) =>
  signal.reason instanceof Error && signal.reason.name === "AbortError" ? signal.reason : new DOMException("The upload was aborted.", "AbortError")

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(done, ms)
    function done() {
      clearTimeout(timer)
      signal.removeEventListener("abort", done)
      resolve()
    }
    signal.addEventListener("abort", done, { once: true })
  })

/** Worth another try: no answer, a server error, or a 403 (the URL may have expired). */
const retriable = (error: unknown) =>
  error instanceof CoursekitError && (error.status === 0 || error.status === 403 || error.status >= 500)


const answered = (error: unknown, ...statuses: ReadonlyArray<number>) => error instanceof CoursekitError && statuses.includes(error.status)

/** The upload's status, or "completed" when it was completed already (the service answers 409). */
const statusOf = (calls: MultipartCalls, uploadId: string) =>
  calls.status(uploadId).catch((error: unknown) => {
    if (answered(error, 409)) return "completed" as const
    throw error
  })

/**
 * The media file of an upload completed already: by another client sharing the store, or
 * by a run stopped before it forgot the upload. Undefined when its file is gone since
 * (deleted: finalize answers 404).
 */
const completedMedia = (calls: MultipartCalls, upload: ResumeEntry): Promise<MediaFile | undefined> =>
  calls.finalize(upload.file_key).catch((error: unknown) => {
    if (answered(error, 404, 409, 410)) return undefined
    throw error
  })

/** Uploads `request.file` in parts, resuming a remembered upload of the same file; answers the media file. */
export const uploadMultipart = async (calls: MultipartCalls, request: MultipartRequest): Promise<MediaFile> => {
  const { file, store, signal, pause } = request
  const key = resumeKey(request)
  const now = request.now ?? Date.now
  if (signal?.aborted) throw abortError(signal)
  if (pause?.aborted) throw abortError(pause)

  // Only the entry of `uploadId`: a client sharing the store may have put its own meanwhile.
  const forget = async (uploadId: string) => {
    if ((await store.get(key))?.upload_id === uploadId) await store.delete(key, uploadId)
  }
  // The highest `loaded` reported: progress never goes backwards, nor repeats.
  let reported = -1
  const finished = async (uploadId: string, media: MediaFile) => {
    await forget(uploadId)
    if (reported < file.size) request.onProgress?.({ loaded: file.size, total: file.size })
    return media
  }

  // The remembered upload, with the parts storage holds already (those of the right size).
  let upload: ResumeEntry | undefined = await store.get(key)
  const etags = new Map<number, string>()
  if (upload !== undefined) {
    const remembered = upload
    const status = await statusOf(calls, remembered.upload_id).catch((error: unknown) => {
      // Unknown or aborted (404), expired (410): start anew.
      if (answered(error, 404, 410)) return undefined
      throw error
    })
    // Completed already: its media, unless deleted since (then start anew too).
    const media = status === "completed" ? await completedMedia(calls, remembered) : undefined
    if (media !== undefined) return finished(remembered.upload_id, media)
    if (
      status === undefined || status === "completed" || status.part_size !== remembered.part_size ||
      status.part_count !== remembered.part_count
    ) {
      await forget(remembered.upload_id)
      upload = undefined
    } else {
      for (const part of status.parts) {
        if (part.size_bytes === partLength(file.size, status.part_size, part.part_number)) etags.set(part.part_number, part.etag)
      }
    }
  }
  if (upload === undefined) {
    const created = await calls.create({
      filename: request.filename,
      type: request.type,
      size_bytes: file.size,
      ...(request.visibility === undefined ? {} : { visibility: request.visibility })
    })
    upload = { upload_id: created.upload_id, file_key: created.file_key, part_size: created.part_size, part_count: created.part_count }
    await store.set(key, upload)
  }
  const current = upload
  const { upload_id, part_size, part_count } = current

  const missing: Array<number> = []
  for (let n = 1; n <= part_count; n++) if (!etags.has(n)) missing.push(n)

  // Progress over the whole file: parts done plus what is out of the parts in flight, never backwards.
  let doneBytes = 0
  for (const n of etags.keys()) doneBytes += partLength(file.size, part_size, n)
  const inFlight = new Map<number, number>()
  const report = () => {
    if (request.onProgress === undefined) return
    let loaded = doneBytes
    for (const bytes of inFlight.values()) loaded += bytes
    loaded = Math.min(loaded, file.size)
    if (loaded > reported) {
      reported = loaded
      request.onProgress({ loaded, total: file.size })
    }
  }
  report()

  // Stops every PUT: on the caller's abort or when a part fails for good.
  const stop = new AbortController()
  const onAbort = () => stop.abort(signal?.reason)
  const onPause = () => stop.abort(pause?.reason)
  signal?.addEventListener("abort", onAbort, { once: true })
  pause?.addEventListener("abort", onPause, { once: true })
  // Aborted (or paused) while the upload was being created or looked up.
  if (signal?.aborted) onAbort()
  else if (pause?.aborted) onPause()

  // Part URLs, asked in batches of the parts next in line; asked again once old.
  const urls = new Map<number, { readonly url: PartUrl; readonly at: number }>()
  const asking = new Map<number, Promise<void>>()
  let queued = 0
  const urlFor = async (n: number): Promise<PartUrl> => {
    for (;;) {
      const cached = urls.get(n)
      if (cached !== undefined && now() - cached.at < partUrlMaxAgeMs) return cached.url
      const pending = asking.get(n)
      if (pending !== undefined) {
        await pending
        if (urls.has(n) && now() - urls.get(n)!.at < partUrlMaxAgeMs) return urls.get(n)!.url
        if (asking.get(n) === pending) asking.delete(n)
        continue
      }
      const batch = [n]
      for (let i = queued; i < missing.length && batch.length < maxPartUrlsPerCall; i++) {
        const next = missing[i]!
        if (next !== n && !asking.has(next) && !(urls.has(next) && now() - urls.get(next)!.at < partUrlMaxAgeMs)) batch.push(next)
      }
      const call = calls.partUrls(upload_id, batch).then((parts) => {
        const at = now()
        for (const part of parts) urls.set(part.part_number, { url: part, at })
      }).finally(() => {
        for (const m of batch) if (asking.get(m) === call) asking.delete(m)
      })
      for (const m of batch) asking.set(m, call)
      await call
      const got = urls.get(n)
      if (got === undefined) throw new CoursekitError(0, { title: "No part URL", detail: `The service answered no URL for part ${n}.` })
      return got.url
    }
  }

  const putPart = async (n: number) => {
    const start = (n - 1) * part_size
    const slice = file.slice(start, start + partLength(file.size, part_size, n))
    for (let attempt = 0;; attempt++) {
      if (stop.signal.aborted) throw stop.signal.reason
      inFlight.set(n, 0)
      try {
        const url = await urlFor(n)
        if (stop.signal.aborted) throw stop.signal.reason
        const etag = await putFile(url, slice, {
          signal: stop.signal,
          onProgress: ({ loaded }) => {
            inFlight.set(n, loaded)
            report()
          }
        }, request.fetch)
        inFlight.delete(n)
        doneBytes += slice.size
        if (etag !== undefined) etags.set(n, etag)
        report()
        return etag !== undefined
      } catch (error) {
        inFlight.delete(n)
        if (stop.signal.aborted || !retriable(error) || attempt >= retryDelaysMs.length) throw error
        // A fresh URL for the retry: the old one may have expired.
        urls.delete(n)
        await sleep(retryDelaysMs[attempt]!, stop.signal)
      }
    }
  }

  let withoutEtag = false
  let failure: { readonly error: unknown } | undefined
  const worker = async () => {
    while (failure === undefined && queued < missing.length) {
      const n = missing[queued++]!
      try {
        if (!(await putPart(n))) withoutEtag = true
      } catch (error) {
        if (failure === undefined) failure = { error }
        stop.abort(error)
      }
    }
  }
  const wanted = request.partsInFlight ?? defaultPartsInFlight
  // A count that is no whole number of at least 1 (0, NaN) would start no worker at all.
  const workers = Math.max(1, Math.min(Number.isFinite(wanted) ? Math.floor(wanted) : defaultPartsInFlight, missing.length))
  try {
    await Promise.all(Array.from({ length: workers }, worker))
  } finally {
    signal?.removeEventListener("abort", onAbort)
    pause?.removeEventListener("abort", onPause)
  }

  if (signal?.aborted) {
    // Cancelled: free the parts and forget the upload.
    await calls.abort(upload_id).catch(() => undefined)
    await forget(upload_id)
    throw abortError(signal)
  }
  // Paused: the upload stays as it is and remembered; the same file again resumes it.
  if (pause?.aborted) throw abortError(pause)
  if (failure !== undefined) {
    // A client sharing the store that resumed this upload may have completed it meanwhile
    // (its part URLs then answer 409, storage 404 to PUTs): its media is this file's.
    const status = await statusOf(calls, upload_id).catch(() => undefined)
    const media = status === "completed" ? await completedMedia(calls, current).catch(() => undefined) : undefined
    if (media !== undefined) return finished(upload_id, media)
    throw failure.error
  }

  // A storage that hid its ETag (CORS without `expose-headers`): ask the service for them.
  if (withoutEtag) {
    const status = await statusOf(calls, upload_id)
    if (status === "completed") {
      // By a client sharing the store, as these PUTs ended.
      const media = await completedMedia(calls, current)
      if (media !== undefined) return finished(upload_id, media)
      throw new CoursekitError(404, { title: "Not Found", status: 404, detail: `The upload was completed and its file ${current.file_key} deleted since.` })
    }
    for (const part of status.parts) if (!etags.has(part.part_number)) etags.set(part.part_number, part.etag)
  }
  const parts = Array.from({ length: part_count }, (_, i) => ({ part_number: i + 1, etag: etags.get(i + 1) ?? "" }))
  // Completed meanwhile by a client sharing the store, or by an attempt whose answer was
  // lost: the service answers the same media, so completing is retried like a part PUT.
  for (let attempt = 0;; attempt++) {
    try {
      return finished(upload_id, await calls.complete(upload_id, parts))
    } catch (error) {
      const unanswered = error instanceof CoursekitError && (error.status === 0 || error.status >= 500)
      if (!unanswered || attempt >= retryDelaysMs.length || signal?.aborted) throw error
      await new Promise((resolve) => setTimeout(resolve, retryDelaysMs[attempt]))
    }
  }
}

/** One run of {@link uploadMultipart} and the calls waiting for it. */
interface SharedRun {
  readonly promise: Promise<MediaFile>
  /** Aborted once every call waiting for the run has aborted. */
  readonly cancel: AbortController
  /** The first call's `pause`: a paused run ends, and a call arriving then starts anew after it. */
  readonly pause: AbortSignal | undefined
  readonly listeners: Set<(progress: UploadProgress) => void>
  last: UploadProgress | undefined
  callers: number
}

/**
 * {@link uploadMultipart} with one run per file (resume key) at a time: a call for a file
 * whose upload is under way joins that run instead of racing it over the same resume entry
 * and parts. Each call gets the run's media (or error) and the run's progress from where it
 * is; the run's other options are the first call's. A call that aborts rejects at once with
 * an `AbortError` and leaves the run to the others; the last one to abort cancels it, and
 * rejects once the upload is deleted and forgotten. A call arriving while a run is being
 * cancelled (or paused, by the first call's `pause`) starts anew after it.
 */
export const joiningUploads = (calls: MultipartCalls) => {
  const runs = new Map<string, SharedRun>()

  const start = (key: string, request: MultipartRequest): SharedRun => {
    const cancel = new AbortController()
    const listeners = new Set<(progress: UploadProgress) => void>()
    const run: SharedRun = {
      cancel,
      pause: request.pause,
      listeners,
      last: undefined,
      callers: 0,
      promise: uploadMultipart(calls, {
        ...request,
        signal: cancel.signal,
        onProgress: (progress) => {
          run.last = progress
          for (const listener of listeners) listener(progress)
        }
      }).finally(() => {
        if (runs.get(key) === run) runs.delete(key)
      })
    }
    runs.set(key, run)
    return run
  }

  const join = (run: SharedRun, request: MultipartRequest) =>
    new Promise<MediaFile>((resolve, reject) => {
      const { onProgress, signal } = request
      // A function of its own: two calls may pass the same callback.
      const listener = onProgress === undefined ? undefined : (progress: UploadProgress) => onProgress(progress)
      const leave = () => {
        if (listener !== undefined) run.listeners.delete(listener)
        signal?.removeEventListener("abort", onAbort)
      }
      function onAbort() {
        leave()
        run.callers -= 1
        if (run.callers === 0) run.cancel.abort(signal!.reason)
        else reject(abortError(signal!))
      }
      run.callers += 1
      if (listener !== undefined) {
        run.listeners.add(listener)
        if (run.last !== undefined) listener(run.last)
      }
      signal?.addEventListener("abort", onAbort, { once: true })
      run.promise.then((media) => {
        leave()
        resolve(media)
      }, (error: unknown) => {
        leave()
        reject(error)
      })
    })

  return async (request: MultipartRequest): Promise<MediaFile> => {
    const key = resumeKey(request)
    for (;;) {
      if (request.signal?.aborted) throw abortError(request.signal)
      const run = runs.get(key)
      if (run === undefined) return join(start(key, request), request)
      if (!run.cancel.signal.aborted && run.pause?.aborted !== true) return join(run, request)
      // Being cancelled: its abort deletes the upload this call would otherwise resume.
      // Being paused: it stops, and this call resumes the upload it leaves.
      await run.promise.catch(() => undefined)
    }
  }
}
