import { assert, describe, it } from "@effect/vitest"
import { Cause, Duration, Effect, Exit, Layer, Option, Schema, SchemaIssue } from "effect"
import { TestClock } from "effect/testing"
import {
  Courses,
  CourseRepo,
  FileUrl,
  HtmlSanitizer,
  LessonRepo,
  MediaRepo,
  MediaUrls,
  MemoryObjectStore,
  MultipartCompleteRequest,
  type MultipartUpload,
  ObjectStore,
  partCountFor,
  partSizeFor,
  UploadRepo,
  Uploads,
  UploadSweep
} from "../../src/index.ts"

const MiB = 1024 * 1024

const layer = (limits = { thumbnailMaxBytes: 1000, mediaMaxBytes: 64 * MiB, singlePutMaxBytes: 8 * MiB }) =>
  Layer.mergeAll(Courses.layerNoDeps.pipe(Layer.provideMerge(Uploads.layerNoDeps({ limits }))), UploadSweep.layerNoDeps()).pipe(
    Layer.provideMerge(MediaUrls.layer()),
    Layer.provideMerge(LessonRepo.layerMemory),
    Layer.provideMerge(Layer.mergeAll(CourseRepo.layerMemory, UploadRepo.layerMemory, MediaRepo.layerMemory, ObjectStore.layerMemory)),
    Layer.provideMerge(Layer.mergeAll(FileUrl.layer("https://cdn.example.com"), HtmlSanitizer.layer))
  )
const withUploads = Effect.provide(layer())

/** A file of `size` bytes whose every byte depends on its offset. */
const fileOf = (size: number) => Uint8Array.from({ length: size }, (_, i) => (i * 31 + (i >> 16)) % 251)

/** PUTs the parts `numbers` of `file` for `upload`; answers their ETags by number. */
const putParts = (upload: MultipartUpload, file: Uint8Array, numbers: ReadonlyArray<number>) =>
  Effect.gen(function*() {
    const uploads = yield* Uploads
    const memory = yield* MemoryObjectStore
    const { parts } = yield* uploads.multipartPartUrls(upload.upload_id, { part_numbers: numbers })
    const etags = new Map<number, string>()
    for (const part of parts) {
      const start = (part.part_number - 1) * upload.part_size
      const reply = yield* memory.putPart(part.upload_url, part.headers, file.slice(start, start + upload.part_size))
      if (reply._tag !== "Stored") return assert.fail(`part ${part.part_number}: ${reply._tag}`)
      etags.set(part.part_number, reply.etag)
    }
    return etags
  })

const allParts = (upload: MultipartUpload) => Array.from({ length: upload.part_count }, (_, i) => i + 1)

describe("multipart uploads: the completion request", () => {
  const decode = (parts: ReadonlyArray<{ part_number: number; etag: string }>) =>
    Exit.match(Schema.decodeUnknownExit(MultipartCompleteRequest)({ parts }), {
      onSuccess: () => [],
      onFailure: (cause) => {
        const issue = Cause.squash(cause) as Schema.SchemaError
        return SchemaIssue.makeFormatterStandardSchemaV1()(issue.issue).issues.map((entry) => ({
          path: (entry.path ?? []).map((segment) => typeof segment === "object" ? segment.key : segment),
          message: entry.message
        }))
      }
    })
  const etag = "\"0123456789abcdef0123456789abcdef\""

  it("lists its parts in ascending part_number order, each once: the first part out of place is named", () => {
    const ascending = "parts must be listed in ascending part_number order, each part once"
    assert.deepStrictEqual(decode([1, 2, 4].map((n) => ({ part_number: n, etag }))), [])
    assert.deepStrictEqual(decode([2, 1, 3].map((n) => ({ part_number: n, etag }))), [
      { path: ["parts", 1, "part_number"], message: `${ascending}: part 1 follows part 2` }
    ])
    assert.deepStrictEqual(decode([1, 2, 2, 3].map((n) => ({ part_number: n, etag }))), [
      { path: ["parts", 2, "part_number"], message: `${ascending}: part 2 follows part 2` }
    ])
  })

  it("refuses an ETag the database could not store, as every text input", () => {
    for (const unstorable of ["\"a\u0000b\"", "\"a\ud800b\"", "\udc00"]) {
      assert.deepStrictEqual(decode([{ part_number: 1, etag: unstorable }]), [
        { path: ["parts", 0, "etag"], message: "etag must not contain NUL characters or unpaired surrogates" }
      ], JSON.stringify(unstorable))
    }
    assert.deepStrictEqual(decode([{ part_number: 1, etag: "\"\ud83d\ude00\"" }]), [], "a surrogate pair is text")
  })
})

describe("multipart uploads: the part plan", () => {
  it("whole MiB, at least 5 MiB, at most 10,000 parts", () => {
    assert.strictEqual(partSizeFor(0), 5 * MiB)
    assert.strictEqual(partSizeFor(12 * MiB), 5 * MiB)
    assert.strictEqual(partSizeFor(50 * 1024 * MiB), 6 * MiB)
    assert.strictEqual(partCountFor(50 * 1024 * MiB, 6 * MiB), 8534)
    assert.isAtMost(partCountFor(50 * 1024 * MiB, partSizeFor(50 * 1024 * MiB)), 10_000)
    assert.strictEqual(partCountFor(0, 5 * MiB), 1)
    assert.strictEqual(partCountFor(10 * MiB, 5 * MiB), 2)
    assert.strictEqual(partCountFor(10 * MiB + 1, 5 * MiB), 3)
  })
})

describe("multipart uploads (Uploads, memory store)", () => {
  it.effect("create, parts in any order, resume from the status, complete: the media file, its bytes the source's", () =>
    Effect.gen(function*() {
      const uploads = yield* Uploads
      const file = fileOf(11 * MiB + 7)
      const upload = yield* uploads.startMultipart({ filename: "lecture.mp4", type: "video/mp4", size_bytes: file.length, visibility: "private" })
      assert.match(upload.file_key, /^private\/media\/[0-9a-f-]{36}\.mp4$/)
      assert.deepStrictEqual([upload.part_size, upload.part_count], [5 * MiB, 3])
      assert.strictEqual(upload.expires_at.epochMilliseconds, 24 * 3600_000)
      const first = yield* putParts(upload, file, [3, 1])
      // A client that lost its state asks what storage holds, and uploads the rest only.
      const status = yield* uploads.multipartStatus(upload.upload_id)
      assert.deepStrictEqual(status.parts.map((part) => [part.part_number, part.size_bytes, part.etag]), [
        [1, 5 * MiB, first.get(1)],
        [3, MiB + 7, first.get(3)]
      ])
      const second = yield* putParts(upload, file, [2])
      const parts = [1, 2, 3].map((n) => ({ part_number: n, etag: (first.get(n) ?? second.get(n))! }))
      const media = yield* uploads.completeMultipart(upload.upload_id, { parts })
      assert.deepStrictEqual([media.file_key, media.size_bytes, media.content_type, media.visibility, media.name], [
        upload.file_key,
        file.length,
        "video/mp4",
        "private",
        "lecture.mp4"
      ])
      const stored = Option.getOrThrow(yield* (yield* MemoryObjectStore).read(upload.file_key))
      assert.isTrue(Buffer.from(stored).equals(Buffer.from(file)))
      // Again: the same record; the upload is no longer open for parts or abort.
      assert.deepStrictEqual(yield* uploads.completeMultipart(upload.upload_id, { parts }), media)
      assert.strictEqual((yield* Effect.flip(uploads.multipartStatus(upload.upload_id)))._tag, "MultipartCompleted")
      assert.strictEqual((yield* Effect.flip(uploads.abortMultipart(upload.upload_id)))._tag, "MultipartCompleted")
    }).pipe(withUploads))

  it.effect("concurrent completes all answer the one record", () =>
    Effect.gen(function*() {
      const uploads = yield* Uploads
      const file = fileOf(6 * MiB)
      const upload = yield* uploads.startMultipart({ filename: "a.mp4", type: "video/mp4", size_bytes: file.length })
      const etags = yield* putParts(upload, file, allParts(upload))
      const parts = allParts(upload).map((n) => ({ part_number: n, etag: etags.get(n)! }))
      const answers = yield* Effect.forEach(Array.from({ length: 10 }), () => uploads.completeMultipart(upload.upload_id, { parts }), {
        concurrency: "unbounded"
      })
      assert.strictEqual(new Set(answers.map((answer) => answer.id)).size, 1)
      assert.strictEqual((yield* uploads.listMedia({ cursor: undefined, limit: 10 })).items.length, 1)
    }).pipe(withUploads))

  it.effect("a missing, wrong, unordered or extra part is refused, naming it, and nothing changes", () =>
    Effect.gen(function*() {
      const uploads = yield* Uploads
      const file = fileOf(11 * MiB)
      const upload = yield* uploads.startMultipart({ filename: "a.mp4", type: "video/mp4", size_bytes: file.length })
      const etags = yield* putParts(upload, file, [1, 2])
      const named = (numbers: ReadonlyArray<number>, etag = (n: number) => etags.get(n) ?? "\"never-uploaded\"") =>
        ({ parts: numbers.map((n) => ({ part_number: n, etag: etag(n) })) })
      const cases: ReadonlyArray<readonly [ReturnType<typeof named>, string, string, number]> = [
        [named([1, 2, 3]), "PartRejected", "missing_or_wrong_etag", 3],
        [named([1, 2]), "PartRejected", "missing_or_wrong_etag", 3],
        [named([1, 3]), "PartRejected", "missing_or_wrong_etag", 2],
        // Out of order is said so, naming the first part out of place, before any part is missed.
        [named([2, 1, 3]), "PartRejected", "not_in_order", 1],
        [named([1, 3, 2]), "PartRejected", "not_in_order", 2],
        [named([1, 1, 2, 3]), "PartRejected", "not_in_order", 1],
        [named([1, 2, 3], (n) => n === 2 ? "\"0123456789abcdef0123456789abcdef\"" : etags.get(n) ?? "x"), "PartRejected", "missing_or_wrong_etag", 2]
      ]
      for (const [request, tag, reason, partNumber] of cases) {
        const error = yield* Effect.flip(uploads.completeMultipart(upload.upload_id, request))
        assert.strictEqual(error._tag, tag, JSON.stringify(request))
        if (error._tag === "PartRejected") assert.deepStrictEqual([error.reason, error.part_number], [reason, partNumber], JSON.stringify(request))
      }
      const extra = yield* Effect.flip(uploads.completeMultipart(upload.upload_id, named([1, 2, 3, 4])))
      assert.strictEqual(extra._tag, "PartOutOfRange")
      assert.strictEqual((yield* Effect.flip(uploads.multipartPartUrls(upload.upload_id, { part_numbers: [4] })))._tag, "PartOutOfRange")
      assert.deepStrictEqual(yield* (yield* ObjectStore).head(upload.file_key), Option.none())
      // Still open: the last part, and it completes.
      const last = yield* putParts(upload, file, [3])
      const media = yield* uploads.completeMultipart(upload.upload_id, named([1, 2, 3], (n) => (etags.get(n) ?? last.get(n))!))
      assert.strictEqual(media.size_bytes, file.length)
    }).pipe(withUploads))

  it.effect("completing again after the media limit was lowered answers the record and keeps the file", () =>
    Effect.gen(function*() {
      const uploads = yield* Uploads
      const file = fileOf(11 * MiB)
      const upload = yield* uploads.startMultipart({ filename: "lecture.mp4", type: "video/mp4", size_bytes: file.length })
      const etags = yield* putParts(upload, file, allParts(upload))
      const parts = allParts(upload).map((n) => ({ part_number: n, etag: etags.get(n)! }))
      const media = yield* uploads.completeMultipart(upload.upload_id, { parts })
      // An operator lowers UPLOAD_MEDIA_MAX_BYTES below the recorded file; a client retries its complete.
      const again = yield* Effect.flatMap(Uploads, (lowered) => lowered.completeMultipart(upload.upload_id, { parts })).pipe(
        Effect.provide(Uploads.layerNoDeps({ limits: { thumbnailMaxBytes: 1000, mediaMaxBytes: 8 * MiB, singlePutMaxBytes: 8 * MiB } }))
      )
      assert.deepStrictEqual(again, media)
      const stored = Option.getOrThrow(yield* (yield* MemoryObjectStore).read(upload.file_key))
      assert.isTrue(Buffer.from(stored).equals(Buffer.from(file)))
    }).pipe(withUploads))

  it.effect("abort frees the parts; the upload is gone for every step", () =>
    Effect.gen(function*() {
      const uploads = yield* Uploads
      const file = fileOf(6 * MiB)
      const upload = yield* uploads.startMultipart({ filename: "a.mp4", type: "video/mp4", size_bytes: file.length })
      yield* putParts(upload, file, [1])
      yield* uploads.abortMultipart(upload.upload_id)
      for (
        const step of [
          uploads.multipartStatus(upload.upload_id),
          uploads.multipartPartUrls(upload.upload_id, { part_numbers: [1] }),
          uploads.completeMultipart(upload.upload_id, { parts: [{ part_number: 1, etag: "x" }] }),
          uploads.abortMultipart(upload.upload_id)
        ] as ReadonlyArray<Effect.Effect<unknown, { readonly _tag: string }>>
      ) assert.strictEqual((yield* Effect.flip(step))._tag, "MultipartNotFound")
      assert.deepStrictEqual(yield* (yield* UploadRepo).find(upload.file_key), Option.none())
    }).pipe(withUploads))

  it.effect("limits: a type not allowed 415, larger than the media limit 413; one PUT over its limit says to use multipart", () =>
    Effect.gen(function*() {
      const uploads = yield* Uploads
      const svg = yield* Effect.flip(uploads.startMultipart({ filename: "a.svg", type: "image/svg+xml", size_bytes: 10 }))
      assert.strictEqual(svg._tag, "UnsupportedFileType")
      const huge = yield* Effect.flip(uploads.startMultipart({ filename: "a.mp4", type: "video/mp4", size_bytes: 64 * MiB + 1 }))
      assert.deepStrictEqual([huge._tag, "max_bytes" in huge ? huge.max_bytes : 0], ["FileTooLarge", 64 * MiB])
      const single = yield* Effect.flip(uploads.mediaUploadUrl({ filename: "a.mp4", type: "video/mp4", size_bytes: 8 * MiB + 1 }))
      assert.strictEqual(single._tag, "FileTooLarge")
      assert.include(single.message, "Upload it in parts (multipart)")
      const tooLargeForAny = yield* Effect.flip(uploads.mediaUploadUrl({ filename: "a.mp4", type: "video/mp4", size_bytes: 64 * MiB + 1 }))
      assert.notInclude(tooLargeForAny.message, "multipart")
    }).pipe(withUploads))

  it.effect("status answers 410 once the upload expired, as part URLs do: the client starts anew", () =>
    Effect.gen(function*() {
      const uploads = yield* Uploads
      const file = fileOf(6 * MiB)
      const upload = yield* uploads.startMultipart({ filename: "a.mp4", type: "video/mp4", size_bytes: file.length })
      yield* putParts(upload, file, [1])
      yield* TestClock.adjust(Duration.millis(24 * 3600_000 - 1))
      assert.deepStrictEqual((yield* uploads.multipartStatus(upload.upload_id)).parts.map((part) => part.part_number), [1])
      yield* TestClock.adjust(Duration.millis(1))
      const expired = yield* Effect.flip(uploads.multipartStatus(upload.upload_id))
      assert.deepStrictEqual([expired._tag, "file_key" in expired && expired.file_key], ["UploadExpired", upload.file_key])
    }).pipe(withUploads))

  it.effect("complete works until expiry and grace end (parts PUT just before expiry); then 410, and storage assembles nothing", () =>
    Effect.gen(function*() {
      const uploads = yield* Uploads
      const file = fileOf(6 * MiB)
      const late = yield* uploads.startMultipart({ filename: "a.mp4", type: "video/mp4", size_bytes: file.length })
      const inGrace = yield* uploads.startMultipart({ filename: "b.mp4", type: "video/mp4", size_bytes: file.length })
      const named = (etags: ReadonlyMap<number, string>) => ({ parts: [1, 2].map((n) => ({ part_number: n, etag: etags.get(n)! })) })
      const lateParts = named(yield* putParts(late, file, [1, 2]))
      const inGraceParts = named(yield* putParts(inGrace, file, [1, 2]))
      // Expiry (24 h) and within the grace period (1 h): completes.
      yield* TestClock.adjust(Duration.minutes(24 * 60 + 59))
      assert.strictEqual((yield* uploads.completeMultipart(inGrace.upload_id, inGraceParts)).size_bytes, file.length)
      // At the grace period's end: refused before storage assembles the object.
      yield* TestClock.adjust(Duration.minutes(1))
      const refused = yield* Effect.flip(uploads.completeMultipart(late.upload_id, lateParts))
      assert.deepStrictEqual([refused._tag, "file_key" in refused && refused.file_key], ["UploadExpired", late.file_key])
      const store = yield* ObjectStore
      assert.deepStrictEqual(yield* store.head(late.file_key), Option.none())
      const storeUploadId = Option.getOrThrow(yield* (yield* UploadRepo).findByUploadId(late.upload_id)).store_upload_id!
      assert.strictEqual(Option.getOrThrow(yield* store.listParts(late.file_key, storeUploadId)).length, 2)
      assert.deepStrictEqual((yield* uploads.listMedia({ cursor: undefined, limit: 10 })).items.map((item) => item.file_key), [inGrace.file_key])
    }).pipe(withUploads))

  it.effect("part URLs are refused once the upload expired; the sweep aborts it past expiry and grace", () =>
    Effect.gen(function*() {
      const uploads = yield* Uploads
      const file = fileOf(6 * MiB)
      const upload = yield* uploads.startMultipart({ filename: "a.mp4", type: "video/mp4", size_bytes: file.length })
      yield* putParts(upload, file, [1])
      const storeUploadId = Option.getOrThrow(yield* (yield* UploadRepo).findByUploadId(upload.upload_id)).store_upload_id!
      assert.strictEqual(Option.getOrThrow(yield* (yield* ObjectStore).listParts(upload.file_key, storeUploadId)).length, 1)
      yield* TestClock.adjust(Duration.hours(24))
      assert.strictEqual((yield* Effect.flip(uploads.multipartPartUrls(upload.upload_id, { part_numbers: [2] })))._tag, "UploadExpired")
      // Expiry (24 h) + grace (1 h) + the sweep's margin (5 minutes).
      yield* TestClock.adjust(Duration.minutes(66))
      const report = yield* (yield* UploadSweep).run
      assert.strictEqual(report.abandoned, 1)
      assert.deepStrictEqual(yield* (yield* ObjectStore).listParts(upload.file_key, storeUploadId), Option.none())
      assert.strictEqual((yield* Effect.flip(uploads.multipartStatus(upload.upload_id)))._tag, "MultipartNotFound")
    }).pipe(withUploads))
})
