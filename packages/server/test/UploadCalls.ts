/**
 * The calls of both upload flows against the server under test, and the client side of
 * an upload (the PUT of the bytes, the GET of a file), for the upload HTTP tests.
 */
import { assert } from "@effect/vitest"
import { Effect } from "effect"
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
