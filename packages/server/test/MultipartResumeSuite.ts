/**
 * A 200 MiB media file in parts through the standalone server, one suite for every
 * store (`MultipartResume.test.ts`: the local store; `MultipartResume.s3.test.ts`: S3 on
 * s3rver through the AWS SDK): a real uploader process (`@coursekit/client` with a
 * file-backed Blob and a file resume store) killed with SIGKILL halfway and run again,
 * which must resume the same upload with only the parts the store lacks; on the half-done
 * upload a wrong ETag at complete, a part over the part size and an expired part URL;
 * abort; the sweep of an abandoned upload. What is stored is read from the store itself.
 */
import { Uploads, UploadSweep } from "@coursekit/core"
import { assert, describe, layer } from "@effect/vitest"
import { Context, Duration, Effect, Layer } from "effect"
import { openAsBlob, readFileSync } from "node:fs"
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { ServerSettings } from "../src/ServerConfig.ts"
import { writePseudoRandomFile } from "./LargeFile.ts"
import { apiCalls, partsPut, startUploader } from "./MediaUploader.ts"
import { at } from "./MovedClock.ts"
import { TestServer } from "./TestServer.ts"
import { abortMultipart, assertProblem, completeMultipart, createMultipart, multipartStatus, partUrls, putPart, uploadParts } from "./UploadCalls.ts"

const MiB = 1024 * 1024
const fileSize = 200 * MiB
/** The part size the service picks for 200 MiB (the 5 MiB minimum): 40 parts, all full. */
const partSize = 5 * MiB
const partCount = 40
const allParts = Array.from({ length: partCount }, (_, i) => i + 1)

/** The suite's server settings: media files up to 256 MiB (in one PUT up to 8 MiB), 30 minutes of grace. */
export const resumeSettings = {
  uploadLimits: { thumbnailMaxBytes: 10 * MiB, mediaMaxBytes: 256 * MiB, singlePutMaxBytes: 8 * MiB },
  uploadGracePeriod: Duration.minutes(30)
} satisfies Partial<ServerSettings>

/** What a test reads from the store itself, past the API. */
export class StoreProbe extends Context.Service<StoreProbe, {
  /** The SHA-256 of the object under `key`, read as a stream. */
  readonly storedSha256: (key: string) => Effect.Effect<string>
  /** The store's open multipart uploads, by the store's own ids. */
  readonly openUploads: Effect.Effect<ReadonlyArray<string>>
  /**
   * Files in the store's open uploads that are no committed part (what a part PUT cut
   * short may leave), where the store lets a test see them: the local disk.
   */
  readonly strayFiles?: Effect.Effect<ReadonlyArray<string>> | undefined
}>()("test/StoreProbe") {}

/** How the store refuses a part PUT: the status, and a text its answer holds. */
export interface Refusal {
  readonly status: number
  readonly says: string
}

/** How the store refuses the part PUTs it must refuse. */
export interface StoreRefusals {
  /** A part longer than the part size its URL was signed for. */
  readonly overPartSize: Refusal
  /** A part PUT after its URL expired. */
  readonly expired: Refusal
}

/** The 200 MiB source file, written once for the suite in the run's temporary directory and removed after the suite. */
class SourceFile extends Context.Service<SourceFile, {
  readonly directory: string
  readonly path: string
  readonly sha256: string
}>()("test/SourceFile") {
  static readonly layer = Layer.effect(SourceFile, Effect.gen(function*() {
    const directory = yield* Effect.acquireRelease(
      Effect.promise(() => mkdtemp(join(process.env.COURSEKIT_TEST_TMP ?? tmpdir(), "multipart-resume-"))),
      (directory) => Effect.promise(() => rm(directory, { recursive: true, force: true }))
    )
    const path = join(directory, "lecture.mp4")
    const sha256 = yield* Effect.promise(() => writePseudoRandomFile(path, fileSize, 200))
    return SourceFile.of({ directory, path, sha256 })
  }))
}

interface HeldPart {
  readonly part_number: number
  readonly size_bytes: number
  readonly etag: string
}

const statusOf = (uploadId: string) =>
  Effect.map(multipartStatus(uploadId), (reply) => {
    assert.strictEqual(reply.status, 200, reply.text)
    return reply.body.parts as ReadonlyArray<HeldPart>
  })

/**
 * The parts the server holds once the part PUTs a killed uploader left in flight have
 * ended (a body received whole before the kill may still be committed): two reads alike.
 */
const settledParts = (uploadId: string) =>
  Effect.gen(function*() {
    let last = yield* statusOf(uploadId)
    for (let read = 0; read < 20; read++) {
      yield* Effect.sleep("300 millis")
      const now = yield* statusOf(uploadId)
      if (JSON.stringify(now) === JSON.stringify(last)) return now
      last = now
    }
    return assert.fail("the upload's parts did not settle")
  })

const createUpload = Effect.gen(function*() {
  const created = yield* createMultipart({ filename: "lecture.mp4", type: "video/mp4", size_bytes: fileSize })
  assert.strictEqual(created.status, 201, created.text)
  assert.deepStrictEqual([created.body.part_size, created.body.part_count], [partSize, partCount])
  return created.body as { readonly upload_id: string; readonly file_key: string }
})

/** The source file as a Blob read from disk as it is sent. */
const sourceBlob = Effect.gen(function*() {
  const source = yield* SourceFile
  return yield* Effect.promise(() => openAsBlob(source.path))
})

/**
 * The suite on the server in `serverLayer` (built with {@link resumeSettings}), whose
 * store refuses part PUTs as `refusals` says. The tests share the server and run in order:
 * the sweep runs last, when no other upload is open.
 */
export const multipartResumeSuite = <E>(
  name: string,
  serverLayer: Layer.Layer<TestServer | Uploads | UploadSweep | StoreProbe, E>,
  refusals: StoreRefusals
) =>
  describe(`a 200 MiB file in parts (${name})`, () => {
    layer(Layer.merge(serverLayer, SourceFile.layer), { timeout: 180_000, excludeTestServices: true })((it) => {
      it.effect("an uploader killed halfway resumes the same upload with only the missing parts; refusals meanwhile change nothing; the stored bytes are the file's", () =>
        Effect.gen(function*() {
          const { url } = yield* TestServer
          const source = yield* SourceFile
          const probe = yield* StoreProbe
          const uploads = yield* Uploads
          const statePath = join(source.directory, "uploads.json")

          // First run: killed (SIGKILL) once storage has answered half the parts.
          const first = yield* startUploader(url, source.path, statePath)
          yield* first.until((lines) => partsPut(lines).length >= partCount / 2)
          const killed = yield* first.kill
          assert.strictEqual(killed.signal, "SIGKILL", killed.stderr)
          const answered = partsPut(first.lines)
          const calls = apiCalls(first.lines)
          assert.strictEqual(calls[0], "201 POST /admin/media/multipart")
          const uploadId = /^200 POST \/admin\/media\/multipart\/([0-9a-f-]{36})\/parts$/.exec(calls[1] ?? "")?.[1] ?? assert.fail(calls.join("\n"))
          assert.deepStrictEqual(calls, ["201 POST /admin/media/multipart", `200 POST /admin/media/multipart/${uploadId}/parts`])
          // What the dead process left to resume from: the upload in its state file.
          const state = Object.values(JSON.parse(readFileSync(statePath, "utf8")) as Record<string, { upload_id: string; file_key: string }>)
          assert.deepStrictEqual(state.map((entry) => entry.upload_id), [uploadId])
          const fileKey = state[0]!.file_key

          // The server keeps every part storage answered, and no part PUT cut short by the kill.
          const held = yield* settledParts(uploadId)
          const heldNumbers = held.map((part) => part.part_number)
          for (const n of answered) assert.include(heldNumbers, n, `part ${n} was answered before the kill`)
          assert.isAtLeast(held.length, partCount / 2)
          assert.isBelow(held.length, partCount)
          for (const part of held) assert.strictEqual(part.size_bytes, partSize)
          assert.strictEqual((yield* probe.openUploads).length, 1)
          if (probe.strayFiles !== undefined) assert.deepStrictEqual(yield* probe.strayFiles, [])
          const missing = allParts.filter((n) => !heldNumbers.includes(n))
          const etagOf = (n: number) => held.find((part) => part.part_number === n)?.etag

          // A wrong ETag at complete (part 2's named for part 1, the first part sent): 409 naming part 1.
          assert.isDefined(etagOf(1), "part 1 went up first")
          const named = allParts.map((n) => ({ part_number: n, etag: (n === 1 ? etagOf(2) : etagOf(n)) ?? "\"0123456789abcdef0123456789abcdef\"" }))
          const wrong = yield* completeMultipart(uploadId, named)
          assertProblem(wrong, 409)
          assert.strictEqual(wrong.body.part_number, 1, wrong.text)
          assert.include(wrong.body.detail, "Part 1")
          // A part over the part size, to the URL of a missing part (not the last: the file has a byte more after it).
          const blob = yield* sourceBlob
          const target = missing[0]!
          const partBytes = (n: number, length: number) => blob.slice((n - 1) * partSize, (n - 1) * partSize + length)
          const [signed] = (yield* partUrls(uploadId, [target])).body.parts as Array<{ upload_url: string; headers: Record<string, string> }>
          assert.deepStrictEqual(signed!.headers, { "Content-Length": String(partSize) })
          const over = yield* putPart(signed!.upload_url, { "Content-Length": String(partSize + 1) }, partBytes(target, partSize + 1))
          assert.strictEqual(over.status, refusals.overPartSize.status, over.text)
          assert.include(over.text, refusals.overPartSize.says)
          // An expired part URL: signed ten minutes ago (the service's clock moved back), so its 5 minutes are over.
          const stale = yield* at(Duration.minutes(-10), uploads.multipartPartUrls(uploadId, { part_numbers: [target] }))
          assert.isBelow(stale.parts[0]!.expires_at.epochMilliseconds, Date.now())
          const expired = yield* putPart(stale.parts[0]!.upload_url, stale.parts[0]!.headers, partBytes(target, partSize))
          assert.strictEqual(expired.status, refusals.expired.status, expired.text)
          assert.include(expired.text, refusals.expired.says)
          // None of it changed the upload.
          assert.deepStrictEqual(yield* statusOf(uploadId), held)

          // Second run, the same state file: the same upload, only the missing parts, then complete.
          const second = yield* startUploader(url, source.path, statePath)
          const ended = yield* second.exit
          assert.strictEqual(ended.code, 0, `${second.lines.map((line) => JSON.stringify(line)).join("\n")}\n${ended.stderr}`)
          assert.deepStrictEqual(apiCalls(second.lines), [
            `200 GET /admin/media/multipart/${uploadId}`,
            `200 POST /admin/media/multipart/${uploadId}/parts`,
            `200 POST /admin/media/multipart/${uploadId}/complete`
          ])
          assert.deepStrictEqual(partsPut(second.lines).sort((a, b) => a - b), missing)
          assert.strictEqual(second.lines.filter((line) => "put" in line).length, missing.length)
          const media = second.lines.flatMap((line) => "media" in line ? [line.media] : [])
          assert.strictEqual(media.length, 1)
          assert.deepInclude(media[0], { file_key: fileKey, size_bytes: fileSize, content_type: "video/mp4", name: "lecture.mp4" })
          // Completed: the state file forgets it, the store's upload is gone, the object is the file.
          assert.deepStrictEqual(JSON.parse(readFileSync(statePath, "utf8")), {})
          assert.deepStrictEqual(yield* probe.openUploads, [])
          assert.strictEqual(yield* probe.storedSha256(fileKey), source.sha256)
          assertProblem(yield* multipartStatus(uploadId), 409)
        }), 120_000)

      it.effect("abort: 204, the store's upload and its parts are gone; a part URL signed before is refused", () =>
        Effect.gen(function*() {
          const probe = yield* StoreProbe
          const created = yield* createUpload
          yield* uploadParts(created.upload_id, yield* sourceBlob, partSize, [1, 2, 3, 4])
          const [later] = (yield* partUrls(created.upload_id, [5])).body.parts as Array<{ upload_url: string; headers: Record<string, string> }>
          assert.strictEqual((yield* probe.openUploads).length, 1)

          const aborted = yield* abortMultipart(created.upload_id)
          assert.strictEqual(aborted.status, 204, aborted.text)
          assert.deepStrictEqual(yield* probe.openUploads, [])
          assertProblem(yield* multipartStatus(created.upload_id), 404)
          const late = yield* putPart(later!.upload_url, later!.headers, (yield* sourceBlob).slice(4 * partSize, 5 * partSize))
          assert.strictEqual(late.status, 404, late.text)
        }), 60_000)

      it.effect("the sweep leaves an upload resting for hours, and aborts it once abandoned: the store's upload and its parts are gone", () =>
        Effect.gen(function*() {
          const probe = yield* StoreProbe
          const sweep = yield* UploadSweep
          const created = yield* createUpload
          yield* uploadParts(created.upload_id, yield* sourceBlob, partSize, [1, 2, 3, 4])
          const storeUploads = yield* probe.openUploads
          assert.strictEqual(storeUploads.length, 1)

          assert.deepStrictEqual(yield* at(Duration.hours(2), sweep.run), { abandoned: 0, adopted: 0, orphans: 0, incomplete: 0 })
          assert.deepStrictEqual(yield* probe.openUploads, storeUploads)
          // Its 24 hours, the 30 minutes of grace and the sweep's 5 of margin later: abandoned.
          assert.deepStrictEqual(yield* at(Duration.minutes(24 * 60 + 36), sweep.run), { abandoned: 1, adopted: 0, orphans: 0, incomplete: 0 })
          assert.deepStrictEqual(yield* probe.openUploads, [])
          assertProblem(yield* multipartStatus(created.upload_id), 404)
        }), 60_000)
    })
  })
