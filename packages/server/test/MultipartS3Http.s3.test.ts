import { assert, describe, layer } from "@effect/vitest"
import { Effect } from "effect"
import { TestS3rver } from "../../storage-s3/test/TestS3rver.ts"
import { layerTestServerOnS3 } from "./TestServerOnS3.ts"
import {
  abortMultipart,
  assertProblem,
  completeMultipart,
  createMultipart,
  fetchBytes,
  multipartStatus,
  partOf,
  partUrls,
  putPart,
  sha256,
  sourceFile,
  uploadParts
} from "./UploadCalls.ts"

// Multipart uploads on the standalone server with STORAGE=s3 against a real S3 server
// (s3rver, SigV4 verified): the AWS SDK creates the upload and signs the UploadPart URLs,
// the parts go straight to the S3 server, ListParts answers the status, and
// CompleteMultipartUpload assembles the object.

const MiB = 1024 * 1024
/** 12 MiB and a bit: three parts at the 5 MiB minimum, the last one short. */
const file = sourceFile(12 * MiB + 12_345, 7)
const partSize = 5 * MiB

const start = (json: Record<string, unknown> = {}) =>
  Effect.gen(function*() {
    const created = yield* createMultipart({ filename: "lecture.mp4", type: "video/mp4", size_bytes: file.byteLength, ...json })
    assert.strictEqual(created.status, 201, created.text)
    assert.deepStrictEqual([created.body.part_size, created.body.part_count], [partSize, 3])
    return created.body as { upload_id: string; file_key: string }
  })

describe("multipart uploads over HTTP (PGlite, S3 on s3rver)", () => {
  layer(layerTestServerOnS3(), { timeout: 120_000, excludeTestServices: true })((it) => {
    it.effect("parts signed for the bucket go up in parallel; a client resumes from GET status; complete assembles the file in S3", () =>
      Effect.gen(function*() {
        const s3 = yield* TestS3rver
        const created = yield* start()
        const signed = yield* partUrls(created.upload_id, [1, 2, 3])
        assert.strictEqual(signed.status, 200, signed.text)
        for (const part of signed.body.parts as Array<{ part_number: number; upload_url: string; headers: Record<string, string> }>) {
          const url = new URL(part.upload_url)
          assert.strictEqual(`${url.origin}${url.pathname}`, `${s3.endpoint}/${s3.bucket}/${created.file_key}`)
          assert.strictEqual(url.searchParams.get("partNumber"), String(part.part_number))
          assert.isString(url.searchParams.get("uploadId"))
          // The API's upload_id is the service's own, not S3's.
          assert.notStrictEqual(url.searchParams.get("uploadId"), created.upload_id)
          assert.isString(url.searchParams.get("X-Amz-Signature"))
          assert.deepStrictEqual(part.headers, { "Content-Length": String(partOf(file, partSize, part.part_number).byteLength) })
        }
        // Two of three parts in parallel; then the client forgets all but the upload_id.
        yield* uploadParts(created.upload_id, file, partSize, [1, 3])
        const status = yield* multipartStatus(created.upload_id)
        assert.strictEqual(status.status, 200, status.text)
        const held = status.body.parts as Array<{ part_number: number; size_bytes: number; etag: string }>
        assert.deepStrictEqual(held.map((part) => [part.part_number, part.size_bytes]), [[1, partSize], [3, file.byteLength - 2 * partSize]])
        const missing = [1, 2, 3].filter((n) => !held.some((part) => part.part_number === n))
        assert.deepStrictEqual(missing, [2])
        const resumed = yield* uploadParts(created.upload_id, file, partSize, missing)
        const parts = [held[0]!, { part_number: 2, etag: resumed.get(2)! }, held[1]!].map(({ part_number, etag }) => ({ part_number, etag }))

        // A wrong ETag: 409 naming the part, and the upload is as it was.
        const wrong = yield* completeMultipart(created.upload_id, parts.map((part) => part.part_number === 2 ? { ...part, etag: "\"0123456789abcdef0123456789abcdef\"" } : part))
        assertProblem(wrong, 409)
        assert.strictEqual(wrong.body.part_number, 2, wrong.text)
        assert.strictEqual((yield* multipartStatus(created.upload_id)).body.parts.length, 3)

        const completed = yield* completeMultipart(created.upload_id, parts)
        assert.strictEqual(completed.status, 200, completed.text)
        assert.deepInclude(completed.body, { file_key: created.file_key, visibility: "public", size_bytes: file.byteLength, content_type: "video/mp4" })
        assert.strictEqual(completed.body.url, `${s3.endpoint}/${s3.bucket}/${created.file_key}`)
        const served = yield* fetchBytes(completed.body.url)
        assert.strictEqual(served.status, 200)
        assert.strictEqual(sha256(served.body), sha256(file))
        const again = yield* completeMultipart(created.upload_id, parts)
        assert.deepStrictEqual([again.status, again.body], [200, completed.body])
      }))

    it.effect("a private file: the signed GET reads back the source's bytes", () =>
      Effect.gen(function*() {
        const created = yield* start({ visibility: "private" })
        const etags = yield* uploadParts(created.upload_id, file, partSize, [1, 2, 3])
        const completed = yield* completeMultipart(created.upload_id, [1, 2, 3].map((n) => ({ part_number: n, etag: etags.get(n)! })))
        assert.strictEqual(completed.status, 200, completed.text)
        assert.strictEqual(completed.body.visibility, "private")
        assert.include(completed.body.url, "X-Amz-Signature=")
        const served = yield* fetchBytes(completed.body.url)
        assert.strictEqual(served.status, 200)
        assert.strictEqual(sha256(served.body), sha256(file))
      }))

    it.effect("abort: 204; the upload is gone in S3 (a part PUT is refused) and in the API (404)", () =>
      Effect.gen(function*() {
        const created = yield* start()
        yield* uploadParts(created.upload_id, file, partSize, [1])
        const [part] = (yield* partUrls(created.upload_id, [2])).body.parts
        const aborted = yield* abortMultipart(created.upload_id)
        assert.strictEqual(aborted.status, 204, aborted.text)
        assertProblem(yield* multipartStatus(created.upload_id), 404)
        assertProblem(yield* partUrls(created.upload_id, [2]), 404)
        assertProblem(yield* abortMultipart(created.upload_id), 404)
        const late = yield* putPart(part.upload_url, part.headers, partOf(file, partSize, 2))
        assert.strictEqual(late.status, 404, late.text)
        assert.include(late.text, "NoSuchUpload")
      }))
  })
})
