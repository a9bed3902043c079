/**
 * The calls of both upload flows against the server under test, and the client side of
 * an upload (the PUT of the bytes or of a part, the GET of a file), for the upload HTTP tests.
 */
import { assert } from "@effect/vitest"
import { Effect } from "effect"
import { createHash } from "node:crypto"
import { call, type Reply } from "./TestServer.ts"

/** `reply` is a problem with `status`. */
export const assertProblem = (reply: Reply, status: number) => {
  assert.strictEqual(reply.status, status, reply.text)
  assert.strictEqual(reply.headers.get("content-type"), "application/problem+json")
  assert.strictEqual(reply.body.status, status)
  assert.isString(reply.body.detail)
}

/** The client's PUT of `body` to a presigned URL. */
export const putBytes = (url: string, headers: Record<string, string>, body: Uint8Array) =>
  Effect.promise(async () => {
    const response = await fetch(url, { method: "PUT", headers, body: body as BodyInit })
    return { status: response.status, text: await response.text() }
  })

/** A GET of a stored file. */
export const fetchBytes = (url: string) =>
  Effect.promise(async () => {
    const response = await fetch(url)
    return { status: response.status, headers: response.headers, body: new Uint8Array(await response.arrayBuffer()) }
  })

export const createCourse = (title: string) =>
  Effect.map(call("/courses", { method: "POST", admin: true, json: { title, content_html: "<p>x</p>" } }), (reply) => reply.body.id as number)

export const thumbnailUrl = (courseId: number, json: unknown) => call(`/courses/${courseId}/upload-url`, { method: "POST", admin: true, json })

export const finalizeThumbnail = (courseId: number, fileKey: string) =>
  call(`/courses/${courseId}/finalize-upload`, { method: "POST", admin: true, json: { file_key: fileKey } })

export const mediaUrl = (json: unknown) => call("/admin/media/upload-url", { method: "POST", admin: true, json })

export const finalizeMedia = (fileKey: string) => call("/admin/media/finalize-upload", { method: "POST", admin: true, json: { file_key: fileKey } })

// --- multipart ------------------------------------------------------------------------

export const createMultipart = (json: unknown) => call("/admin/media/multipart", { method: "POST", admin: true, json })

export const partUrls = (uploadId: string, partNumbers: ReadonlyArray<number>) =>
  call(`/admin/media/multipart/${uploadId}/parts`, { method: "POST", admin: true, json: { part_numbers: partNumbers } })

export const multipartStatus = (uploadId: string) => call(`/admin/media/multipart/${uploadId}`, { admin: true })

export const completeMultipart = (uploadId: string, parts: ReadonlyArray<{ part_number: number; etag: string }>) =>
  call(`/admin/media/multipart/${uploadId}/complete`, { method: "POST", admin: true, json: { parts } })

export const abortMultipart = (uploadId: string) => call(`/admin/media/multipart/${uploadId}`, { method: "DELETE", admin: true })

/** The client's PUT of one part to its signed URL: the status and the ETag storage answered. */
export const putPart = (url: string, headers: Record<string, string>, body: Uint8Array | Blob) =>
  Effect.promise(async () => {
    const response = await fetch(url, { method: "PUT", headers, body: body as BodyInit })
    return { status: response.status, etag: response.headers.get("etag"), text: await response.text() }
  })

/** Part `partNumber` (1-based) of `file` cut in parts of `partSize`. */
export const partOf = (file: Uint8Array, partSize: number, partNumber: number) =>
  file.subarray((partNumber - 1) * partSize, Math.min(file.byteLength, partNumber * partSize))

/** The same part of a file in memory, or of a Blob (one backed by a file on disk is read as the part is sent). */
const bodyOfPart = (file: Uint8Array | Blob, partSize: number, partNumber: number) =>
  file instanceof Blob ? file.slice((partNumber - 1) * partSize, partNumber * partSize) : partOf(file, partSize, partNumber)

/** `length` bytes no two parts share (a part swapped for another changes the file). */
export const sourceFile = (length: number, seed = 1) => {
  const bytes = new Uint8Array(length)
  let state = seed
  for (let i = 0; i < length; i++) {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0
    bytes[i] = state >>> 24
  }
  return bytes
}

export const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex")

/** Signs URLs for `partNumbers` and PUTs those parts of `file` in parallel, with exactly the headers answered: the ETags by part. */
export const uploadParts = (uploadId: string, file: Uint8Array | Blob, partSize: number, partNumbers: ReadonlyArray<number>) =>
  Effect.gen(function*() {
    const signed = yield* partUrls(uploadId, partNumbers)
    assert.strictEqual(signed.status, 200, signed.text)
    const puts = yield* Effect.forEach(
      signed.body.parts as Array<{ part_number: number; upload_url: string; headers: Record<string, string> }>,
      (part) => Effect.map(putPart(part.upload_url, part.headers, bodyOfPart(file, partSize, part.part_number)), (put) => ({ part_number: part.part_number, ...put })),
      { concurrency: "unbounded" }
    )
    for (const put of puts) {
      assert.strictEqual(put.status, 200, put.text)
      assert.isString(put.etag)
    }
    return new Map(puts.map((put) => [put.part_number, put.etag!]))
  })
