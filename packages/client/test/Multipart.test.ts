/**
 * `uploadMedia` in parts against the real standalone server (files on local disk behind
 * signed part PUTs): parallel PUTs with progress, resume with only the missing parts,
 * retries, part URLs asked again when old, cancel, the same file twice at once (in one
 * client, and in clients sharing a resume store); and the resume stores.
 */
import { assert, describe, it, layer } from "@effect/vitest"
import { createHash, randomBytes } from "node:crypto"
import { mkdtemp, readFile, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect } from "effect"
import { adminToken, layerTestServer, TestServer } from "../../server/test/TestServer.ts"
import type { PartUrl } from "@coursekit/core"
import {
  CoursekitError,
  createClient,
  type CoursekitPromiseClient,
  localStorageResumeStore,
  memoryResumeStore,
  type ResumeEntry,
  type ResumeStore
} from "../src/index.ts"
import { type MultipartCalls, resumeKey, uploadMultipart } from "../src/MultipartUpload.ts"
import { fileResumeStore } from "../src/node.ts"

const MiB = 1024 * 1024
const threshold = 1 * MiB

const rejection = (promise: Promise<unknown>) =>
  Effect.promise(() => promise.then(() => assert.fail("expected a rejection"), (error: unknown) => error))

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex")

const servedSha256 = (url: string) =>
  Effect.promise(async () => {
    const response = await fetch(url)
    assert.strictEqual(response.status, 200)
    return sha256(new Uint8Array(await response.arrayBuffer()))
  })

const fileOf = (size: number, name: string) => {
  const bytes = new Uint8Array(randomBytes(size))
  return { bytes, file: new File([bytes], name, { type: "video/mp4", lastModified: 1_700_000_000_000 }) }
}

/**
 * A `fetch` that records the requests and lets a test fail, hold or watch part PUTs (`onPut`
 * may answer a promise: the PUT waits for it) and hold other calls (`beforeCall`).
 */
const recording = (
  onPut?: (index: number) => Response | Error | undefined | Promise<Response | Error | undefined>,
  afterPut?: (index: number) => void,
  beforeCall?: (method: string, url: string) => Promise<void> | undefined
) => {
  const requests: Array<{ method: string; url: string }> = []
  let puts = 0
  let active = 0
  let maxActive = 0
  const wrapped: typeof fetch = async (input, init) => {
    const method = init?.method ?? (input instanceof Request ? input.method : "GET")
    const url = input instanceof Request ? input.url : String(input)
    requests.push({ method, url })
    if (method !== "PUT") {
      await beforeCall?.(method, url)
      return fetch(input, init)
    }
    const index = ++puts
    const planned = await onPut?.(index)
    if (planned instanceof Error) throw planned
    if (planned !== undefined) return planned
    active += 1
    maxActive = Math.max(maxActive, active)
    try {
      return await fetch(input, init)
    } finally {
      active -= 1
      afterPut?.(index)
    }
  }
  const count = (method: string, path: RegExp) => requests.filter((request) => request.method === method && path.test(new URL(request.url).pathname)).length
  return {
    fetch: wrapped,
    requests,
    puts: () => puts,
    maxActive: () => maxActive,
    /** Multipart uploads created. */
    creates: () => count("POST", /^\/admin\/media\/multipart$/),
    partUrlCalls: () => count("POST", /^\/admin\/media\/multipart\/[^/]+\/parts$/),
    completes: () => count("POST", /^\/admin\/media\/multipart\/[^/]+\/complete$/),
    /** The part numbers PUT, in order. */
    partsPut: () => requests.filter((request) => request.method === "PUT").map((request) => Number(new URL(request.url).searchParams.get("partNumber")))
  }
}

/** Settles when `promise` does, fulfilled either way. */
const settled = (promise: Promise<unknown>) => promise.then(() => undefined, () => undefined)

/** Strictly increasing, ending at `total`. */
const assertProgress = (loaded: ReadonlyArray<number>, total: number) => {
  assert.deepStrictEqual(loaded, [...loaded].sort((a, b) => a - b))
  assert.strictEqual(new Set(loaded).size, loaded.length)
  assert.strictEqual(loaded.at(-1), total)
}

/**
 * The multipart calls over a Promise client, for `uploadMultipart` itself (to move its clock).
 * Each part URL answered carries a fragment naming the call that answered it (`#call-2`;
 * never sent), so that a test can tell which URL a PUT used.
 */
const markedCalls = (kit: CoursekitPromiseClient) => {
  const answered: Array<ReadonlyArray<PartUrl>> = []
  const calls: MultipartCalls = {
    create: (payload) => kit.multipart.create({ payload }),
    partUrls: async (uploadId, partNumbers) => {
      const { parts } = await kit.multipart.partUrls({ params: { upload_id: uploadId }, payload: { part_numbers: partNumbers } })
      const marked = parts.map((part) => ({ ...part, upload_url: `${part.upload_url}#call-${answered.length + 1}` }))
      answered.push(marked)
      return marked
    },
    status: (uploadId) => kit.multipart.status({ params: { upload_id: uploadId } }),
    complete: (uploadId, parts) => kit.multipart.complete({ params: { upload_id: uploadId }, payload: { parts } }),
    abort: (uploadId) => kit.multipart.abort({ params: { upload_id: uploadId } }).then(() => undefined),
    finalize: (fileKey) => kit.media.finalizeUpload({ payload: { file_key: fileKey } })
  }
  return { calls, answered }
}

/** The PUTs sent: part number and the call whose URL it used. */
const putsByCall = (requests: ReadonlyArray<{ method: string; url: string }>) =>
  requests.filter((request) => request.method === "PUT").map((request) => {
    const url = new URL(request.url)
    return [Number(url.searchParams.get("partNumber")), url.hash] as const
  })

/** A store that remembers what it was given last. */
const watchedStore = () => {
  const store = memoryResumeStore()
  const last: { entry?: ResumeEntry; key?: string } = {}
  const watched: ResumeStore = {
    get: store.get,
    set: async (key, value) => {
      last.entry = value
      last.key = key
      await store.set(key, value)
    },
    delete: store.delete
  }
  return { store: watched, last, inner: store }
}

describe("uploadMedia in parts", () => {
  layer(layerTestServer({ uploadLimits: { thumbnailMaxBytes: 64 * 1024, mediaMaxBytes: 64 * MiB } }), {
    timeout: 120_000,
    excludeTestServices: true
  })((it) => {
    it.effect("parts in parallel (at most partsInFlight), progress over the whole file, the same bytes served", () =>
      Effect.gen(function*() {
        const { url } = yield* TestServer
        const recorder = recording()
        const kit = createClient({ baseUrl: url, adminToken, fetch: recorder.fetch })
        const { bytes, file } = fileOf(16 * MiB + 12345, "lecture.mp4")
        const progress: Array<{ loaded: number; total: number }> = []
        const media = yield* Effect.promise(() =>
          kit.uploadMedia(file, { multipartThreshold: threshold, partsInFlight: 2, onProgress: (event) => progress.push(event) })
        )
        assert.strictEqual(media.size_bytes, file.size)
        assert.strictEqual(media.content_type, "video/mp4")
        assert.strictEqual(media.name, "lecture.mp4")
        assert.match(media.file_key, /^media\/[0-9a-f-]+\.mp4$/)
        assert.strictEqual(yield* servedSha256(media.url), sha256(bytes))

        // 5 MiB parts: 4 PUTs, 2 at most at once, one batch of part URLs.
        assert.strictEqual(recorder.puts(), 4)
        assert.strictEqual(recorder.maxActive(), 2)
        assert.strictEqual(recorder.requests.filter((request) => request.url.endsWith("/parts")).length, 1)
        assert.isFalse(recorder.requests.some((request) => request.url.includes("upload-url")))

        const loaded = progress.map((event) => event.loaded)
        assert.deepStrictEqual(loaded, [...loaded].sort((a, b) => a - b))
        assert.strictEqual(new Set(loaded).size, loaded.length)
        assert.isAbove(progress.length, 4)
        assert.deepStrictEqual(progress.at(-1), { loaded: file.size, total: file.size })
        assert.isTrue(progress.every((event) => event.total === file.size))

        // Below the threshold: one PUT, as before.
        const small = recording()
        const smallKit = createClient({ baseUrl: url, adminToken, fetch: small.fetch })
        const single = yield* Effect.promise(() => smallKit.uploadMedia(new File([new Uint8Array(MiB - 1)], "small.mp4", { type: "video/mp4" }), { multipartThreshold: threshold }))
        assert.strictEqual(single.size_bytes, MiB - 1)
        assert.strictEqual(small.puts(), 1)
        assert.isTrue(small.requests.some((request) => request.url.endsWith("/admin/media/upload-url")))
        assert.isFalse(small.requests.some((request) => request.url.includes("multipart")))
        yield* Effect.promise(() => Promise.all([kit.dispose(), smallKit.dispose()]))
      }))

    it.effect("resume: a failed upload is remembered; the same file again PUTs only the missing parts and completes", () =>
      Effect.gen(function*() {
        const { url } = yield* TestServer
        const { store, last, inner } = watchedStore()
        const { bytes, file } = fileOf(16 * MiB, "resumed.mp4")

        // Every PUT after the first two fails (no answer, retries too).
        const failing = recording((index) => index > 2 ? new TypeError("fetch failed") : undefined)
        const first = createClient({ baseUrl: url, adminToken, fetch: failing.fetch })
        const failed = yield* rejection(first.uploadMedia(file, { multipartThreshold: threshold, resumeStore: store, partsInFlight: 1 }))
        assert.instanceOf(failed, CoursekitError)
        assert.strictEqual((failed as CoursekitError).status, 0)
        // Part 3: the first try and 3 retries.
        assert.strictEqual(failing.puts(), 2 + 4)
        const remembered = last.entry!
        assert.strictEqual(remembered.part_count, 4)
        const status = yield* Effect.promise(() => first.multipart.status({ params: { upload_id: remembered.upload_id } }))
        assert.deepStrictEqual(status.parts.map((part) => part.part_number), [1, 2])

        const second = recording()
        const kit = createClient({ baseUrl: url, adminToken, fetch: second.fetch })
        const progress: Array<number> = []
        const media = yield* Effect.promise(() =>
          kit.uploadMedia(file, { multipartThreshold: threshold, resumeStore: store, onProgress: (event) => progress.push(event.loaded) })
        )
        assert.strictEqual(second.puts(), 2)
        assert.isFalse(second.requests.some((request) => request.method === "POST" && request.url.endsWith("/admin/media/multipart")))
        assert.strictEqual(media.file_key, remembered.file_key)
        assert.strictEqual(media.size_bytes, file.size)
        assert.strictEqual(yield* servedSha256(media.url), sha256(bytes))
        // Progress starts at the parts storage held.
        assert.strictEqual(progress[0], 10 * MiB)
        assert.strictEqual(progress.at(-1), file.size)
        // Completed: forgotten.
        assert.isUndefined(yield* Effect.promise(() => inner.get(last.key!)))
        const again = recording()
        const third = createClient({ baseUrl: url, adminToken, fetch: again.fetch })
        const fresh = yield* Effect.promise(() => third.uploadMedia(file, { multipartThreshold: threshold, resumeStore: store }))
        assert.notStrictEqual(fresh.file_key, media.file_key)
        assert.strictEqual(again.puts(), 4)
        assert.isFalse(again.requests.some((request) => request.method === "GET" && request.url.includes("/multipart/")))
        yield* Effect.promise(() => Promise.all([first.dispose(), kit.dispose(), third.dispose()]))
      }))

    it.effect("retry: a part PUT answered 503 once is asked a new URL and PUT again; the upload completes", () =>
      Effect.gen(function*() {
        const { url } = yield* TestServer
        const recorder = recording((index) => index === 2 ? new Response("busy", { status: 503 }) : undefined)
        const kit = createClient({ baseUrl: url, adminToken, fetch: recorder.fetch })
        const { bytes, file } = fileOf(11 * MiB, "retried.mp4")
        const media = yield* Effect.promise(() => kit.uploadMedia(file, { multipartThreshold: threshold, resumeStore: memoryResumeStore() }))
        assert.strictEqual(recorder.puts(), 3 + 1)
        // The batch, then a fresh URL for the part retried.
        const asked = recorder.requests.filter((request) => request.url.endsWith("/parts")).length
        assert.strictEqual(asked, 2)
        assert.strictEqual(yield* servedSha256(media.url), sha256(bytes))
        yield* Effect.promise(() => kit.dispose())
      }))

    it.effect("complete: an answer lost (no answer, then a 503) is asked again: one upload, the record its first attempt made; partsInFlight 0 still uploads", () =>
      Effect.gen(function*() {
        const { url } = yield* TestServer
        let completes = 0
        let creates = 0
        const lossy: typeof fetch = async (input, init) => {
          const target = input instanceof Request ? input.url : String(input)
          if (target.endsWith("/admin/media/multipart")) creates += 1
          if (!target.endsWith("/complete")) return fetch(input, init)
          completes += 1
          if (completes === 1) {
            // The service completes; its answer never arrives.
            await (await fetch(input, init)).arrayBuffer()
            throw new TypeError("fetch failed")
          }
          if (completes === 2) return new Response("busy", { status: 503 })
          return fetch(input, init)
        }
        const kit = createClient({ baseUrl: url, adminToken, fetch: lossy })
        const { bytes, file } = fileOf(11 * MiB, "lost-answer.mp4")
        const media = yield* Effect.promise(() => kit.uploadMedia(file, { multipartThreshold: threshold, partsInFlight: 0, resumeStore: memoryResumeStore() }))
        assert.deepStrictEqual([creates, completes], [1, 3])
        assert.strictEqual(media.size_bytes, 11 * MiB)
        assert.strictEqual(yield* servedSha256(media.url), sha256(bytes))
        // The file the first attempt completed: finalizing its key answers the same record.
        const recorded = yield* Effect.promise(() => kit.media.finalizeUpload({ payload: { file_key: media.file_key } }))
        assert.strictEqual(recorded.id, media.id)
        yield* Effect.promise(() => kit.dispose())
      }))

    it.effect("cancel: aborting after the first part rejects with an AbortError, deletes the upload (then 404) and forgets it", () =>
      Effect.gen(function*() {
        const { url } = yield* TestServer
        const controller = new AbortController()
        const recorder = recording(undefined, (index) => index === 1 && controller.abort())
        const kit = createClient({ baseUrl: url, adminToken, fetch: recorder.fetch })
        const { store, last, inner } = watchedStore()
        const { file } = fileOf(16 * MiB, "cancelled.mp4")
        const cancelled = yield* rejection(
          kit.uploadMedia(file, { multipartThreshold: threshold, partsInFlight: 1, resumeStore: store, signal: controller.signal })
        )
        assert.strictEqual((cancelled as Error).name, "AbortError")
        assert.strictEqual(recorder.puts(), 1)
        const uploadId = last.entry!.upload_id
        assert.isUndefined(yield* Effect.promise(() => inner.get(last.key!)))
        const deletes = recorder.requests.filter((request) => request.method === "DELETE")
        assert.deepStrictEqual(deletes.map((request) => new URL(request.url).pathname), [`/admin/media/multipart/${uploadId}`])
        const gone = yield* rejection(kit.multipart.status({ params: { upload_id: uploadId } }))
        assert.strictEqual((gone as CoursekitError).status, 404)
        // Forgotten: the same file starts a new upload.
        const again = recording()
        const fresh = createClient({ baseUrl: url, adminToken, fetch: again.fetch })
        yield* Effect.promise(() => fresh.uploadMedia(file, { multipartThreshold: threshold, resumeStore: store }))
        assert.isFalse(again.requests.some((request) => request.url.includes(uploadId)))
        assert.notStrictEqual(last.entry!.upload_id, uploadId)

        // A signal aborted already: nothing is created, nothing sent.
        const none = recording()
        const idle = createClient({ baseUrl: url, adminToken, fetch: none.fetch })
        const early = yield* rejection(idle.uploadMedia(file, { multipartThreshold: threshold, resumeStore: memoryResumeStore(), signal: AbortSignal.abort() }))
        assert.strictEqual((early as Error).name, "AbortError")
        assert.deepStrictEqual(none.requests, [])
        yield* Effect.promise(() => Promise.all([kit.dispose(), fresh.dispose(), idle.dispose()]))
      }))

    it.effect("pause: stops the PUTs, keeps the upload remembered (not deleted); the same file again, in the same client, sends only the rest", () =>
      Effect.gen(function*() {
        const { url } = yield* TestServer
        const pause = new AbortController()
        const recorder = recording(undefined, (index) => index === 1 && pause.abort())
        const kit = createClient({ baseUrl: url, adminToken, fetch: recorder.fetch })
        const { store, last, inner } = watchedStore()
        const { bytes, file } = fileOf(11 * MiB, "paused.mp4")
        const options = { multipartThreshold: threshold, partsInFlight: 1, resumeStore: store }
        const paused = yield* rejection(kit.uploadMedia(file, { ...options, pause: pause.signal }))
        assert.strictEqual((paused as Error).name, "AbortError")
        assert.strictEqual(recorder.puts(), 1)
        const uploadId = last.entry!.upload_id
        // Not deleted, still remembered: storage holds part 1.
        assert.isFalse(recorder.requests.some((request) => request.method === "DELETE"))
        assert.strictEqual((yield* Effect.promise(() => inner.get(last.key!)))?.upload_id, uploadId)
        const status = yield* Effect.promise(() => kit.multipart.status({ params: { upload_id: uploadId } }))
        assert.deepStrictEqual(status.parts.map((part) => part.part_number), [1])
        // Resumed at once by the same client (its paused run may still be ending): parts 2… only.
        const before = recorder.requests.length
        const media = yield* Effect.promise(() => kit.uploadMedia(file, { ...options, pause: new AbortController().signal }))
        const resumedPuts = recorder.requests.slice(before).filter((request) => request.method === "PUT")
          .map((request) => Number(new URL(request.url).searchParams.get("partNumber")))
        assert.notInclude(resumedPuts, 1)
        assert.strictEqual(resumedPuts.length, status.part_count - 1)
        assert.strictEqual(yield* servedSha256(media.url), sha256(bytes))
        assert.isUndefined(yield* Effect.promise(() => inner.get(last.key!)))

        // A small file (one PUT) paused: rejects, nothing recorded; again: uploaded whole.
        const small = fileOf(1000, "small.mp4")
        const smallPause = new AbortController()
        const holding = recording(() => new Promise((resolve) => setTimeout(() => resolve(undefined), 200)))
        const slow = createClient({ baseUrl: url, adminToken, fetch: holding.fetch })
        const stopped = slow.uploadMedia(small.file, { ...options, pause: smallPause.signal })
        smallPause.abort()
        assert.isDefined(yield* rejection(stopped))
        const whole = yield* Effect.promise(() => slow.uploadMedia(small.file, options))
        assert.strictEqual(yield* servedSha256(whole.url), sha256(small.bytes))
        yield* Effect.promise(() => Promise.all([kit.dispose(), slow.dispose()]))
      }))

    it.effect("part URLs: one 4 minutes old is asked again before its PUT; one younger is used", () =>
      Effect.gen(function*() {
        const { url } = yield* TestServer
        const kit = createClient({ baseUrl: url, adminToken })
        const { calls, answered } = markedCalls(kit)
        const { bytes, file } = fileOf(11 * MiB, "aged.mp4")
        // The clock moves as the PUTs start: at part 2 the URLs are 1 ms short of 4 minutes
        // old, at part 3 exactly 4 minutes.
        let clock = 1_700_000_000_000
        const recorder = recording((index) => {
          if (index === 1) clock += 4 * 60_000 - 1
          if (index === 2) clock += 1
          return undefined
        })
        const media = yield* Effect.promise(() =>
          uploadMultipart(calls, {
            file,
            filename: file.name,
            type: file.type,
            baseUrl: url,
            partsInFlight: 1,
            store: memoryResumeStore(),
            fetch: recorder.fetch,
            now: () => clock
          })
        )
        assert.deepStrictEqual(answered.map((parts) => parts.map((part) => part.part_number)), [[1, 2, 3], [3]])
        assert.deepStrictEqual(putsByCall(recorder.requests), [[1, "#call-1"], [2, "#call-1"], [3, "#call-2"]])
        assert.strictEqual(media.size_bytes, file.size)
        assert.strictEqual(yield* servedSha256(media.url), sha256(bytes))
        yield* Effect.promise(() => kit.dispose())
      }))

    it.effect("part URLs: a PUT answered 403 (an expired URL) is asked a new URL and PUT again there", () =>
      Effect.gen(function*() {
        const { url } = yield* TestServer
        const kit = createClient({ baseUrl: url, adminToken })
        const { calls, answered } = markedCalls(kit)
        const { bytes, file } = fileOf(11 * MiB, "expired.mp4")
        const recorder = recording((index) => index === 2 ? new Response("Request has expired", { status: 403 }) : undefined)
        const media = yield* Effect.promise(() =>
          uploadMultipart(calls, { file, filename: file.name, type: file.type, baseUrl: url, partsInFlight: 1, store: memoryResumeStore(), fetch: recorder.fetch })
        )
        // Part 2's first PUT was refused; only its URL is asked again (part 3's is fresh).
        assert.deepStrictEqual(answered.map((parts) => parts.map((part) => part.part_number)), [[1, 2, 3], [2]])
        assert.deepStrictEqual(putsByCall(recorder.requests), [[1, "#call-1"], [2, "#call-1"], [2, "#call-2"], [3, "#call-1"]])
        assert.strictEqual(yield* servedSha256(media.url), sha256(bytes))
        yield* Effect.promise(() => kit.dispose())
      }))

    it.effect("one client, the same file twice at once: the second call joins the first (one upload, each part PUT once, the same media)", () =>
      Effect.gen(function*() {
        const { url } = yield* TestServer
        const { store, inner, last } = watchedStore()
        const { bytes, file } = fileOf(11 * MiB, "joined.mp4")
        const options = { multipartThreshold: threshold, resumeStore: store, partsInFlight: 1 }
        const first: Array<number> = []
        const second: Array<number> = []
        let joined: Promise<unknown> | undefined
        // The second call comes once part 1 is up.
        const recorder = recording(undefined, (index) => {
          if (index === 1) joined = kit.uploadMedia(file, { ...options, onProgress: (event) => second.push(event.loaded) })
        })
        const kit = createClient({ baseUrl: url, adminToken, fetch: recorder.fetch })
        const media = yield* Effect.promise(() => kit.uploadMedia(file, { ...options, onProgress: (event) => first.push(event.loaded) }))
        assert.deepStrictEqual(yield* Effect.promise(() => joined!), media)
        assert.strictEqual(recorder.creates(), 1)
        assert.deepStrictEqual(recorder.partsPut(), [1, 2, 3])
        assert.strictEqual(recorder.partUrlCalls(), 1)
        assert.strictEqual(recorder.completes(), 1)
        assert.strictEqual(yield* servedSha256(media.url), sha256(bytes))
        // Each call has its progress: the second's starts where the upload was (part 1 up).
        assertProgress(first, file.size)
        assertProgress(second, file.size)
        assert.strictEqual(second[0], 5 * MiB)
        assert.isUndefined(yield* Effect.promise(() => inner.get(last.key!)))

        // Done: the same file again is a new upload.
        const again = yield* Effect.promise(() => kit.uploadMedia(file, options))
        assert.notStrictEqual(again.file_key, media.file_key)
        assert.strictEqual(recorder.creates(), 2)
        yield* Effect.promise(() => kit.dispose())
      }))

    it.effect("one client, the same file twice at once: a call that aborts leaves the upload to the other; once both aborted, it is deleted", () =>
      Effect.gen(function*() {
        const { url } = yield* TestServer
        const { store, inner, last } = watchedStore()
        const options = { multipartThreshold: threshold, resumeStore: store, partsInFlight: 1 }

        // One of two aborts after part 1: it rejects, the other gets the media.
        const quitter = new AbortController()
        const recorder = recording(undefined, (index) => index === 1 && quitter.abort())
        const kit = createClient({ baseUrl: url, adminToken, fetch: recorder.fetch })
        const { bytes, file } = fileOf(11 * MiB, "one-stays.mp4")
        const staying = kit.uploadMedia(file, options)
        const quitting = kit.uploadMedia(file, { ...options, signal: quitter.signal })
        assert.strictEqual(((yield* rejection(quitting)) as Error).name, "AbortError")
        const media = yield* Effect.promise(() => staying)
        assert.deepStrictEqual(recorder.partsPut(), [1, 2, 3])
        assert.isFalse(recorder.requests.some((request) => request.method === "DELETE"))
        assert.strictEqual(yield* servedSha256(media.url), sha256(bytes))

        // Both abort after part 1: the upload is deleted and forgotten, both reject.
        const a = new AbortController()
        const b = new AbortController()
        const both = recording(undefined, (index) => {
          if (index === 1) {
            a.abort()
            b.abort()
          }
        })
        const other = createClient({ baseUrl: url, adminToken, fetch: both.fetch })
        const { file: cancelled } = fileOf(11 * MiB, "both-quit.mp4")
        const results = yield* Effect.promise(() =>
          Promise.allSettled([
            other.uploadMedia(cancelled, { ...options, signal: a.signal }),
            other.uploadMedia(cancelled, { ...options, signal: b.signal })
          ])
        )
        assert.deepStrictEqual(results.map((result) => result.status === "rejected" && (result.reason as Error).name), ["AbortError", "AbortError"])
        assert.strictEqual(both.creates(), 1)
        assert.deepStrictEqual(both.partsPut(), [1])
        const uploadId = last.entry!.upload_id
        assert.deepStrictEqual(
          both.requests.filter((request) => request.method === "DELETE").map((request) => new URL(request.url).pathname),
          [`/admin/media/multipart/${uploadId}`]
        )
        assert.isUndefined(yield* Effect.promise(() => inner.get(last.key!)))
        yield* Effect.promise(() => Promise.all([kit.dispose(), other.dispose()]))
      }))

    it.effect("clients sharing a store: an upload another completed but did not forget answers its media (no create, no PUT); once that file is deleted, a new upload", () =>
      Effect.gen(function*() {
        const { url } = yield* TestServer
        const store = memoryResumeStore()
        // A client stopped between completing and forgetting: its store never deletes.
        const forgetful: ResumeStore = { ...store, delete: async () => undefined }
        const { bytes, file } = fileOf(11 * MiB, "completed-elsewhere.mp4")
        const key = resumeKey({ file, filename: file.name, type: file.type, baseUrl: url })
        const elsewhere = createClient({ baseUrl: url, adminToken })
        const done = yield* Effect.promise(() => elsewhere.uploadMedia(file, { multipartThreshold: threshold, resumeStore: forgetful }))
        assert.strictEqual((yield* Effect.promise(() => store.get(key)))!.file_key, done.file_key)

        const recorder = recording()
        const kit = createClient({ baseUrl: url, adminToken, fetch: recorder.fetch })
        const progress: Array<number> = []
        const media = yield* Effect.promise(() =>
          kit.uploadMedia(file, { multipartThreshold: threshold, resumeStore: store, onProgress: (event) => progress.push(event.loaded) })
        )
        assert.deepStrictEqual(media, done)
        assert.deepStrictEqual(
          recorder.requests.map((request) => `${request.method} ${new URL(request.url).pathname.replace(/multipart\/[^/]+/, "multipart/:id")}`),
          ["GET /admin/media/multipart/:id", "POST /admin/media/finalize-upload"]
        )
        assert.deepStrictEqual(progress, [file.size])
        assert.isUndefined(yield* Effect.promise(() => store.get(key)))

        // Completed again and not forgotten, then its file deleted: the same file is uploaded anew.
        const redone = yield* Effect.promise(() => elsewhere.uploadMedia(file, { multipartThreshold: threshold, resumeStore: forgetful }))
        yield* Effect.promise(() => kit.media.delete({ query: { file_key: redone.file_key } }))
        const fresh = yield* Effect.promise(() => kit.uploadMedia(file, { multipartThreshold: threshold, resumeStore: store }))
        assert.notStrictEqual(fresh.file_key, redone.file_key)
        assert.strictEqual(recorder.creates(), 1)
        assert.strictEqual(recorder.puts(), 3)
        assert.strictEqual(yield* servedSha256(fresh.url), sha256(bytes))
        assert.isUndefined(yield* Effect.promise(() => store.get(key)))
        yield* Effect.promise(() => Promise.all([elsewhere.dispose(), kit.dispose()]))
      }))

    /** A store holding an upload of `file` with its first part up (a run refused after it). */
    const withPartOne = (url: string, file: File) =>
      Effect.promise(async () => {
        const store = memoryResumeStore()
        const refused = recording((index) => index > 1 ? new Response("refused", { status: 400 }) : undefined)
        const first = createClient({ baseUrl: url, adminToken, fetch: refused.fetch })
        await first.uploadMedia(file, { multipartThreshold: threshold, resumeStore: store, partsInFlight: 1 }).then(
          () => assert.fail("expected a rejection"),
          (error: unknown) => assert.strictEqual((error as CoursekitError).status, 400)
        )
        await first.dispose()
        const entry = await store.get(resumeKey({ file, filename: file.name, type: file.type, baseUrl: url }))
        return { store, entry: entry! }
      })

    it.effect("clients sharing a store resume one upload at once: the one whose PUTs come after the other completed answers the same media", () =>
      Effect.gen(function*() {
        const { url } = yield* TestServer
        const { bytes, file } = fileOf(11 * MiB, "resumed-twice.mp4")
        const { store, entry } = yield* withPartOne(url, file)
        const options = { multipartThreshold: threshold, resumeStore: store }

        let first: Promise<unknown> = Promise.resolve()
        const a = recording()
        // B's PUTs go once A is done: storage then answers 404 (the upload is no more).
        const b = recording(() => settled(first).then(() => undefined))
        const kitA = createClient({ baseUrl: url, adminToken, fetch: a.fetch })
        const kitB = createClient({ baseUrl: url, adminToken, fetch: b.fetch })
        const pending = kitA.uploadMedia(file, options)
        first = pending
        const [mediaA, mediaB] = yield* Effect.promise(() => Promise.all([pending, kitB.uploadMedia(file, options)]))
        assert.deepStrictEqual(mediaB, mediaA)
        assert.strictEqual(mediaA.file_key, entry.file_key)
        assert.strictEqual(a.creates() + b.creates(), 0)
        assert.deepStrictEqual(a.partsPut(), [2, 3])
        assert.strictEqual(a.completes(), 1)
        assert.strictEqual(b.completes(), 0)
        assert.isTrue(b.requests.some((request) => request.method === "POST" && request.url.endsWith("/admin/media/finalize-upload")))
        assert.strictEqual(yield* servedSha256(mediaA.url), sha256(bytes))
        assert.isUndefined(yield* Effect.promise(() => store.get(resumeKey({ file, filename: file.name, type: file.type, baseUrl: url }))))
        yield* Effect.promise(() => Promise.all([kitA.dispose(), kitB.dispose()]))
      }))

    it.effect("clients sharing a store resume one upload at once: the one completing second gets the same media", () =>
      Effect.gen(function*() {
        const { url } = yield* TestServer
        const { bytes, file } = fileOf(11 * MiB, "completed-twice.mp4")
        const { store, entry } = yield* withPartOne(url, file)
        const options = { multipartThreshold: threshold, resumeStore: store }

        let first: Promise<unknown> = Promise.resolve()
        let aPut!: () => void
        const aPutsDone = new Promise<void>((resolve) => aPut = resolve)
        let bothPut!: () => void
        const bPutsDone = new Promise<void>((resolve) => bothPut = resolve)
        // Both PUT parts 2 and 3 (the same bytes), B after A: two PUTs of one part at once
        // are another test's race. A completes once both of B's PUTs have ended (counted as
        // they end: the second to start may end first), B once A has completed.
        let aEnded = 0
        let bEnded = 0
        const a = recording(undefined, () => ++aEnded === 2 && aPut(), (_method, requestUrl) => requestUrl.endsWith("/complete") ? bPutsDone : undefined)
        const b = recording(() => aPutsDone.then(() => undefined), () => ++bEnded === 2 && bothPut(), (_method, requestUrl) =>
          requestUrl.endsWith("/complete") ? settled(first) : undefined)
        const kitA = createClient({ baseUrl: url, adminToken, fetch: a.fetch })
        const kitB = createClient({ baseUrl: url, adminToken, fetch: b.fetch })
        const pending = kitA.uploadMedia(file, options)
        first = pending
        const [mediaA, mediaB] = yield* Effect.promise(() => Promise.all([pending, kitB.uploadMedia(file, options)]))
        assert.deepStrictEqual(mediaB, mediaA)
        assert.strictEqual(mediaA.file_key, entry.file_key)
        assert.strictEqual(a.creates() + b.creates(), 0)
        assert.deepStrictEqual([a.partsPut(), b.partsPut().sort()], [[2, 3], [2, 3]])
        assert.deepStrictEqual([a.completes(), b.completes()], [1, 1])
        assert.strictEqual(yield* servedSha256(mediaA.url), sha256(bytes))
        assert.isUndefined(yield* Effect.promise(() => store.get(resumeKey({ file, filename: file.name, type: file.type, baseUrl: url }))))
        yield* Effect.promise(() => Promise.all([kitA.dispose(), kitB.dispose()]))
      }))

    it.effect("clients sharing a store: a run forgets only its own entry, not one another client put under the key meanwhile", () =>
      Effect.gen(function*() {
        const { url } = yield* TestServer
        const store = memoryResumeStore()
        const other: ResumeEntry = { upload_id: "another-clients-upload", file_key: "media/other.mp4", part_size: 5 * MiB, part_count: 3 }

        // Two clients start the same file at once: both create (neither found an entry), the
        // later entry wins, each completes its own upload, and the store ends empty.
        const { file } = fileOf(11 * MiB, "started-twice.mp4")
        const key = resumeKey({ file, filename: file.name, type: file.type, baseUrl: url })
        const a = recording()
        const b = recording()
        const kitA = createClient({ baseUrl: url, adminToken, fetch: a.fetch })
        const kitB = createClient({ baseUrl: url, adminToken, fetch: b.fetch })
        const options = { multipartThreshold: threshold, resumeStore: store }
        const [mediaA, mediaB] = yield* Effect.promise(() => Promise.all([kitA.uploadMedia(file, options), kitB.uploadMedia(file, options)]))
        assert.deepStrictEqual([a.creates(), b.creates()], [1, 1])
        assert.notStrictEqual(mediaA.file_key, mediaB.file_key)
        assert.isUndefined(yield* Effect.promise(() => store.get(key)))

        // Another client's entry put under the key during a run stays after it completes...
        const { file: done } = fileOf(11 * MiB, "overtaken.mp4")
        const doneKey = resumeKey({ file: done, filename: done.name, type: done.type, baseUrl: url })
        const overtaking = recording(undefined, (index) => index === 1 && void store.set(doneKey, other))
        const kit = createClient({ baseUrl: url, adminToken, fetch: overtaking.fetch })
        yield* Effect.promise(() => kit.uploadMedia(done, { ...options, partsInFlight: 1 }))
        assert.deepStrictEqual(yield* Effect.promise(() => store.get(doneKey)), other)

        // ...and after it is cancelled.
        const { file: cancelled } = fileOf(11 * MiB, "overtaken-cancelled.mp4")
        const cancelledKey = resumeKey({ file: cancelled, filename: cancelled.name, type: cancelled.type, baseUrl: url })
        const controller = new AbortController()
        const cancelling = recording(undefined, (index) => {
          if (index === 1) {
            void store.set(cancelledKey, other)
            controller.abort()
          }
        })
        const cancellingKit = createClient({ baseUrl: url, adminToken, fetch: cancelling.fetch })
        const error = yield* rejection(cancellingKit.uploadMedia(cancelled, { ...options, partsInFlight: 1, signal: controller.signal }))
        assert.strictEqual((error as Error).name, "AbortError")
        assert.strictEqual(cancelling.requests.filter((request) => request.method === "DELETE").length, 1)
        assert.deepStrictEqual(yield* Effect.promise(() => store.get(cancelledKey)), other)
        yield* Effect.promise(() => Promise.all([kitA.dispose(), kitB.dispose(), kit.dispose(), cancellingKit.dispose()]))
      }))
  })
})

describe("fileResumeStore", () => {
  it.effect("writes its entries to a JSON file and reads them back, from a new store too", () =>
    Effect.promise(async () => {
      const directory = await mkdtemp(join(tmpdir(), "coursekit-resume-"))
      try {
        const path = join(directory, "nested", "uploads.json")
        const store = fileResumeStore(path)
        assert.isUndefined(await store.get("a"))
        const a: ResumeEntry = { upload_id: "id-a", file_key: "media/a.mp4", part_size: 5 * MiB, part_count: 3 }
        const b: ResumeEntry = { upload_id: "id-b", file_key: "media/b.mp4", part_size: 6 * MiB, part_count: 2 }
        await Promise.all([store.set("a", a), store.set("b", b)])
        assert.deepStrictEqual(await store.get("a"), a)
        await store.delete("a")
        assert.deepStrictEqual(JSON.parse(await readFile(path, "utf8")), { b })
        const reopened = fileResumeStore(path)
        assert.isUndefined(await reopened.get("a"))
        assert.deepStrictEqual(await reopened.get("b"), b)
      } finally {
        await rm(directory, { recursive: true, force: true })
      }
    }))
})

describe("resume stores", () => {
  /** A `Storage` over a Map (Node has no usable `localStorage` without a file). */
  const mapStorage = (): Storage => {
    const items = new Map<string, string>()
    return {
      get length() {
        return items.size
      },
      clear: () => items.clear(),
      getItem: (key) => items.get(key) ?? null,
      key: (index) => [...items.keys()][index] ?? null,
      removeItem: (key) => void items.delete(key),
      setItem: (key, value) => void items.set(key, value)
    }
  }

  it.effect("delete(key, uploadId) deletes only that upload's entry; delete(key) any", () =>
    Effect.promise(async () => {
      const directory = await mkdtemp(join(tmpdir(), "coursekit-resume-"))
      try {
        const stores = { memory: memoryResumeStore(), localStorage: localStorageResumeStore(mapStorage()), file: fileResumeStore(join(directory, "uploads.json")) }
        const entry: ResumeEntry = { upload_id: "id-a", file_key: "media/a.mp4", part_size: 5 * MiB, part_count: 3 }
        for (const [name, store] of Object.entries(stores)) {
          await store.set("k", entry)
          await store.delete("k", "id-other")
          assert.deepStrictEqual(await store.get("k"), entry, name)
          await store.delete("k", "id-a")
          assert.isUndefined(await store.get("k"), name)
          await store.set("k", entry)
          await store.delete("k")
          assert.isUndefined(await store.get("k"), name)
          // Nothing under the key: nothing to do.
          await store.delete("k", "id-a")
          assert.isUndefined(await store.get("k"), name)
        }
      } finally {
        await rm(directory, { recursive: true, force: true })
      }
    }))
})
