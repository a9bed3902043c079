/**
 * `uploadMedia` in parts against the real standalone server (files on local disk behind
 * signed part PUTs): parallel PUTs with progress, resume with only the missing parts,
 * retries, part URLs asked again when old, cancel; and the Node file-backed resume store.
 */
import { assert, describe, it, layer } from "@effect/vitest"
import { createHash, randomBytes } from "node:crypto"
import { mkdtemp, readFile, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect } from "effect"
import { adminToken, layerTestServer, TestServer } from "../../server/test/TestServer.ts"
import type { PartUrl } from "@coursekit/core"
import { CoursekitError, createClient, type CoursekitPromiseClient, memoryResumeStore, type ResumeEntry, type ResumeStore } from "../src/index.ts"
import { type MultipartCalls, uploadMultipart } from "../src/MultipartUpload.ts"
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

/** A `fetch` that records the requests and lets a test fail or watch part PUTs. */
const recording = (onPut?: (index: number) => Response | Error | undefined, afterPut?: (index: number) => void) => {
  const requests: Array<{ method: string; url: string }> = []
  let puts = 0
  let active = 0
  let maxActive = 0
  const wrapped: typeof fetch = async (input, init) => {
    const method = init?.method ?? (input instanceof Request ? input.method : "GET")
    const url = input instanceof Request ? input.url : String(input)
    requests.push({ method, url })
    if (method !== "PUT") return fetch(input, init)
    const index = ++puts
    const planned = onPut?.(index)
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
  return { fetch: wrapped, requests, puts: () => puts, maxActive: () => maxActive }
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
    abort: (uploadId) => kit.multipart.abort({ params: { upload_id: uploadId } }).then(() => undefined)
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
