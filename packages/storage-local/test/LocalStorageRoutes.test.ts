import { ObjectStore, type PresignedPut } from "@coursekit/core"
import { fetchPut } from "@coursekit/core/testing"
import { assert, describe, layer } from "@effect/vitest"
import { DateTime, Duration, Effect, Option } from "effect"
import { existsSync, mkdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { eventually, layerServed, raw, type RawReply, startAbandonedUpload, temporaryFiles, TestStorage } from "./TestStorage.ts"

const maxUploadBytes = 64 * 1024

const bytes = (text: string) => new TextEncoder().encode(text)

/** A fresh key under its own prefix. */
const freshKey = (name: string) => `t/${Math.random().toString(36).slice(2, 10)}/${name}`

const presign = (key: string, contentType = "image/png", contentLength?: number, expiresIn = Duration.minutes(5)) =>
  Effect.gen(function*() {
    const store = yield* ObjectStore
    return yield* store.presignPut({ key, contentType, contentLength, expiresIn })
  })

/** PUTs `body` to `url` with fetch; answers the status and the parsed problem, if any. */
const putTo = (url: string, headers: Readonly<Record<string, string>>, body: Uint8Array | ReadableStream<Uint8Array>) =>
  Effect.promise(async () => {
    const response = await fetch(url, {
      method: "PUT",
      headers: { ...headers },
      body: body as BodyInit,
      ...(body instanceof ReadableStream ? { duplex: "half" } : {})
    } as RequestInit)
    const text = await response.text()
    return { status: response.status, contentType: response.headers.get("content-type"), body: text === "" ? undefined : JSON.parse(text) }
  })

/** Asserts nothing of `key` is on disk: no object, no sidecar, no upload in progress. */
const assertNothingStored = (key: string) =>
  Effect.gen(function*() {
    const store = yield* ObjectStore
    const { root } = yield* TestStorage
    assert.deepStrictEqual(yield* store.head(key), Option.none(), `${key} is stored`)
    assert.isFalse(existsSync(join(root, key)))
    assert.isFalse(existsSync(join(root, ".meta", key)))
    assert.deepStrictEqual(temporaryFiles(root), [])
  })

const withQuery = (presigned: PresignedPut, name: string, value: string) => {
  const url = new URL(presigned.url)
  url.searchParams.set(name, value)
  return url.toString()
}

const assertProblem = (reply: { status: number; contentType: string | null; body: any }, status: number) => {
  assert.strictEqual(reply.status, status, JSON.stringify(reply.body))
  assert.strictEqual(reply.contentType, "application/problem+json")
  assert.strictEqual(reply.body.type, "about:blank")
  assert.strictEqual(reply.body.status, status)
  assert.isString(reply.body.title)
  assert.isString(reply.body.detail)
}

describe("LocalStorageRoutes", () => {
  layer(layerServed({ maxUploadBytes }), { timeout: 60_000, excludeTestServices: true })((it) => {
    it.effect("a successful PUT answers 200 with an empty body", () =>
      Effect.gen(function*() {
        const presigned = yield* presign(freshKey("ok.png"))
        const reply = yield* putTo(presigned.url, presigned.headers, bytes("ok"))
        assert.strictEqual(reply.status, 200)
        assert.isUndefined(reply.body)
      }))

    it.effect("served files carry their type, length, nosniff, immutable caching and an ETag", () =>
      Effect.gen(function*() {
        const store = yield* ObjectStore
        const key = freshKey("served.png")
        const presigned = yield* presign(key)
        assert.strictEqual(yield* fetchPut(presigned, bytes("hello"), presigned.headers), 200)
        const response = yield* Effect.promise(() => fetch(store.publicUrl(key)))
        assert.strictEqual(response.status, 200)
        assert.strictEqual(yield* Effect.promise(() => response.text()), "hello")
        assert.strictEqual(response.headers.get("content-type"), "image/png")
        assert.strictEqual(response.headers.get("content-length"), "5")
        assert.strictEqual(response.headers.get("x-content-type-options"), "nosniff")
        assert.strictEqual(response.headers.get("cache-control"), "public, max-age=31536000, immutable")
        const etag = response.headers.get("etag")
        assert.match(etag ?? "", /^"[^"]+"$/)
        assert.isNotNull(response.headers.get("last-modified"))

        const headed = yield* Effect.promise(() => fetch(store.publicUrl(key), { method: "HEAD" }))
        assert.strictEqual(headed.status, 200)
        assert.strictEqual(headed.headers.get("content-length"), "5")
        assert.strictEqual(headed.headers.get("content-type"), "image/png")
        assert.strictEqual(headed.headers.get("etag"), etag)
        assert.strictEqual(headed.headers.get("x-content-type-options"), "nosniff")
        assert.strictEqual(yield* Effect.promise(() => headed.text()), "")

        const revalidated = yield* Effect.promise(() => fetch(store.publicUrl(key), { headers: { "if-none-match": etag! } }))
        assert.strictEqual(revalidated.status, 304)
      }))

    it.effect("a large file is streamed whole", () =>
      Effect.gen(function*() {
        const store = yield* ObjectStore
        const key = freshKey("large.bin")
        const size = 3 * 1024 * 1024 + 17
        const body = new Uint8Array(size).map((_, index) => index % 251)
        const presigned = yield* presign(key, "application/octet-stream", size)
        assert.strictEqual(yield* fetchPut(presigned, body, presigned.headers), 200)
        const response = yield* Effect.promise(() => fetch(store.publicUrl(key)))
        const served = new Uint8Array(yield* Effect.promise(() => response.arrayBuffer()))
        assert.strictEqual(served.byteLength, size)
        assert.strictEqual(served.findIndex((byte, index) => byte !== index % 251), -1, "the first byte that differs")
      }))

    it.effect("absent keys, traversals and the store's own files are 404 problems on GET and HEAD", () =>
      Effect.gen(function*() {
        const { dir } = yield* TestStorage
        const key = freshKey("private.png")
        const presigned = yield* presign(key)
        assert.strictEqual(yield* fetchPut(presigned, bytes("x"), presigned.headers), 200)
        writeFileSync(join(dir, "secret.txt"), "top secret")
        const paths = [
          "/files/t/absent.png",
          "/files/",
          "/files",
          "/files/../secret.txt",
          "/files/..%2Fsecret.txt",
          "/files/%2e%2e/secret.txt",
          "/files/t/%2E%2E/%2E%2E/secret.txt",
          "/files/%2Fetc%2Fpasswd",
          "/files/a%5Cb",
          "/files/a%00b",
          `/files/.meta/${key}`,
          `/files/%2Emeta/${key}`
        ]
        for (const path of paths) {
          const got = yield* raw({ method: "GET", path })
          assert.strictEqual(got.status, 404, path)
          assert.notInclude(got.body, "top secret")
          assert.notInclude(got.body, "image/png")
          const headed = yield* raw({ method: "HEAD", path })
          assert.strictEqual(headed.status, 404, `HEAD ${path}`)
        }
        const problem = yield* raw({ method: "GET", path: "/files/..%2Fsecret.txt" })
        assert.strictEqual(problem.headers["content-type"], "application/problem+json")
        assert.strictEqual(JSON.parse(problem.body).status, 404)
      }))

    it.effect("PUTs to invalid keys are 400 problems and write nothing", () =>
      Effect.gen(function*() {
        const { dir, root } = yield* TestStorage
        const paths = [
          "/storage/../x",
          "/storage/..%2Fx",
          "/storage/a/%2e%2e/%2e%2e/x",
          "/storage/%2Fetc%2Fpasswd",
          "/storage/a%5Cb",
          "/storage/a%00b",
          "/storage/.meta/x",
          "/storage/"
        ]
        for (const path of paths) {
          const reply = yield* raw({
            method: "PUT",
            path: `${path}?expires=9999999999&type=image%2Fpng&signature=${"0".repeat(64)}`,
            headers: { "content-type": "image/png", "content-length": "1" },
            chunks: [bytes("x")]
          })
          assert.strictEqual(reply.status, 400, path)
          assert.strictEqual(reply.headers["content-type"], "application/problem+json")
        }
        assert.isFalse(existsSync(join(dir, "x")))
        assert.isFalse(existsSync(join(root, "x")))
        assert.deepStrictEqual(temporaryFiles(root), [])
      }))

    it.effect("forged signatures and tampered key, type, length or expiry are 403", () =>
      Effect.gen(function*() {
        const key = freshKey("signed.png")
        const presigned = yield* presign(key, "image/png", 5)
        const body = bytes("12345")
        const signature = new URL(presigned.url).searchParams.get("signature")!
        const forged = signature.slice(0, -1) + (signature.endsWith("0") ? "1" : "0")
        const attempts: Array<[string, string, Record<string, string>, Uint8Array]> = [
          ["forged signature", withQuery(presigned, "signature", forged), presigned.headers, body],
          ["missing signature", presigned.url.replace(/&signature=[0-9a-f]+/, ""), presigned.headers, body],
          ["uppercase signature", withQuery(presigned, "signature", signature.toUpperCase()), presigned.headers, body],
          ["repeated signature", `${presigned.url}&signature=${signature}`, presigned.headers, body],
          ["other key", presigned.url.replace("/signed.png?", "/other.png?"), presigned.headers, body],
          ["other type", withQuery(presigned, "type", "image/gif"), { ...presigned.headers, "Content-Type": "image/gif" }, body],
          ["other length", withQuery(presigned, "length", "6"), { ...presigned.headers, "Content-Length": "6" }, bytes("123456")],
          ["no length", presigned.url.replace(/&length=5/, ""), { "Content-Type": "image/png" }, bytes("123456")],
          ["later expiry", withQuery(presigned, "expires", String(Number(new URL(presigned.url).searchParams.get("expires")) + 3600)), presigned.headers, body],
          ["type not the signed one", presigned.url, { ...presigned.headers, "Content-Type": "image/gif" }, body]
        ]
        for (const [name, url, headers, sent] of attempts) {
          const reply = yield* putTo(url, headers, sent)
          assertProblem(reply, 403)
          assert.strictEqual(reply.status, 403, name)
        }
        yield* assertNothingStored(key)
        yield* assertNothingStored(key.replace("signed.png", "other.png"))
      }))

    it.effect("an expired URL is 403", () =>
      Effect.gen(function*() {
        const key = freshKey("late.png")
        const presigned = yield* presign(key, "image/png", undefined, Duration.zero)
        assertProblem(yield* putTo(presigned.url, presigned.headers, bytes("late")), 403)
        yield* assertNothingStored(key)
      }))

    it.effect("a body larger than the signed length is 413; smaller is 400; chunked is 411", () =>
      Effect.gen(function*() {
        const key = freshKey("sized.png")
        const presigned = yield* presign(key, "image/png", 5)
        assertProblem(yield* putTo(presigned.url, { "Content-Type": "image/png" }, bytes("more than five")), 413)
        yield* assertNothingStored(key)
        assertProblem(yield* putTo(presigned.url, { "Content-Type": "image/png" }, bytes("four")), 400)
        yield* assertNothingStored(key)
        const chunked = yield* raw({
          method: "PUT",
          path: new URL(presigned.url).pathname + new URL(presigned.url).search,
          headers: { "content-type": "image/png" },
          chunks: [bytes("12"), bytes("345")]
        })
        assert.strictEqual(chunked.status, 411)
        yield* assertNothingStored(key)
        assert.strictEqual(yield* fetchPut(presigned, bytes("12345"), presigned.headers), 200)
      }))

    it.effect("without a signed length the upload cap applies, declared or streamed", () =>
      Effect.gen(function*() {
        const key = freshKey("capped.bin")
        const presigned = yield* presign(key, "application/octet-stream")
        const over = new Uint8Array(maxUploadBytes + 1)
        assertProblem(yield* putTo(presigned.url, presigned.headers, over), 413)
        yield* assertNothingStored(key)
        // Chunked, so the size is only known while it streams.
        const url = new URL(presigned.url)
        const streamed = yield* raw({
          method: "PUT",
          path: url.pathname + url.search,
          headers: { "content-type": "application/octet-stream" },
          chunks: Array.from({ length: 8 }, () => new Uint8Array(16 * 1024).fill(1))
        })
        assert.strictEqual(streamed.status, 413)
        assert.strictEqual(streamed.headers["content-type"], "application/problem+json")
        yield* assertNothingStored(key)
        const exact = yield* raw({
          method: "PUT",
          path: url.pathname + url.search,
          headers: { "content-type": "application/octet-stream" },
          chunks: Array.from({ length: 4 }, () => new Uint8Array(16 * 1024).fill(2))
        })
        assert.strictEqual(exact.status, 200)
        const store = yield* ObjectStore
        assert.strictEqual(Option.getOrThrow(yield* store.head(key)).size, maxUploadBytes)
      }))

    it.effect("a client that goes away mid-upload leaves nothing behind", () =>
      Effect.gen(function*() {
        const { root } = yield* TestStorage
        const key = freshKey("abandoned.bin")
        const presigned = yield* presign(key, "application/octet-stream", 1024 * 1024)
        const abort = yield* startAbandonedUpload(presigned.url, "application/octet-stream", 1024 * 1024, 32 * 1024)
        // The upload is under way once its temporary file exists.
        yield* eventually(() => temporaryFiles(root).length > 0)
        assert.lengthOf(temporaryFiles(root), 1, "the upload never started")
        abort()
        yield* eventually(() => temporaryFiles(root).length === 0)
        assert.deepStrictEqual(temporaryFiles(root), [], "a temporary file was left")
        yield* assertNothingStored(key)
      }))

    it.effect("removeIncomplete removes temporary files a killed process left, once untouched since the cutoff; never an upload in progress", () =>
      Effect.gen(function*() {
        const { root } = yield* TestStorage
        const store = yield* ObjectStore
        // What a process killed mid-upload or mid-commit leaves: temporary files beside a
        // key's file and in the metadata directory.
        const stale = [join(root, "media", ".upload-killed1"), join(root, ".meta", "media", ".upload-killed2")]
        const fresh = join(root, "media", ".upload-recent")
        for (const file of [...stale, fresh]) {
          mkdirSync(dirname(file), { recursive: true })
          writeFileSync(file, "partial")
        }
        const twoHoursAgo = new Date(Date.now() - 2 * 3600_000)
        for (const file of stale) utimesSync(file, twoHoursAgo, twoHoursAgo)
        // An upload still streaming: its temporary file is written to all the while.
        const key = freshKey("streaming.bin")
        const presigned = yield* presign(key, "application/octet-stream", 1024 * 1024)
        const abort = yield* startAbandonedUpload(presigned.url, "application/octet-stream", 1024 * 1024, 32 * 1024)
        yield* eventually(() => temporaryFiles(root).length === 4)
        assert.lengthOf(temporaryFiles(root), 4, "the upload never started")
        const oneHourAgo = DateTime.makeUnsafe(Date.now() - 3600_000)
        assert.strictEqual(yield* store.removeIncomplete(oneHourAgo), 2)
        for (const file of stale) assert.isFalse(existsSync(file), file)
        // The recent one and the one being written stay.
        assert.isTrue(existsSync(fresh))
        assert.strictEqual(temporaryFiles(root).length, 2)
        abort()
        yield* eventually(() => temporaryFiles(root).length === 1)
        assert.deepStrictEqual(temporaryFiles(root), [join("media", ".upload-recent")])
        assert.strictEqual(yield* store.removeIncomplete(oneHourAgo), 0)
        // The root is shared with the other tests, which expect no temporary file.
        rmSync(fresh)
      }))

    it.effect("concurrent PUTs of one key end with one complete file: one lands (200), the others are 409s", () =>
      Effect.gen(function*() {
        const store = yield* ObjectStore
        const { root } = yield* TestStorage
        const key = freshKey("raced.bin")
        const size = 512 * 1024
        const presigned = yield* presign(key, "application/octet-stream", size)
        const fills = [1, 2, 3, 4, 5, 6]
        const statuses = yield* Effect.forEach(
          fills,
          (fill) => fetchPut(presigned, new Uint8Array(size).fill(fill), presigned.headers),
          { concurrency: "unbounded" }
        )
        assert.deepStrictEqual([...statuses].sort(), [200, 409, 409, 409, 409, 409])
        const stored = readFileSync(join(root, key))
        assert.strictEqual(stored.byteLength, size)
        assert.include(fills, stored[0])
        assert.strictEqual(stored.findIndex((byte) => byte !== stored[0]), -1, "the file mixes uploads")
        assert.strictEqual(Option.getOrThrow(yield* store.head(key)).contentType, "application/octet-stream")
        assert.deepStrictEqual(temporaryFiles(root), [])
      }))

    it.effect("a second PUT to a key that holds a file is a 409 and leaves the first file as it was", () =>
      Effect.gen(function*() {
        const { root } = yield* TestStorage
        const key = freshKey("once.bin")
        const presigned = yield* presign(key, "application/octet-stream")
        assert.strictEqual(yield* fetchPut(presigned, bytes("first"), presigned.headers), 200)
        const second = yield* raw({
          method: "PUT",
          path: new URL(presigned.url).pathname + new URL(presigned.url).search,
          headers: { ...presigned.headers, "content-length": "5000" },
          chunks: [new Uint8Array(5000).fill(9)]
        })
        assert.strictEqual(second.status, 409, second.body)
        assert.include(JSON.parse(second.body).detail, "already uploaded")
        assert.strictEqual(readFileSync(join(root, key), "utf8"), "first")
        assert.deepStrictEqual(temporaryFiles(root), [])
      }))

    it.effect("a key whose place is taken by another key's directory is a 409", () =>
      Effect.gen(function*() {
        const key = freshKey("dir.png")
        const first = yield* presign(key)
        assert.strictEqual(yield* fetchPut(first, bytes("file"), first.headers), 200)
        const nested = yield* presign(`${key}/inner.png`)
        assertProblem(yield* putTo(nested.url, nested.headers, bytes("nested")), 409)
        const { root } = yield* TestStorage
        assert.deepStrictEqual(temporaryFiles(root), [])
      }))
  })
})

/** Stores `text` under `key` through a presigned PUT. */
const storeText = (key: string, text: string, contentType = "video/mp4") =>
  Effect.gen(function*() {
    const presigned = yield* presign(key, contentType)
    assert.strictEqual(yield* fetchPut(presigned, bytes(text), presigned.headers), 200)
  })

/** The path and query of `url`, exactly as issued. */
const pathOf = (url: string) => {
  const parsed = new URL(url)
  return parsed.pathname + parsed.search
}

const signedGet = (key: string, expiresIn = Duration.minutes(5)) =>
  Effect.gen(function*() {
    const store = yield* ObjectStore
    return yield* store.presignGet({ key, expiresIn })
  })

const filePath = (key: string) => `/files/${key.split("/").map(encodeURIComponent).join("/")}`

const assertRawProblem = (reply: { status: number; headers: Record<string, unknown>; body: string }, status: number, context: string) => {
  assert.strictEqual(reply.status, status, `${context}: ${reply.body}`)
  assert.strictEqual(reply.headers["content-type"], "application/problem+json", context)
  assert.strictEqual(JSON.parse(reply.body).status, status, context)
}

describe("LocalStorageRoutes: reads", () => {
  layer(layerServed({ maxUploadBytes: 4 * 1024 * 1024 }), { timeout: 60_000, excludeTestServices: true })((it) => {
    it.effect("a single range of every form answers 206 with exactly its bytes and Content-Range", () =>
      Effect.gen(function*() {
        const key = freshKey("digits.txt")
        yield* storeText(key, "0123456789", "text/plain")
        const cases: ReadonlyArray<readonly [string, string, string]> = [
          ["bytes=2-5", "2345", "bytes 2-5/10"],
          ["bytes=0-0", "0", "bytes 0-0/10"],
          ["bytes=7-", "789", "bytes 7-9/10"],
          ["bytes=5-100", "56789", "bytes 5-9/10"],
          ["bytes=9-9", "9", "bytes 9-9/10"],
          ["bytes=-3", "789", "bytes 7-9/10"],
          ["bytes=-20", "0123456789", "bytes 0-9/10"],
          [" bytes=1-2 ", "12", "bytes 1-2/10"]
        ]
        for (const [range, body, contentRange] of cases) {
          const reply = yield* raw({ method: "GET", path: filePath(key), headers: { range } })
          assert.strictEqual(reply.status, 206, range)
          assert.strictEqual(reply.body, body, range)
          assert.strictEqual(reply.headers["content-range"], contentRange, range)
          assert.strictEqual(reply.headers["content-length"], String(body.length), range)
          assert.strictEqual(reply.headers["content-type"], "text/plain", range)
          assert.strictEqual(reply.headers["accept-ranges"], "bytes", range)
          assert.strictEqual(reply.headers["cache-control"], "public, max-age=31536000, immutable", range)
        }
        const plain = yield* raw({ method: "GET", path: filePath(key) })
        assert.strictEqual(plain.status, 200)
        assert.strictEqual(plain.headers["accept-ranges"], "bytes")
        assert.isUndefined(plain.headers["content-range"])
      }))

    it.effect("a range in the middle of a large file streams exactly those bytes", () =>
      Effect.gen(function*() {
        const key = freshKey("large.bin")
        const size = 3 * 1024 * 1024 + 17
        const body = new Uint8Array(size).map((_, index) => index % 251)
        const presigned = yield* presign(key, "application/octet-stream", size)
        assert.strictEqual(yield* fetchPut(presigned, body, presigned.headers), 200)
        const store = yield* ObjectStore
        const [start, last] = [100_003, 2_000_000]
        const response = yield* Effect.promise(() => fetch(store.publicUrl(key), { headers: { range: `bytes=${start}-${last}` } }))
        assert.strictEqual(response.status, 206)
        assert.strictEqual(response.headers.get("content-range"), `bytes ${start}-${last}/${size}`)
        const served = new Uint8Array(yield* Effect.promise(() => response.arrayBuffer()))
        assert.strictEqual(served.byteLength, last - start + 1)
        assert.strictEqual(served.findIndex((byte, index) => byte !== (start + index) % 251), -1, "the first byte that differs")
      }))

    it.effect("a range starting past the end is 416 with the size in Content-Range", () =>
      Effect.gen(function*() {
        const key = freshKey("short.txt")
        yield* storeText(key, "0123456789", "text/plain")
        for (const range of ["bytes=10-", "bytes=10-20", "bytes=-0", `bytes=${"9".repeat(40)}-`]) {
          const reply = yield* raw({ method: "GET", path: filePath(key), headers: { range } })
          assertRawProblem(reply, 416, range)
          assert.strictEqual(reply.headers["content-range"], "bytes */10", range)
          assert.notInclude(reply.body, "0123456789", range)
        }
      }))

    it.effect("several ranges, other units and malformed ranges answer the whole file (200)", () =>
      Effect.gen(function*() {
        const key = freshKey("whole.txt")
        yield* storeText(key, "0123456789", "text/plain")
        for (const range of ["bytes=0-1,4-5", "bytes=0-1, 4-5", "bytes=5-2", "items=0-1", "bytes=", "bytes=-", "bytes=a-b", "bytes=1-2-3", "bytes 1-2", "bytes=1-2;x"]) {
          const reply = yield* raw({ method: "GET", path: filePath(key), headers: { range } })
          assert.strictEqual(reply.status, 200, JSON.stringify(range))
          assert.strictEqual(reply.body, "0123456789", JSON.stringify(range))
          assert.isUndefined(reply.headers["content-range"], JSON.stringify(range))
        }
      }))

    it.effect("HEAD with a Range answers the 206's headers without a body; If-Range applies the range only for the file's ETag", () =>
      Effect.gen(function*() {
        const key = freshKey("head.txt")
        yield* storeText(key, "0123456789", "text/plain")
        const headed = yield* raw({ method: "HEAD", path: filePath(key), headers: { range: "bytes=2-5" } })
        assert.strictEqual(headed.status, 206)
        assert.strictEqual(headed.headers["content-range"], "bytes 2-5/10")
        assert.strictEqual(headed.headers["content-length"], "4")
        assert.strictEqual(headed.body, "")
        const unsatisfiable = yield* raw({ method: "HEAD", path: filePath(key), headers: { range: "bytes=20-" } })
        assert.strictEqual(unsatisfiable.status, 416)
        assert.strictEqual(unsatisfiable.headers["content-range"], "bytes */10")
        assert.strictEqual(unsatisfiable.body, "")

        const etag = (yield* raw({ method: "HEAD", path: filePath(key) })).headers.etag as string
        assert.match(etag, /^"[^"]+"$/)
        const matching = yield* raw({ method: "GET", path: filePath(key), headers: { range: "bytes=2-5", "if-range": etag } })
        assert.strictEqual(matching.status, 206)
        assert.strictEqual(matching.body, "2345")
        for (const ifRange of ['"another"', `W/${etag}`, new Date().toUTCString()]) {
          const other = yield* raw({ method: "GET", path: filePath(key), headers: { range: "bytes=2-5", "if-range": ifRange } })
          assert.strictEqual(other.status, 200, ifRange)
          assert.strictEqual(other.body, "0123456789", ifRange)
        }
        // If-None-Match is decided first: a matching tag is a 304, range or not.
        const revalidated = yield* raw({ method: "GET", path: filePath(key), headers: { range: "bytes=2-5", "if-none-match": etag } })
        assert.strictEqual(revalidated.status, 304)
        assert.strictEqual(revalidated.body, "")
      }))

    it.effect("a private key is 403 without a signature, present or absent, on GET and HEAD; with one it is served, privately cached", () =>
      Effect.gen(function*() {
        const store = yield* ObjectStore
        const key = `private/${freshKey("paid.mp4")}`
        yield* storeText(key, "paid video")
        for (const path of [filePath(key), filePath(`${key}.absent`)]) {
          const got = yield* raw({ method: "GET", path })
          assertRawProblem(got, 403, path)
          assert.notInclude(got.body, "paid video")
          const headed = yield* raw({ method: "HEAD", path })
          assert.strictEqual(headed.status, 403, `HEAD ${path}`)
        }
        // A query that claims no signature changes nothing.
        assert.strictEqual((yield* raw({ method: "GET", path: `${filePath(key)}?v=2` })).status, 403)
        assert.strictEqual(store.publicUrl(key), `${(yield* TestStorage).baseUrl}${filePath(key)}`)

        const signed = yield* signedGet(key, Duration.seconds(120))
        const reply = yield* raw({ method: "GET", path: pathOf(signed.url) })
        assert.strictEqual(reply.status, 200)
        assert.strictEqual(reply.body, "paid video")
        assert.strictEqual(reply.headers["content-type"], "video/mp4")
        const maxAge = Number(/^private, max-age=(\d+)$/.exec(String(reply.headers["cache-control"]))?.[1])
        assert.isAtLeast(maxAge, 115, String(reply.headers["cache-control"]))
        assert.isAtMost(maxAge, 120, String(reply.headers["cache-control"]))
        const ranged = yield* raw({ method: "GET", path: pathOf(signed.url), headers: { range: "bytes=-5" } })
        assert.strictEqual(ranged.status, 206)
        assert.strictEqual(ranged.body, "video")
        assert.match(String(ranged.headers["cache-control"]), /^private, max-age=\d+$/)
        const revalidated = yield* raw({ method: "GET", path: pathOf(signed.url), headers: { "if-none-match": String(reply.headers.etag) } })
        assert.strictEqual(revalidated.status, 304)
        assert.match(String(revalidated.headers["cache-control"]), /^private, max-age=\d+$/)
        // A valid signature for a key with no file: the file is absent.
        const absent = yield* signedGet(`${key}.absent`)
        assertRawProblem(yield* raw({ method: "GET", path: pathOf(absent.url) }), 404, "signed, absent")
      }))

    it.effect("signed URLs with a changed, missing, repeated or malformed signature or expiry, or expired, are 403 problems, public keys too", () =>
      Effect.gen(function*() {
        for (const key of [`private/${freshKey("signed.mp4")}`, freshKey("public.mp4")]) {
          yield* storeText(key, "the bytes")
          const signed = yield* signedGet(key)
          const url = new URL(signed.url)
          const path = url.pathname
          const expires = url.searchParams.get("expires")!
          const signature = url.searchParams.get("signature")!
          assert.strictEqual(Number(expires) * 1000, signed.expiresAt.epochMilliseconds)
          assert.deepStrictEqual([...url.searchParams.keys()], ["expires", "signature"])
          assert.match(signature, /^[0-9a-f]{64}$/)
          const forged = [
            `${path}?expires=${expires}&signature=${signature.slice(0, -1)}${signature.endsWith("0") ? "1" : "0"}`,
            `${path}?expires=${expires}&signature=${signature.toUpperCase()}`,
            `${path}?expires=${Number(expires) + 1}&signature=${signature}`,
            `${path}?expires=${expires}`,
            `${path}?signature=${signature}`,
            `${path}?expires=${expires}&signature=${signature}&signature=${signature}`,
            `${path}?expires=${expires}&expires=${expires}&signature=${signature}`,
            `${path}?expires=&signature=${signature}`,
            `${path}?expires=${expires}&signature=`,
            `${path}?expires=${expires}%00&signature=${signature}`,
            `${path}?expires=${expires}&signature=${signature}%00`,
            `${path}?expires=%00&signature=%00`,
            `${path}?expires=%ZZ&signature=${signature}`,
            `${path}?expires=${"9".repeat(4000)}&signature=${signature}`,
            `${path}?expires=${expires}&signature=${"a".repeat(8000)}`,
            `${path}?expires=-1&signature=${signature}`,
            `${path}?expires=1e10&signature=${signature}`,
            // The same expiry spelled with a leading zero: one expiry, one spelling.
            `${path}?expires=0${expires}&signature=${signature}`,
            `${path}?expires=%2B${expires}&signature=${signature}`,
            `${path}x?expires=${expires}&signature=${signature}`
          ]
          for (const forgery of forged) {
            const reply = yield* raw({ method: "GET", path: forgery })
            // A different path of an absent key is still refused for its signature first.
            assertRawProblem(reply, 403, forgery.slice(0, 200))
            assert.notInclude(reply.body, "the bytes")
          }
          const expired = yield* signedGet(key, Duration.zero)
          const late = yield* raw({ method: "GET", path: pathOf(expired.url) })
          assertRawProblem(late, 403, "expired")
          assert.include(JSON.parse(late.body).detail, "expired")
          assert.strictEqual((yield* raw({ method: "GET", path: pathOf(signed.url) })).status, 200, "the URL as issued")
        }
      }))

    it.effect("a signed URL is accepted only as issued: a parameter added, the parameters reordered, the path re-encoded or a trailing slash is a 403 saying so", () =>
      Effect.gen(function*() {
        const store = yield* ObjectStore
        const notSignedForm = "The URL is not in its signed form"
        /** Other spellings of `issued` (a path and query) that name the same key and fields. */
        const respellings = (issued: string) => {
          const [path, query] = issued.split("?") as [string, string]
          return [
            `${issued}&x=1`,
            `${path}?${query.split("&").reverse().join("&")}`,
            `${path.replace("/media/", "/%6dedia/")}?${query}`,
            `${path}/?${query}`
          ]
        }
        const assertRefused = (reply: RawReply, spelling: string) => {
          assertRawProblem(reply, 403, spelling)
          assert.include(JSON.parse(reply.body).detail, notSignedForm, spelling)
        }
        const random = Math.random().toString(36).slice(2, 10)
        // Reads, of a private and a public key.
        for (const key of [`private/media/${random}/clip.mp4`, `media/${random}/clip.mp4`]) {
          yield* storeText(key, "the bytes")
          const issued = pathOf((yield* signedGet(key)).url)
          for (const spelling of respellings(issued)) {
            const reply = yield* raw({ method: "GET", path: spelling })
            assertRefused(reply, spelling)
            assert.notInclude(reply.body, "the bytes")
          }
          assert.strictEqual((yield* raw({ method: "GET", path: issued })).body, "the bytes", "the URL as issued")
        }
        // An upload, and a part of a multipart upload: nothing lands but at the URL as issued.
        const key = `media/${random}/upload.mp4`
        const put = yield* presign(key, "video/mp4", 3)
        const uploadId = yield* store.createMultipart({ key: `${key}.parts`, contentType: "video/mp4" })
        const part = yield* store.presignPart({ key: `${key}.parts`, uploadId, partNumber: 1, contentLength: 3, expiresIn: Duration.minutes(5) })
        for (const signed of [put, part]) {
          const issued = pathOf(signed.url)
          for (const spelling of respellings(issued)) {
            assertRefused(yield* raw({ method: "PUT", path: spelling, headers: signed.headers, chunks: [bytes("new")] }), spelling)
          }
          assert.strictEqual((yield* raw({ method: "PUT", path: issued, headers: signed.headers, chunks: [bytes("new")] })).status, 200, issued)
        }
        assert.deepStrictEqual(Option.map(yield* store.head(key), (head) => head.size), Option.some(3))
        assert.deepStrictEqual(Option.map(yield* store.listParts(`${key}.parts`, uploadId), (parts) => parts.map((held) => held.partNumber)), Option.some([1]))
      }))

    it.effect("a PUT signature does not read and a GET signature does not upload", () =>
      Effect.gen(function*() {
        const { root } = yield* TestStorage
        for (const key of [`private/${freshKey("crossed.mp4")}`, freshKey("crossed.mp4")]) {
          yield* storeText(key, "stored")
          // The upload URL's query on the file's path, as a GET.
          const put = yield* presign(key, "video/mp4")
          const putQuery = new URL(put.url).search
          assertRawProblem(yield* raw({ method: "GET", path: `${filePath(key)}${putQuery}` }), 403, "PUT query on GET")
          // The read URL's query on the upload path, as a PUT (of a fresh key, so only the signature can refuse it).
          const fresh = `${key}.new`
          const get = yield* signedGet(fresh)
          const getQuery = new URL(get.url).search
          for (const query of [getQuery, `${getQuery}&type=video%2Fmp4`]) {
            const reply = yield* raw({
              method: "PUT",
              path: `/storage/${fresh.split("/").map(encodeURIComponent).join("/")}${query}`,
              headers: { "content-type": "video/mp4", "content-length": "3" },
              chunks: [bytes("new")]
            })
            assertRawProblem(reply, 403, `GET query on PUT: ${query}`)
          }
          assert.isFalse(existsSync(join(root, fresh)))
        }
      }))
  })
})
