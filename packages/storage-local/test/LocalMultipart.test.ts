/**
 * Multipart uploads on the local store, at the route: what a part PUT is refused for,
 * what lies on disk, and an assembled object served by range. The conformance suite
 * (LocalObjectStore.test.ts) checks the protocol itself.
 */
import { minPartSize, ObjectStore, type PresignedPut } from "@coursekit/core"
import { fetchGet } from "@coursekit/core/testing"
import { assert, describe, it, layer } from "@effect/vitest"
import { Duration, Effect, Exit, Option } from "effect"
import { execFileSync } from "node:child_process"
import { createHash } from "node:crypto"
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, readSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs"
import { request as httpRequest } from "node:http"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import * as LocalDisk from "../src/LocalDisk.ts"
import * as LocalMultipart from "../src/LocalMultipart.ts"
import { commitObject } from "../src/LocalTransfers.ts"
import { eventually, layerServed, raw, startAbandonedUpload, temporaryFiles, TestStorage } from "./TestStorage.ts"

const bytes = (text: string) => new TextEncoder().encode(text)
const freshKey = (name: string) => `m/${Math.random().toString(36).slice(2, 10)}/${name}`
const md5Etag = (body: Uint8Array) => `"${createHash("md5").update(body).digest("hex")}"`

/** A PUT's answer: its status, the headers tests read, and its body. */
interface PutAnswer {
  readonly status: number
  readonly etag: string | null
  readonly exposed: string | null
  readonly contentType: string | null
  readonly text: string
}

/**
 * Opens a PUT to `url` on a connection of its own declaring `length` bytes: some tests
 * have the server answer before it reads a body (413, 409), which closes the connection,
 * and a pooled client reusing it would fail. Its answer (status 0 when none came) and
 * the request to write the body to or destroy.
 */
const openPut = (url: string, length: number, headers: Readonly<Record<string, string>> = {}) => {
  const target = new URL(url)
  const request = httpRequest({
    host: target.hostname,
    port: target.port,
    method: "PUT",
    path: target.pathname + target.search,
    headers: { "content-length": String(length), ...headers },
    agent: false
  })
  const answer = new Promise<PutAnswer>((resolve) => {
    request.on("response", (response) => {
      const one = (name: string) => {
        const value = response.headers[name]
        return value === undefined ? null : Array.isArray(value) ? value.join(", ") : value
      }
      let text = ""
      response.setEncoding("utf8").on("data", (chunk: string) => (text += chunk)).on("end", () =>
        resolve({ status: response.statusCode ?? 0, etag: one("etag"), exposed: one("access-control-expose-headers"), contentType: one("content-type"), text }))
    })
    // The server may answer and close before the whole body is sent: the answer counts, if one came.
    request.on("error", () => setTimeout(() => resolve({ status: 0, etag: null, exposed: null, contentType: null, text: "" }), 100))
  })
  return { request, answer }
}

/** PUTs `body` to `url`; the status, ETag, exposed headers and problem body. */
const putTo = (url: string, body: Uint8Array, headers: Readonly<Record<string, string>> = {}) =>
  Effect.promise(async () => {
    const { request, answer } = openPut(url, body.byteLength, headers)
    request.end(body)
    const { text, ...reply } = await answer
    return { ...reply, body: text === "" ? undefined : JSON.parse(text) }
  })

/**
 * Starts a PUT to `url` declaring `length` bytes and sends `sent` of them: its answer,
 * if the server gives one before the body ends, and a way to drop the connection.
 */
const startSlowPut = (url: string, length: number, sent: number) =>
  Effect.sync(() => {
    const { request, answer } = openPut(url, length)
    request.write(patterned(99, sent))
    return { answer: Effect.promise(async () => ({ status: (await answer).status, body: (await answer).text })), drop: () => request.destroy() }
  })

const signPart = (key: string, uploadId: string, partNumber: number, contentLength: number) =>
  Effect.flatMap(ObjectStore, (store) => store.presignPart({ key, uploadId, partNumber, contentLength, expiresIn: Duration.minutes(5) }))

const withQuery = (presigned: PresignedPut | string, change: (query: URLSearchParams) => void) => {
  const url = new URL(typeof presigned === "string" ? presigned : presigned.url)
  change(url.searchParams)
  return url.toString()
}

/**
 * Runs `effect` with this process's soft limit of open files set to what is open now and
 * `more` (Linux: `/proc/self/fd`, util-linux `prlimit`); the limit is restored after.
 */
const withOpenFileLimit = <A, E, R>(more: number, effect: Effect.Effect<A, E, R>) => {
  const pid = ["--pid", String(process.pid)]
  // Without pipes: setting the limit back must work even if it was reached.
  const setLimit = (soft: string, hard: string) => execFileSync("prlimit", [...pid, `--nofile=${soft}:${hard}`], { stdio: "ignore" })
  return Effect.acquireUseRelease(
    Effect.sync(() => {
      const output = execFileSync("prlimit", [...pid, "--nofile", "--raw", "--noheadings", "--output", "SOFT,HARD"], { encoding: "utf8" })
      const [soft, hard] = output.trim().split(/\s+/) as [string, string]
      setLimit(String(readdirSync("/proc/self/fd").length + more), hard)
      return { soft, hard }
    }),
    () => effect,
    ({ soft, hard }) => Effect.sync(() => void setLimit(soft, hard))
  )
}

const uploadDirectories = (root: string) => existsSync(join(root, ".multipart")) ? readdirSync(join(root, ".multipart")) : []

describe("LocalStorageRoutes: multipart parts", () => {
  layer(layerServed(), { timeout: 60_000, excludeTestServices: true })((it) => {
    it.effect("a part PUT answers 200 with the MD5 ETag, exposed to browsers; its URL has its own query", () =>
      Effect.gen(function*() {
        const store = yield* ObjectStore
        const { baseUrl } = yield* TestStorage
        const key = freshKey("a b.mp4")
        const uploadId = yield* store.createMultipart({ key, contentType: "video/mp4" })
        assert.match(uploadId, /^[A-Za-z0-9_-]{22}$/)
        const presigned = yield* signPart(key, uploadId, 7, 5)
        const url = new URL(presigned.url)
        assert.strictEqual(`${url.origin}${url.pathname}`, `${baseUrl}/storage/${key.replace(" ", "%20")}`)
        assert.deepStrictEqual([...url.searchParams.keys()], ["uploadId", "partNumber", "expires", "length", "signature"])
        assert.deepStrictEqual(presigned.headers, { "Content-Length": "5" })
        const reply = yield* putTo(presigned.url, bytes("hello"), presigned.headers)
        assert.deepStrictEqual([reply.status, reply.etag, reply.exposed, reply.body], [200, md5Etag(bytes("hello")), "ETag", undefined])
        assert.deepStrictEqual(yield* store.listParts(key, uploadId), Option.some([{ partNumber: 7, size: 5, etag: md5Etag(bytes("hello")) }]))
      }))

    it.effect("a part PUT with a tampered signature, part number, upload id, length or expiry is 403; a PUT URL is no part URL nor the reverse; nothing is stored", () =>
      Effect.gen(function*() {
        const store = yield* ObjectStore
        const { root } = yield* TestStorage
        const key = freshKey("tampered.mp4")
        const uploadId = yield* store.createMultipart({ key, contentType: "video/mp4" })
        const other = yield* store.createMultipart({ key, contentType: "video/mp4" })
        const presigned = yield* signPart(key, uploadId, 1, 5)
        const otherKey = yield* signPart(freshKey("other.mp4"), uploadId, 1, 5)
        const whole = yield* store.presignPut({ key, contentType: "video/mp4", contentLength: 5, expiresIn: Duration.minutes(5) })
        const forged: ReadonlyArray<readonly [string, string, Uint8Array]> = [
          ["signature", withQuery(presigned, (q) => q.set("signature", q.get("signature")!.replace(/^./, (c) => c === "0" ? "1" : "0"))), bytes("12345")],
          ["part number", withQuery(presigned, (q) => q.set("partNumber", "2")), bytes("12345")],
          ["upload id", withQuery(presigned, (q) => q.set("uploadId", other)), bytes("12345")],
          ["length", withQuery(presigned, (q) => q.set("length", "6")), bytes("123456")],
          ["expiry", withQuery(presigned, (q) => q.set("expires", String(Number(q.get("expires")) + 60))), bytes("12345")],
          ["key", otherKey.url.replace(/\/storage\/[^?]*/, `/storage/${key}`), bytes("12345")],
          ["a whole PUT's signature as a part's", withQuery(whole, (q) => {
            q.set("uploadId", uploadId)
            q.set("partNumber", "1")
          }), bytes("12345")],
          ["a part's signature as a whole PUT's", withQuery(presigned, (q) => {
            q.delete("uploadId")
            q.delete("partNumber")
            q.set("type", "video/mp4")
          }), bytes("12345")]
        ]
        for (const [changed, url, body] of forged) {
          const reply = yield* putTo(url, body, { "Content-Type": "video/mp4" })
          assert.strictEqual(reply.status, 403, `${changed}: ${JSON.stringify(reply.body)}`)
          assert.strictEqual(reply.contentType, "application/problem+json")
          assert.isNull(reply.etag)
        }
        assert.deepStrictEqual(yield* store.listParts(key, uploadId), Option.some([]))
        assert.deepStrictEqual(yield* store.listParts(key, other), Option.some([]))
        assert.deepStrictEqual(yield* store.head(key), Option.none())
        assert.deepStrictEqual(temporaryFiles(root), [])
      }))

    it.effect("a part of another length than signed is 413 over, 400 under, 411 chunked; an expired part URL is 403", () =>
      Effect.gen(function*() {
        const store = yield* ObjectStore
        const key = freshKey("sized.mp4")
        const uploadId = yield* store.createMultipart({ key, contentType: "video/mp4" })
        const presigned = yield* signPart(key, uploadId, 1, 5)
        assert.strictEqual((yield* putTo(presigned.url, bytes("123456"))).status, 413)
        assert.strictEqual((yield* putTo(presigned.url, bytes("1234"))).status, 400)
        const path = new URL(presigned.url)
        const chunked = yield* raw({ method: "PUT", path: path.pathname + path.search, chunks: [bytes("12"), bytes("345")] })
        assert.strictEqual(chunked.status, 411)
        const late = yield* store.presignPart({ key, uploadId, partNumber: 2, contentLength: 4, expiresIn: Duration.seconds(1) })
        yield* Effect.sleep(Duration.millis(2_100))
        assert.strictEqual((yield* putTo(late.url, bytes("late"))).status, 403)
        assert.deepStrictEqual(yield* store.listParts(key, uploadId), Option.some([]))
      }), { timeout: 20_000 })

    it.effect("a part PUT to an aborted or completed upload is a 404 problem and stores nothing", () =>
      Effect.gen(function*() {
        const store = yield* ObjectStore
        const { root } = yield* TestStorage
        const key = freshKey("gone.mp4")
        const aborted = yield* store.createMultipart({ key, contentType: "video/mp4" })
        const presigned = yield* signPart(key, aborted, 1, 5)
        yield* store.abortMultipart(key, aborted)
        const reply = yield* putTo(presigned.url, bytes("12345"))
        assert.deepStrictEqual([reply.status, reply.contentType, reply.etag], [404, "application/problem+json", null])
        assert.notInclude(uploadDirectories(root), aborted)

        const completed = yield* store.createMultipart({ key, contentType: "video/mp4" })
        const first = yield* signPart(key, completed, 1, 5)
        const etag = (yield* putTo(first.url, bytes("12345"))).etag!
        yield* store.completeMultipart(key, completed, [{ partNumber: 1, etag }])
        assert.strictEqual((yield* putTo(first.url, bytes("54321"))).status, 404)
        assert.strictEqual(Option.getOrThrow(yield* store.head(key)).size, 5)
        assert.notInclude(uploadDirectories(root), completed)
        assert.deepStrictEqual(temporaryFiles(root), [])
      }))

    it.effect("NUL, huge, negative, repeated or path-like upload ids and part numbers are 4xx at the route, never 500, and name no upload in the store", () =>
      Effect.gen(function*() {
        const store = yield* ObjectStore
        const key = freshKey("odd.mp4")
        const uploadId = yield* store.createMultipart({ key, contentType: "video/mp4" })
        const presigned = yield* signPart(key, uploadId, 1, 5)
        const path = new URL(presigned.url)
        const odd: ReadonlyArray<readonly [string, string]> = [
          ["uploadId", "%00"],
          ["uploadId", "..%2F..%2F.meta"],
          ["uploadId", "a".repeat(20_000)],
          ["partNumber", "%00"],
          ["partNumber", "99999999999999999999999"],
          ["partNumber", "-1"],
          ["partNumber", "0"],
          ["partNumber", "10001"],
          ["partNumber", "1e3"]
        ]
        for (const [name, value] of odd) {
          const search = path.search.replace(new RegExp(`${name}=[^&]*`), `${name}=${value}`)
          const reply = yield* raw({ method: "PUT", path: path.pathname + search, headers: { "content-length": "5" }, chunks: [bytes("12345")] })
          assert.isAtLeast(reply.status, 400, `${name}=${value.slice(0, 20)}`)
          assert.isBelow(reply.status, 500, `${name}=${value.slice(0, 20)}`)
        }
        const repeated = yield* raw({ method: "PUT", path: `${path.pathname}${path.search}&uploadId=${uploadId}`, headers: { "content-length": "5" }, chunks: [bytes("12345")] })
        assert.strictEqual(repeated.status, 403)
        for (const id of ["\u0000", "../../.meta", "a".repeat(20_000), "", uploadId.slice(1)]) {
          assert.deepStrictEqual(yield* store.listParts(key, id), Option.none())
          const refused = yield* Effect.flip(store.completeMultipart(key, id, [{ partNumber: 1, etag: "\"x\"" }]))
          assert.deepStrictEqual([refused._tag, refused._tag === "MultipartRefused" ? refused.reason : undefined], ["MultipartRefused", "NoSuchUpload"])
          yield* store.abortMultipart(key, id)
          const signed = yield* Effect.flip(store.presignPart({ key, uploadId: id, partNumber: 1, contentLength: 5, expiresIn: Duration.minutes(5) }))
          assert.strictEqual(signed.operation, "presignPart")
        }
        // Another key's upload id names no upload of this key.
        assert.deepStrictEqual(yield* store.listParts(freshKey("else.mp4"), uploadId), Option.none())
        assert.deepStrictEqual(yield* store.listParts(key, uploadId), Option.some([]))
      }))

    it.effect("a client that goes away mid-part loses no part already stored and leaves no temporary file", () =>
      Effect.gen(function*() {
        const store = yield* ObjectStore
        const { root } = yield* TestStorage
        const key = freshKey("resumed.mp4")
        const uploadId = yield* store.createMultipart({ key, contentType: "video/mp4" })
        const first = yield* signPart(key, uploadId, 1, 5)
        const etag = (yield* putTo(first.url, bytes("12345"))).etag!
        const second = yield* signPart(key, uploadId, 2, 1024 * 1024)
        const kill = yield* startAbandonedUpload(second.url, "application/octet-stream", 1024 * 1024, 64 * 1024)
        assert.isTrue(yield* eventually(() => temporaryFiles(root).length === 1), "the part streams to a temporary file")
        kill()
        assert.isTrue(yield* eventually(() => temporaryFiles(root).length === 0), "the temporary file is removed")
        assert.deepStrictEqual(yield* store.listParts(key, uploadId), Option.some([{ partNumber: 1, size: 5, etag }]))
      }))

    it.effect("an assembled object lies where a whole upload would, its upload directory gone, and is served by a signed GET with Range", () =>
      Effect.gen(function*() {
        const store = yield* ObjectStore
        const { root } = yield* TestStorage
        const key = `private/${freshKey("ranged.mp4")}`
        const uploadId = yield* store.createMultipart({ key, contentType: "video/mp4" })
        const first = new Uint8Array(minPartSize).fill(0x61)
        const last = bytes("0123456789")
        const etag1 = (yield* putTo((yield* signPart(key, uploadId, 1, first.byteLength)).url, first)).etag!
        const etag2 = (yield* putTo((yield* signPart(key, uploadId, 2, last.byteLength)).url, last)).etag!
        assert.lengthOf(readdirSync(join(root, ".multipart", uploadId)).filter((name) => name.endsWith(".part")), 2)
        yield* store.completeMultipart(key, uploadId, [{ partNumber: 1, etag: etag1 }, { partNumber: 2, etag: etag2 }])
        assert.isFalse(existsSync(join(root, ".multipart", uploadId)))
        assert.isTrue(existsSync(join(root, key)))
        assert.deepStrictEqual(temporaryFiles(root), [])
        const signed = yield* store.presignGet({ key, expiresIn: Duration.minutes(5) })
        const reply = yield* fetchGet(signed.url, { Range: `bytes=${minPartSize - 2}-${minPartSize + 3}` })
        assert.strictEqual(reply.status, 206)
        assert.strictEqual(new TextDecoder().decode(reply.body), "aa0123")
        assert.strictEqual(reply.headers["content-range"], `bytes ${minPartSize - 2}-${minPartSize + 3}/${minPartSize + 10}`)
        assert.strictEqual(reply.headers["content-type"], "video/mp4")
      }))

    it.effect("concurrent completions of one upload: one completes, the others are NoSuchUpload, and the object is whole", () =>
      Effect.gen(function*() {
        const store = yield* ObjectStore
        const { root } = yield* TestStorage
        const key = freshKey("raced.mp4")
        const uploadId = yield* store.createMultipart({ key, contentType: "video/mp4" })
        const first = new Uint8Array(minPartSize).fill(0x62)
        const etag1 = (yield* putTo((yield* signPart(key, uploadId, 1, first.byteLength)).url, first)).etag!
        const etag2 = (yield* putTo((yield* signPart(key, uploadId, 2, 3)).url, bytes("end"))).etag!
        const parts = [{ partNumber: 1, etag: etag1 }, { partNumber: 2, etag: etag2 }]
        const outcomes = yield* Effect.all(
          Array.from({ length: 3 }, () =>
            Effect.match(store.completeMultipart(key, uploadId, parts), {
              onFailure: (error) => error._tag === "MultipartRefused" ? error.reason : error._tag,
              onSuccess: () => "completed"
            })),
          { concurrency: "unbounded" }
        )
        assert.deepStrictEqual([...outcomes].sort(), ["NoSuchUpload", "NoSuchUpload", "completed"])
        assert.strictEqual(Option.getOrThrow(yield* store.head(key)).size, minPartSize + 3)
        assert.deepStrictEqual(temporaryFiles(root), [])
      }))

    it.effect("completing an upload of many parts holds one part file open at a time: it completes under a low open-file limit", () =>
      Effect.gen(function*() {
        const store = yield* ObjectStore
        const key = freshKey("many-parts.mp4")
        const uploadId = yield* store.createMultipart({ key, contentType: "video/mp4" })
        const bodies = [...Array.from({ length: 13 }, (_, i) => patterned(i, minPartSize)), bytes("the end")]
        const parts = yield* Effect.forEach(bodies, (body, index) =>
          Effect.map(
            Effect.flatMap(signPart(key, uploadId, index + 1, body.byteLength), (signed) => putTo(signed.url, body)),
            (reply) => ({ partNumber: index + 1, etag: reply.etag! })
          ), { concurrency: 4 })
        // Ten files more than are open now: fewer than the parts.
        yield* withOpenFileLimit(10, store.completeMultipart(key, uploadId, parts))
        const read = yield* fetchGet((yield* store.presignGet({ key, expiresIn: Duration.minutes(5) })).url)
        assert.strictEqual(read.status, 200)
        assert.strictEqual(md5Etag(read.body), md5Etag(concatenated(bodies)))
      }))

    it.effect("completing into a key that holds a file is refused as a whole upload would be, and the upload stays", () =>
      Effect.gen(function*() {
        const store = yield* ObjectStore
        const key = freshKey("taken.mp4")
        const whole = yield* store.presignPut({ key, contentType: "video/mp4", expiresIn: Duration.minutes(5) })
        assert.strictEqual((yield* putTo(whole.url, bytes("first"), whole.headers)).status, 200)
        const uploadId = yield* store.createMultipart({ key, contentType: "video/mp4" })
        const etag = (yield* putTo((yield* signPart(key, uploadId, 1, 6)).url, bytes("second"))).etag!
        const refused = yield* Effect.flip(store.completeMultipart(key, uploadId, [{ partNumber: 1, etag }]))
        assert.deepStrictEqual([refused._tag, refused._tag === "StorageError" ? refused.operation : undefined], ["StorageError", "completeMultipart"])
        assert.strictEqual(Option.getOrThrow(yield* store.head(key)).size, 5)
        assert.deepStrictEqual(Option.map(yield* store.listParts(key, uploadId), (parts) => parts.length), Option.some(1))
      }))
  })
})

/** The bytes `0, 1, …` shifted by `seed`, `length` of them. */
const patterned = (seed: number, length: number) => Uint8Array.from({ length }, (_, i) => (i * 7 + seed) % 251)

/** `length` bytes of the file at `position`. */
const bytesAt = (file: string, position: number, length: number) => {
  const fd = openSync(file, "r")
  try {
    const buffer = Buffer.alloc(length)
    const read = readSync(fd, buffer, 0, length, position)
    return buffer.subarray(0, read)
  } finally {
    closeSync(fd)
  }
}

const concatenated = (chunks: ReadonlyArray<Uint8Array>) => {
  const all = new Uint8Array(chunks.reduce((sum, chunk) => sum + chunk.byteLength, 0))
  let offset = 0
  for (const chunk of chunks) {
    all.set(chunk, offset)
    offset += chunk.byteLength
  }
  return all
}

describe("LocalObjectStore: multipart laid out in place (partSize)", () => {
  layer(layerServed(), { timeout: 60_000, excludeTestServices: true })((it) => {
    it.effect("parts PUT out of order, one twice, land at their places in one data file; completion moves no bytes: the object is that file", () =>
      Effect.gen(function*() {
        const store = yield* ObjectStore
        const { root } = yield* TestStorage
        const key = freshKey("placed.mp4")
        const uploadId = yield* store.createMultipart({ key, contentType: "video/mp4", partSize: minPartSize })
        const directory = join(root, ".multipart", uploadId)
        const parts = [patterned(1, minPartSize), patterned(2, minPartSize), patterned(3, 7)]
        const put = (partNumber: number, body: Uint8Array) =>
          Effect.flatMap(signPart(key, uploadId, partNumber, body.byteLength), (signed) => putTo(signed.url, body, signed.headers))
        const etag3 = (yield* put(3, parts[2]!)).etag!
        assert.strictEqual(statSync(join(directory, "data")).size, 2 * minPartSize + 7, "part 3 lies past two part sizes")
        yield* put(2, patterned(9, minPartSize))
        const etag2 = (yield* put(2, parts[1]!)).etag!
        const etag1 = (yield* put(1, parts[0]!)).etag!
        assert.deepStrictEqual([etag1, etag2, etag3], parts.map(md5Etag))
        assert.deepStrictEqual(readdirSync(directory).sort(), ["1.json", "2.json", "3.json", "data", "upload.json"])
        const inode = statSync(join(directory, "data")).ino
        yield* store.completeMultipart(key, uploadId, [{ partNumber: 1, etag: etag1 }, { partNumber: 2, etag: etag2 }, { partNumber: 3, etag: etag3 }])
        assert.strictEqual(statSync(join(root, key)).ino, inode, "the data file itself became the object")
        assert.isFalse(existsSync(directory))
        const reply = yield* fetchGet((yield* store.presignGet({ key, expiresIn: Duration.minutes(5) })).url)
        assert.strictEqual(reply.status, 200)
        assert.isTrue(Buffer.from(reply.body).equals(Buffer.from(concatenated(parts))), "the object is the parts' concatenation")
        assert.deepStrictEqual(temporaryFiles(root), [])
      }))

    it.effect("a part over the part size is 413 and stores nothing; a gap or a short part not last is refused naming it, the upload stays; parts past those named are dropped", () =>
      Effect.gen(function*() {
        const store = yield* ObjectStore
        const { root } = yield* TestStorage
        const partSize = minPartSize + 10
        const key = freshKey("refused.mp4")
        const uploadId = yield* store.createMultipart({ key, contentType: "video/mp4", partSize })
        const put = (partNumber: number, body: Uint8Array) =>
          Effect.flatMap(signPart(key, uploadId, partNumber, body.byteLength), (signed) => putTo(signed.url, body, signed.headers))
        const over = yield* put(1, patterned(1, partSize + 1))
        assert.deepStrictEqual([over.status, over.body?.detail], [413, `A part of this upload is at most its part size, ${partSize} bytes; this one is ${partSize + 1}.`])
        assert.deepStrictEqual(yield* store.listParts(key, uploadId), Option.some([]))
        const [one, short, three, four] = [patterned(1, partSize), patterned(2, minPartSize), patterned(3, 9), patterned(4, 4)]
        const etag1 = (yield* put(1, one)).etag!
        const etag2 = (yield* put(2, short)).etag!
        const etag3 = (yield* put(3, three)).etag!
        const refusal = (parts: ReadonlyArray<{ partNumber: number; etag: string }>) =>
          Effect.map(Effect.flip(store.completeMultipart(key, uploadId, parts)), (error) =>
            error._tag === "MultipartRefused" ? [error.reason, error.partNumber] : [error._tag])
        assert.deepStrictEqual(yield* refusal([{ partNumber: 1, etag: etag1 }, { partNumber: 3, etag: etag3 }]), ["InvalidPart", 2])
        assert.deepStrictEqual(
          yield* refusal([{ partNumber: 1, etag: etag1 }, { partNumber: 2, etag: etag2 }, { partNumber: 3, etag: etag3 }]),
          ["EntityTooSmall", 2]
        )
        assert.deepStrictEqual(Option.map(yield* store.listParts(key, uploadId), (parts) => parts.map(({ partNumber }) => partNumber)), Option.some([1, 2, 3]))
        const two = patterned(5, partSize)
        const etag2Full = (yield* put(2, two)).etag!
        yield* put(4, four)
        yield* store.completeMultipart(key, uploadId, [{ partNumber: 1, etag: etag1 }, { partNumber: 2, etag: etag2Full }, { partNumber: 3, etag: etag3 }])
        const reply = yield* fetchGet((yield* store.presignGet({ key, expiresIn: Duration.minutes(5) })).url)
        assert.strictEqual(reply.body.byteLength, 2 * partSize + 9, "part 4, not named, is not in the object")
        assert.isTrue(Buffer.from(reply.body).equals(Buffer.from(concatenated([one, two, three]))))
        assert.isFalse(existsSync(join(root, ".multipart", uploadId)))
      }))

    it.effect("a process killed between putting the data in place and removing the upload: a part PUT is 404, completing again answers NoSuchUpload and clears the upload", () =>
      Effect.gen(function*() {
        const store = yield* ObjectStore
        const { root } = yield* TestStorage
        const key = freshKey("committed.mp4")
        const uploadId = yield* store.createMultipart({ key, contentType: "video/mp4", partSize: minPartSize })
        const body = bytes("the only part")
        const signed = yield* signPart(key, uploadId, 1, body.byteLength)
        const etag = (yield* putTo(signed.url, body, signed.headers)).etag!
        // What the commit leaves when the process dies before the directory is removed.
        mkdirSync(dirname(join(root, key)), { recursive: true })
        renameSync(join(root, ".multipart", uploadId, "data"), join(root, key))
        // A part PUT meanwhile finds no upload and leaves its pointer alone.
        const again = yield* putTo((yield* signPart(key, uploadId, 1, body.byteLength)).url, body)
        assert.strictEqual(again.status, 404)
        assert.isTrue(existsSync(join(root, ".multipart", uploadId, "1.json")))
        const refused = yield* Effect.flip(store.completeMultipart(key, uploadId, [{ partNumber: 1, etag }]))
        assert.deepStrictEqual([refused._tag, refused._tag === "MultipartRefused" ? refused.reason : undefined], ["MultipartRefused", "NoSuchUpload"])
        assert.isFalse(existsSync(join(root, ".multipart", uploadId)))
        assert.strictEqual(Option.getOrThrow(yield* store.head(key)).size, body.byteLength)
      }))

    it.effect("a part PUT again keeps the landed part whole until its own bytes are in: a completion meanwhile completes with the landed part, the PUT answers 503", () =>
      Effect.gen(function*() {
        const store = yield* ObjectStore
        const { root } = yield* TestStorage
        const key = freshKey("landed.mp4")
        const uploadId = yield* store.createMultipart({ key, contentType: "video/mp4", partSize: minPartSize })
        const landed = patterned(21, 4096)
        const signed = yield* signPart(key, uploadId, 1, landed.byteLength)
        const etag = (yield* putTo(signed.url, landed, signed.headers)).etag!
        const again = yield* startSlowPut((yield* signPart(key, uploadId, 1, landed.byteLength)).url, landed.byteLength, 1000)
        assert.isTrue(yield* eventually(() => temporaryFiles(root).some((file) => file.includes(uploadId))), "the PUT again streams to a file of its own")
        assert.deepStrictEqual(yield* store.listParts(key, uploadId), Option.some([{ partNumber: 1, size: landed.byteLength, etag }]), "the landed part is still held")
        yield* store.completeMultipart(key, uploadId, [{ partNumber: 1, etag }])
        const answer = yield* again.answer
        again.drop()
        assert.strictEqual(answer.status, 503)
        const reply = yield* fetchGet((yield* store.presignGet({ key, expiresIn: Duration.minutes(5) })).url)
        assert.isTrue(Buffer.from(reply.body).equals(Buffer.from(landed)), "the object is the landed part")
        assert.deepStrictEqual(temporaryFiles(root), [])
      }))

    it.effect("two PUTs of one part at once both land, one after the other; a PUT again stops one stalled (409) and holds its own bytes; abort stops a part streaming and leaves nothing", () =>
      Effect.gen(function*() {
        const store = yield* ObjectStore
        const { root } = yield* TestStorage
        const key = freshKey("again.mp4")
        const uploadId = yield* store.createMultipart({ key, contentType: "video/mp4", partSize: minPartSize })
        const data = join(root, ".multipart", uploadId, "data")
        const put = (partNumber: number, body: Uint8Array) =>
          Effect.flatMap(signPart(key, uploadId, partNumber, body.byteLength), (signed) => putTo(signed.url, body, signed.headers))

        // Two clients resuming one upload, each PUTting part 2 with the same bytes.
        const same = patterned(3, minPartSize)
        const both = yield* Effect.all([put(2, same), put(2, same)], { concurrency: "unbounded" })
        assert.deepStrictEqual(both.map(({ status, etag }) => [status, etag]), [[200, md5Etag(same)], [200, md5Etag(same)]])

        const first = yield* startSlowPut((yield* signPart(key, uploadId, 1, minPartSize)).url, minPartSize, 64 * 1024)
        const slowBytes = Buffer.from(patterned(99, 64 * 1024))
        assert.isTrue(yield* eventually(() => bytesAt(data, 0, slowBytes.byteLength).equals(slowBytes)), "the first PUT writes in place")
        const bytesAgain = patterned(7, minPartSize)
        const started = Date.now()
        const again = yield* put(1, bytesAgain)
        assert.deepStrictEqual([again.status, again.etag], [200, md5Etag(bytesAgain)])
        assert.isAtLeast(Date.now() - started, 4_000, "the first PUT was waited for until it had stalled for 5 s")
        const stopped = yield* first.answer
        first.drop()
        assert.strictEqual(stopped.status, 409)
        assert.include(JSON.parse(stopped.body).detail, "This PUT of part 1 stalled and the part was uploaded again by another request")
        assert.deepStrictEqual(
          yield* store.listParts(key, uploadId),
          Option.some([{ partNumber: 1, size: minPartSize, etag: md5Etag(bytesAgain) }, { partNumber: 2, size: minPartSize, etag: md5Etag(same) }])
        )

        const streaming = yield* startSlowPut((yield* signPart(key, uploadId, 3, 1024)).url, 1024, 100)
        assert.isTrue(yield* eventually(() => statSync(data).size >= 2 * minPartSize + 100), "part 3 streams in place")
        yield* store.abortMultipart(key, uploadId)
        const aborted = yield* streaming.answer
        streaming.drop()
        assert.deepStrictEqual([aborted.status, JSON.parse(aborted.body).detail], [503, "The upload is being completed or aborted; PUT this part again in a moment if it is still open."])
        assert.isFalse(existsSync(join(root, ".multipart", uploadId)))
        assert.deepStrictEqual(yield* store.listParts(key, uploadId), Option.none())
      }))
  })
})

describe("LocalMultipart.complete on its own", () => {
  it.live("data gone between the cut and the commit (an abort that did not wait): the completion fails and leaves no metadata sidecar without its object", () =>
    Effect.gen(function*() {
      const root = mkdtempSync(join(tmpdir(), "coursekit-multipart-"))
      yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(root, { recursive: true, force: true })))
      const disk = yield* LocalDisk.open(root)
      const key = "m/x/raced.mp4"
      const uploadId = yield* LocalMultipart.create(disk, { key, contentType: "video/mp4", created: new Date().toISOString(), partSize: minPartSize })
      const directory = join(disk.root, ".multipart", uploadId)
      const part = patterned(3, 10)
      writeFileSync(join(directory, "data"), part)
      yield* Effect.promise(() => LocalMultipart.commitPlacedPart(directory, 1, { size: 10, etag: md5Etag(part) }))
      const exit = yield* Effect.exit(LocalMultipart.complete(
        disk,
        (paths, temporary, contentType) => Effect.andThen(LocalMultipart.abort(disk, key, uploadId), commitObject(disk, paths, temporary, contentType)),
        key,
        uploadId,
        [{ partNumber: 1, etag: md5Etag(part) }]
      ))
      assert.isTrue(Exit.isFailure(exit))
      assert.isFalse(existsSync(join(disk.root, key)))
      assert.isFalse(existsSync(join(disk.root, ".meta", key)), "no sidecar without its object")
    }).pipe(Effect.scoped))
})
