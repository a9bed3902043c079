import { Uploads, UploadSweep } from "@coursekit/core"
import { assert, describe, layer } from "@effect/vitest"
import { Duration, Effect } from "effect"
import { existsSync, readdirSync } from "node:fs"
import { join } from "node:path"
import { at } from "./MovedClock.ts"
import { call, layerTestServerFrom, testSettings, TestServer } from "./TestServer.ts"
import {
  abortMultipart,
  assertProblem,
  completeMultipart,
  createMultipart,
  fetchBytes,
  mediaUrl,
  multipartStatus,
  partOf,
  partUrls,
  putPart,
  sha256,
  sourceFile,
  uploadParts
} from "./UploadCalls.ts"

// Multipart uploads end to end on the standalone server with its defaults (PGlite, the
// local-disk store): real part URLs, real parallel PUTs of parts, real completes.

const MiB = 1024 * 1024
/** 12 MiB and a bit: three parts at the 5 MiB minimum part size, the last one short. */
const file = sourceFile(12 * MiB + 12_345)
const partSize = 5 * MiB
const partSizes = [5 * MiB, 5 * MiB, 2 * MiB + 12_345]

const start = (json: Record<string, unknown> = {}) =>
  Effect.gen(function*() {
    const created = yield* createMultipart({ filename: "lecture.mp4", type: "video/mp4", size_bytes: file.byteLength, ...json })
    assert.strictEqual(created.status, 201, created.text)
    return created.body as { upload_id: string; file_key: string; part_size: number; part_count: number; expires_at: string }
  })

const allParts = (etags: ReadonlyMap<number, string>) => [1, 2, 3].map((n) => ({ part_number: n, etag: etags.get(n)! }))

const mediaKeys = Effect.map(
  call("/admin/media?limit=50", { admin: true }),
  (reply) => (reply.body as Array<{ file_key: string }>).map((item) => item.file_key)
)

const settings = testSettings({
  // Low limits keep the files small: 8 MiB in one PUT, 64 MiB in parts.
  uploadLimits: { thumbnailMaxBytes: 10 * MiB, mediaMaxBytes: 64 * MiB, singlePutMaxBytes: 8 * MiB }
})

describe("multipart uploads over HTTP (PGlite, local disk)", () => {
  // Real clocks: URLs are signed with the server's time and checked against it.
  layer(layerTestServerFrom(settings), { timeout: 120_000, excludeTestServices: true })((it) => {
    it.effect("create, parts PUT in parallel with the answered headers, one part PUT again, status lists them, complete gives the media file", () =>
      Effect.gen(function*() {
        const { url } = yield* TestServer
        const created = yield* start()
        assert.match(created.upload_id, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/)
        assert.match(created.file_key, /^media\/[0-9a-f-]{36}\.mp4$/)
        assert.deepStrictEqual([created.part_size, created.part_count], [partSize, 3])
        // Open for 24 hours.
        assert.approximately(Date.parse(created.expires_at) - Date.now(), 24 * 3600_000, 60_000)

        const signed = yield* partUrls(created.upload_id, [1, 2, 3])
        assert.strictEqual(signed.status, 200, signed.text)
        const parts = signed.body.parts as Array<{ part_number: number; upload_url: string; headers: Record<string, string>; expires_at: string }>
        assert.deepStrictEqual(parts.map((part) => part.part_number), [1, 2, 3])
        assert.deepStrictEqual(parts.map((part) => part.headers), partSizes.map((size) => ({ "Content-Length": String(size) })))
        for (const part of parts) assert.approximately(Date.parse(part.expires_at) - Date.now(), 300_000, 10_000)
        const puts = yield* Effect.forEach(parts, (part) => putPart(part.upload_url, part.headers, partOf(file, partSize, part.part_number)), {
          concurrency: "unbounded"
        })
        assert.deepStrictEqual(puts.map((put) => put.status), [200, 200, 200], puts.map((put) => put.text).join())
        const etags = puts.map((put) => put.etag!)
        assert.strictEqual(new Set(etags).size, 3)

        // Part 2 PUT again with other bytes replaces it (another ETag); the right bytes bring the first ETag back.
        const other = yield* putPart(parts[1]!.upload_url, parts[1]!.headers, new Uint8Array(partSize).fill(7))
        assert.strictEqual(other.status, 200, other.text)
        assert.notStrictEqual(other.etag, etags[1])
        const listed = (yield* multipartStatus(created.upload_id)).body
        assert.deepStrictEqual(listed.parts.map((part: { etag: string }) => part.etag), [etags[0], other.etag, etags[2]])
        const again = yield* putPart(parts[1]!.upload_url, parts[1]!.headers, partOf(file, partSize, 2))
        assert.strictEqual(again.etag, etags[1])

        const status = yield* multipartStatus(created.upload_id)
        assert.strictEqual(status.status, 200, status.text)
        assert.deepStrictEqual(status.body, {
          upload_id: created.upload_id,
          file_key: created.file_key,
          part_size: partSize,
          part_count: 3,
          parts: [1, 2, 3].map((n) => ({ part_number: n, size_bytes: partSizes[n - 1], etag: etags[n - 1] }))
        })

        const completed = yield* completeMultipart(created.upload_id, etags.map((etag, i) => ({ part_number: i + 1, etag })))
        assert.strictEqual(completed.status, 200, completed.text)
        assert.deepInclude(completed.body, {
          url: `${url}/files/${created.file_key}`,
          url_expires_at: null,
          file_key: created.file_key,
          visibility: "public",
          name: "lecture.mp4",
          size_bytes: file.byteLength,
          content_type: "video/mp4"
        })
        const served = yield* fetchBytes(completed.body.url)
        assert.strictEqual(served.status, 200)
        assert.strictEqual(sha256(served.body), sha256(file))

        // Completing again answers the same record; the upload is no longer open for parts or status.
        const twice = yield* completeMultipart(created.upload_id, etags.map((etag, i) => ({ part_number: i + 1, etag })))
        assert.deepStrictEqual([twice.status, twice.body], [200, completed.body])
        assertProblem(yield* multipartStatus(created.upload_id), 409)
        assertProblem(yield* partUrls(created.upload_id, [1]), 409)
        assertProblem(yield* abortMultipart(created.upload_id), 409)
        assert.strictEqual((yield* mediaKeys).filter((key) => key === created.file_key).length, 1)
      }))

    it.effect("a client that lost its state resumes from GET status with the missing part; 10 concurrent completes give one private file", () =>
      Effect.gen(function*() {
        const { url } = yield* TestServer
        const created = yield* start({ visibility: "private" })
        assert.match(created.file_key, /^private\/media\/[0-9a-f-]{36}\.mp4$/)
        // Two of three parts go up; then the client forgets everything but the upload_id.
        yield* uploadParts(created.upload_id, file, partSize, [1, 3])
        const status = yield* multipartStatus(created.upload_id)
        assert.strictEqual(status.status, 200, status.text)
        const held = status.body.parts as Array<{ part_number: number; size_bytes: number; etag: string }>
        assert.deepStrictEqual(held.map((part) => [part.part_number, part.size_bytes]), [[1, partSizes[0]], [3, partSizes[2]]])
        const missing = Array.from({ length: status.body.part_count }, (_, i) => i + 1).filter((n) => !held.some((part) => part.part_number === n))
        assert.deepStrictEqual(missing, [2])
        const resumed = yield* uploadParts(created.upload_id, file, status.body.part_size, missing)
        const parts = [...held.map((part) => ({ part_number: part.part_number, etag: part.etag })), { part_number: 2, etag: resumed.get(2)! }]
          .sort((a, b) => a.part_number - b.part_number)

        const results = yield* Effect.forEach(Array.from({ length: 10 }), () => completeMultipart(created.upload_id, parts), { concurrency: "unbounded" })
        assert.deepStrictEqual(results.map((reply) => reply.status), Array(10).fill(200), results.map((reply) => reply.text).join("\n"))
        assert.strictEqual(new Set(results.map((reply) => reply.body.id)).size, 1)
        const completed = results[0]!.body
        assert.deepInclude(completed, { file_key: created.file_key, visibility: "private", size_bytes: file.byteLength })
        const signed = new URL(completed.url)
        assert.strictEqual(`${signed.origin}${signed.pathname}`, `${url}/files/${created.file_key}`)
        assert.isString(completed.url_expires_at)
        const served = yield* fetchBytes(completed.url)
        assert.strictEqual(served.status, 200)
        assert.strictEqual(sha256(served.body), sha256(file))
        // Private: not served without the signature.
        assert.strictEqual((yield* fetchBytes(`${url}/files/${created.file_key}`)).status, 403)
        assert.strictEqual((yield* mediaKeys).filter((key) => key === created.file_key).length, 1)
      }))

    it.effect("complete refusals name the part and change nothing: a wrong ETag, a missing part, one too many; parts out of order or twice, or an unstorable ETag, are 400s", () =>
      Effect.gen(function*() {
        const created = yield* start()
        const etags = yield* uploadParts(created.upload_id, file, partSize, [1, 2, 3])
        const refused = (parts: ReadonlyArray<{ part_number: number; etag: string }>, status: number, partNumber?: number) =>
          Effect.gen(function*() {
            const reply = yield* completeMultipart(created.upload_id, parts)
            assertProblem(reply, status)
            if (partNumber !== undefined) assert.strictEqual(reply.body.part_number, partNumber, reply.text)
            return reply
          })
        const wrong = yield* refused([{ part_number: 1, etag: etags.get(1)! }, { part_number: 2, etag: "\"0123456789abcdef0123456789abcdef\"" }, {
          part_number: 3,
          etag: etags.get(3)!
        }], 409, 2)
        assert.include(wrong.body.detail, "Part 2")
        // Nothing changed: the parts are all still there, no file was recorded.
        const status = yield* multipartStatus(created.upload_id)
        assert.deepStrictEqual(status.body.parts.map((part: { etag: string }) => part.etag), [etags.get(1), etags.get(2), etags.get(3)])
        assert.notInclude(yield* mediaKeys, created.file_key)
        // A missing part, in the middle or at the end.
        yield* refused([{ part_number: 1, etag: etags.get(1)! }, { part_number: 3, etag: etags.get(3)! }], 409, 2)
        yield* refused([{ part_number: 1, etag: etags.get(1)! }, { part_number: 2, etag: etags.get(2)! }], 409, 3)
        // Out of order, or a part twice: the list is wrong, not storage (S3's InvalidPartOrder, 400).
        const ascending = "parts must be listed in ascending part_number order, each part once"
        const unordered = yield* refused([2, 1, 3].map((n) => ({ part_number: n, etag: etags.get(n)! })), 400)
        assert.deepStrictEqual(unordered.body.errors, [{ path: "body.parts.1.part_number", message: `${ascending}: part 1 follows part 2` }])
        assert.strictEqual(unordered.body.detail, `Invalid request body: body.parts.1.part_number: ${ascending}: part 1 follows part 2`)
        const twice = yield* refused([1, 2, 2, 3].map((n) => ({ part_number: n, etag: etags.get(n)! })), 400)
        assert.deepStrictEqual(twice.body.errors, [{ path: "body.parts.2.part_number", message: `${ascending}: part 2 follows part 2` }])
        // An ETag the database could not store is refused like every other text input.
        for (const etag of ["\"a\u0000b\"", "\"a\ud800b\""]) {
          const unstorable = yield* refused([{ part_number: 1, etag }, { part_number: 2, etag: etags.get(2)! }, { part_number: 3, etag: etags.get(3)! }], 400)
          assert.deepStrictEqual(unstorable.body.errors, [{ path: "body.parts.0.etag", message: "etag must not contain NUL characters or unpaired surrogates" }])
        }
        // A part past the last: the problem names this request's field.
        const extra = yield* refused([...allParts(etags), { part_number: 4, etag: etags.get(3)! }], 422)
        assert.deepStrictEqual(extra.body.errors.map((error: { path: string }) => error.path), ["body.parts"])
        // Bodies the schema refuses.
        assertProblem(yield* completeMultipart(created.upload_id, []), 400)
        assertProblem(yield* completeMultipart(created.upload_id, [{ part_number: 0, etag: etags.get(1)! }]), 400)
        assertProblem(yield* completeMultipart(created.upload_id, [{ part_number: 1, etag: "" }]), 400)
        assert.notInclude(yield* mediaKeys, created.file_key)
        const completed = yield* completeMultipart(created.upload_id, allParts(etags))
        assert.strictEqual(completed.status, 200, completed.text)
        assert.strictEqual(sha256((yield* fetchBytes(completed.body.url)).body), sha256(file))
      }))

    it.effect("part URLs: past part_count 422, 0 or more than 100 at once 400; a part of another length or an expired part URL is refused by storage", () =>
      Effect.gen(function*() {
        const uploads = yield* Uploads
        const created = yield* start()
        const outside = yield* partUrls(created.upload_id, [1, 4])
        assertProblem(outside, 422)
        assert.strictEqual(outside.body.detail, "Part 4 does not exist: the upload has 3 parts.")
        assert.deepStrictEqual(outside.body.errors, [{ path: "body.part_numbers", message: outside.body.detail }])
        assertProblem(yield* partUrls(created.upload_id, [0]), 400)
        assertProblem(yield* partUrls(created.upload_id, []), 400)
        assertProblem(yield* partUrls(created.upload_id, Array.from({ length: 101 }, () => 1)), 400)
        assertProblem(yield* call(`/admin/media/multipart/${created.upload_id}/parts`, { method: "POST", admin: true, json: { part_numbers: [1], x: 1 } }), 400)

        const [part] = (yield* partUrls(created.upload_id, [3])).body.parts
        const longer = yield* putPart(part.upload_url, { "Content-Length": String(partSizes[2]! + 1) }, partOf(file, partSize, 2).subarray(0, partSizes[2]! + 1))
        assert.strictEqual(longer.status, 413, longer.text)
        const shorter = yield* putPart(part.upload_url, { "Content-Length": String(partSizes[2]! - 1) }, partOf(file, partSize, 3).subarray(1))
        assert.strictEqual(shorter.status, 400, shorter.text)
        // Signed ten minutes ago (the service's clock moved back), so its 5 minutes are over by storage's clock.
        const stale = yield* at(Duration.minutes(-10), uploads.multipartPartUrls(created.upload_id, { part_numbers: [1] }))
        assert.isBelow(stale.parts[0]!.expires_at.epochMilliseconds, Date.now())
        const expired = yield* putPart(stale.parts[0]!.upload_url, stale.parts[0]!.headers, partOf(file, partSize, 1))
        assert.strictEqual(expired.status, 403, expired.text)
        assert.strictEqual(JSON.parse(expired.text).detail, "The part URL has expired: request a new one.")
        assert.deepStrictEqual((yield* multipartStatus(created.upload_id)).body.parts, [])
        // Past the upload's own 24 hours no part URL is signed (the API's 410).
        const late = yield* Effect.flip(at(Duration.hours(25), uploads.multipartPartUrls(created.upload_id, { part_numbers: [1] })))
        assert.deepStrictEqual([late._tag, "file_key" in late && late.file_key], ["UploadExpired", created.file_key])
      }))

    it.effect("abort: 204, the parts are freed; then status, parts, complete and abort are 404, and a part URL signed before is refused", () =>
      Effect.gen(function*() {
        const created = yield* start()
        const etags = yield* uploadParts(created.upload_id, file, partSize, [1, 2])
        const [part] = (yield* partUrls(created.upload_id, [3])).body.parts
        const aborted = yield* abortMultipart(created.upload_id)
        assert.strictEqual(aborted.status, 204, aborted.text)
        assertProblem(yield* multipartStatus(created.upload_id), 404)
        assertProblem(yield* partUrls(created.upload_id, [1]), 404)
        assertProblem(yield* completeMultipart(created.upload_id, allParts(new Map([...etags, [3, etags.get(1)!]]))), 404)
        assertProblem(yield* abortMultipart(created.upload_id), 404)
        const late = yield* putPart(part.upload_url, part.headers, partOf(file, partSize, 3))
        assert.strictEqual(late.status, 404, late.text)
        assert.notInclude(yield* mediaKeys, created.file_key)
        const storage = settings.storage._tag === "local" ? settings.storage.dir : assert.fail("local storage expected")
        assert.isFalse(existsSync(join(storage, created.file_key)))
      }))

    it.effect("create refusals: 415 type, 413 over UPLOAD_MEDIA_MAX_BYTES, 400 bad bodies; unknown upload_id 404, malformed 400; no admin token 401", () =>
      Effect.gen(function*() {
        assertProblem(yield* createMultipart({ filename: "x.svg", type: "image/svg+xml", size_bytes: 10 }), 415)
        const tooLarge = yield* createMultipart({ filename: "x.mp4", type: "video/mp4", size_bytes: 64 * MiB + 1 })
        assertProblem(tooLarge, 413)
        assert.notInclude(tooLarge.body.detail, "/admin/media/multipart")
        assert.strictEqual((yield* createMultipart({ filename: "x.mp4", type: "video/mp4", size_bytes: 64 * MiB })).status, 201)
        assertProblem(yield* createMultipart({ filename: "x\u0000.mp4", type: "video/mp4", size_bytes: 10 }), 400)
        assertProblem(yield* createMultipart({ filename: "x.mp4", type: "video/mp4" }), 400)
        assertProblem(yield* createMultipart({ filename: "x.mp4", type: "video/mp4", size_bytes: -1 }), 400)
        assertProblem(yield* createMultipart({ filename: "x.mp4", type: "video/mp4", size_bytes: 10, visibility: "secret" }), 400)
        assertProblem(yield* createMultipart({ filename: "x.mp4", type: "video/mp4", size_bytes: 10, part_size: 10 }), 400)
        // An empty file is one (empty) part.
        const empty = yield* createMultipart({ filename: "x.mp4", type: "video/mp4", size_bytes: 0 })
        assert.deepStrictEqual([empty.status, empty.body.part_size, empty.body.part_count], [201, partSize, 1])

        const etag = { part_number: 1, etag: "\"0123456789abcdef0123456789abcdef\"" }
        for (const id of ["00000000-0000-4000-8000-000000000000", "not-an-id", "00000000-0000-4000-8000-00000000000G"]) {
          const status = id === "00000000-0000-4000-8000-000000000000" ? 404 : 400
          assertProblem(yield* multipartStatus(id), status)
          assertProblem(yield* partUrls(id, [1]), status)
          assertProblem(yield* completeMultipart(id, [etag]), status)
          assertProblem(yield* abortMultipart(id), status)
        }

        const created = yield* start()
        const base = `/admin/media/multipart`
        for (
          const [path, init] of [
            [base, { method: "POST", json: { filename: "x.mp4", type: "video/mp4", size_bytes: 10 } }],
            [`${base}/${created.upload_id}/parts`, { method: "POST", json: { part_numbers: [1] } }],
            [`${base}/${created.upload_id}`, { method: "GET" }],
            [`${base}/${created.upload_id}/complete`, { method: "POST", json: { parts: [etag] } }],
            [`${base}/${created.upload_id}`, { method: "DELETE" }]
          ] as const
        ) {
          assertProblem(yield* call(path, init), 401)
          assertProblem(yield* call(path, { ...init, headers: { authorization: "Bearer not-the-token" } }), 401)
        }
        // Still open: nothing above touched it.
        assert.strictEqual((yield* multipartStatus(created.upload_id)).status, 200)
      }))

    it.effect("one PUT takes at most UPLOAD_SINGLE_PUT_MAX_BYTES: above it the 413 names POST /admin/media/multipart; above the media limit it does not", () =>
      Effect.gen(function*() {
        assert.strictEqual((yield* mediaUrl({ filename: "x.mp4", type: "video/mp4", size_bytes: 8 * MiB })).status, 200)
        const overSingle = yield* mediaUrl({ filename: "x.mp4", type: "video/mp4", size_bytes: 8 * MiB + 1 })
        assertProblem(overSingle, 413)
        assert.include(overSingle.body.detail, "POST /admin/media/multipart")
        const overMedia = yield* mediaUrl({ filename: "x.mp4", type: "video/mp4", size_bytes: 64 * MiB + 1 })
        assertProblem(overMedia, 413)
        assert.notInclude(overMedia.body.detail, "/admin/media/multipart")
        // Without a declared size, storage caps the one PUT at the single-PUT limit.
        const undeclared = yield* mediaUrl({ filename: "x.mp4", type: "video/mp4" })
        const put = yield* putPart(undeclared.body.upload_url, undeclared.body.headers, new Uint8Array(8 * MiB + 1))
        assert.strictEqual(put.status, 413, put.text)
      }))
  })
})

describe("the upload sweep aborts abandoned multipart uploads (PGlite, local disk)", () => {
  const sweepSettings = testSettings({ uploadGracePeriod: Duration.minutes(30) })
  const storage = sweepSettings.storage._tag === "local" ? sweepSettings.storage.dir : assert.fail("local storage expected")
  const openUploads = () => existsSync(join(storage, ".multipart")) ? readdirSync(join(storage, ".multipart")) : []

  layer(layerTestServerFrom(sweepSettings), { timeout: 60_000, excludeTestServices: true })((it) => {
    it.effect("an upload resting for hours stays; past its 24 hours, the grace period and the margin it is aborted: its parts and its intent are gone", () =>
      Effect.gen(function*() {
        const sweep = yield* UploadSweep
        const created = yield* start()
        const etags = yield* uploadParts(created.upload_id, file, partSize, [1, 2])
        assert.strictEqual(openUploads().length, 1)
        // A client resting between parts for hours (well past the grace period) keeps its
        // upload: it is open for 24 hours, and the sweep takes no part of it meanwhile.
        for (const rest of [Duration.hours(2), Duration.hours(23), Duration.hours(24.25)]) {
          assert.deepStrictEqual(yield* at(rest, sweep.run), { abandoned: 0, adopted: 0, orphans: 0, incomplete: 0 })
          assert.strictEqual((yield* multipartStatus(created.upload_id)).body.parts.length, 2)
        }
        // 24 hours, 30 minutes of grace and 5 of margin later: abandoned.
        const late = yield* at(Duration.minutes(24 * 60 + 36), sweep.run)
        assert.strictEqual(late.abandoned, 1)
        assert.deepStrictEqual(openUploads(), [])
        assertProblem(yield* multipartStatus(created.upload_id), 404)
        assertProblem(yield* completeMultipart(created.upload_id, allParts(new Map([...etags, [3, etags.get(1)!]]))), 404)
        assert.isFalse(existsSync(join(storage, created.file_key)))
      }))
  })
})
