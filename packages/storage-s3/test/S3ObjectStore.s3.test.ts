import { type MultipartRefused, ObjectStore, type StorageError } from "@coursekit/core"
import { fetchGet, fetchPut, objectStoreSuite } from "@coursekit/core/testing"
import { assert, describe, it, layer } from "@effect/vitest"
import { ConfigProvider, DateTime, Duration, Effect, Layer, Option, Redacted } from "effect"
import { TestClock } from "effect/testing"
import * as http from "node:http"
import * as net from "node:net"
import * as S3ObjectStore from "../src/S3ObjectStore.ts"
import { answers200WithError } from "./S3rverMultipart.ts"
import { accessKeyId, secretAccessKey, TestS3rver } from "./TestS3rver.ts"

const storeOn = (server: TestS3rver["Service"], overrides: Partial<S3ObjectStore.Options> = {}) =>
  S3ObjectStore.layer({
    endpoint: server.endpoint,
    region: "us-east-1",
    bucket: server.bucket,
    credentials: { accessKeyId, secretAccessKey },
    forcePathStyle: true,
    ...overrides
  })

/** An anonymous GET, as a browser reads a public file. */
const fetchPublic = (url: string) =>
  Effect.promise(async () => {
    const response = await fetch(url)
    return { status: response.status, body: new Uint8Array(await response.arrayBuffer()), contentType: response.headers.get("content-type") }
  })

const bytes = (text: string) => new TextEncoder().encode(text)
const uniquePrefix = () => `adapter/${Math.random().toString(36).slice(2, 10)}/`

const MiB = 1024 * 1024

/** `length` bytes of a pattern that `seed` varies, so parts and their order can be told apart. */
const filled = (length: number, seed: number) => {
  const data = new Uint8Array(length)
  for (let index = 0; index < length; index++) data[index] = (index * 31 + seed * 7) & 0xff
  return data
}

const concat = (...chunks: ReadonlyArray<Uint8Array>) => {
  const whole = new Uint8Array(chunks.reduce((sum, chunk) => sum + chunk.byteLength, 0))
  let offset = 0
  for (const chunk of chunks) {
    whole.set(chunk, offset)
    offset += chunk.byteLength
  }
  return whole
}

/** A refused completion as `{ reason, partNumber? }`; any other failure as it is. */
const refusal = (error: MultipartRefused | StorageError) =>
  error._tag !== "MultipartRefused"
    ? error
    : error.partNumber === undefined
    ? { reason: error.reason }
    : { reason: error.reason, partNumber: error.partNumber }

const errorName = (cause: unknown) => (cause instanceof Error ? cause.name : undefined)

/** A browser's PUT of one part: the status and the ETag it answers. */
const putPart = (presigned: { readonly url: string; readonly headers: Readonly<Record<string, string>> }, body: Uint8Array) =>
  Effect.promise(async () => {
    const response = await fetch(presigned.url, { method: "PUT", headers: { ...presigned.headers }, body: body as BodyInit })
    await response.arrayBuffer()
    return { status: response.status, etag: response.headers.get("etag") }
  })

objectStoreSuite(
  "S3 (s3rver)",
  Layer.unwrap(Effect.map(TestS3rver, (server) => storeOn(server))).pipe(Layer.provide(TestS3rver.layer())),
  // A presigned PUT signs an exact length or none: S3 cannot cap an undeclared one.
  { put: fetchPut, get: fetchGet, fetchPublic, capsUndeclaredLength: false }
)

describe("S3ObjectStore on s3rver", () => {
  layer(TestS3rver.layer(), { timeout: 60_000, excludeTestServices: true })((it) => {
    it.effect("keys with spaces, reserved characters and unicode round-trip through presign, PUT, head, list and the public URL", () =>
      Effect.gen(function*() {
        const server = yield* TestS3rver
        const prefix = uniquePrefix()
        const keys = [
          `${prefix}a file (1).png`,
          `${prefix}plus+and&eq=%41 it's!.png`,
          `${prefix}über/naïve café.png`,
          `${prefix}日本語 ファイル.txt`
        ]
        yield* Effect.gen(function*() {
          const store = yield* ObjectStore
          for (const key of keys) {
            const contentType = key.endsWith(".txt") ? "text/plain; charset=utf-8" : "image/png"
            const presigned = yield* store.presignPut({ key, contentType, expiresIn: Duration.minutes(5) })
            assert.strictEqual(yield* fetchPut(presigned, bytes(key), presigned.headers), 200, key)
            const info = Option.getOrThrow(yield* store.head(key))
            assert.strictEqual(info.size, bytes(key).byteLength)
            assert.strictEqual(info.contentType, contentType)
            const served = yield* fetchPublic(store.publicUrl(key))
            assert.strictEqual(served.status, 200, store.publicUrl(key))
            assert.strictEqual(new TextDecoder().decode(served.body), key)
          }
          // S3 lists in UTF-8 byte order.
          const sorted = [...keys].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)))
          const page = yield* store.list(prefix)
          assert.deepStrictEqual(page.objects.map((object) => object.key), sorted)
          assert.isUndefined(page.next)
          const rest = yield* store.list(prefix, { after: sorted[1] })
          assert.deepStrictEqual(rest.objects.map((object) => object.key), sorted.slice(2))
          for (const key of keys) yield* store.delete(key)
          assert.deepStrictEqual((yield* store.list(prefix)).objects, [])
        }).pipe(Effect.provide(storeOn(server)))
      }))

    it.effect("a wrong secret is a StorageError, for calls and for presigned PUTs", () =>
      Effect.gen(function*() {
        const server = yield* TestS3rver
        const wrong = storeOn(server, { credentials: { accessKeyId, secretAccessKey: Redacted.make("not the secret") } })
        yield* Effect.gen(function*() {
          const store = yield* ObjectStore
          const key = `${uniquePrefix()}x.png`
          const headError: StorageError = yield* Effect.flip(store.head(key))
          assert.strictEqual(headError._tag, "StorageError")
          assert.strictEqual(headError.operation, "head")
          const checkError: StorageError = yield* Effect.flip(store.check)
          assert.strictEqual(checkError.operation, "check")
          const presigned = yield* store.presignPut({ key, contentType: "image/png", expiresIn: Duration.minutes(5) })
          assert.strictEqual(yield* fetchPut(presigned, bytes("x"), presigned.headers), 403)
        }).pipe(Effect.provide(wrong))
      }))

    it.effect("layerConfig reads the S3_* variables", () =>
      Effect.gen(function*() {
        const server = yield* TestS3rver
        const env = {
          S3_ENDPOINT: server.endpoint,
          S3_BUCKET: server.bucket,
          S3_ACCESS_KEY_ID: accessKeyId,
          S3_SECRET_ACCESS_KEY: Redacted.value(secretAccessKey),
          S3_FORCE_PATH_STYLE: "true",
          S3_PUBLIC_URL: "https://cdn.example.com/media/"
        }
        yield* Effect.gen(function*() {
          const store = yield* ObjectStore
          yield* store.check
          assert.strictEqual(store.publicUrl("a b/c.png"), "https://cdn.example.com/media/a%20b/c.png")
          const key = `${uniquePrefix()}config.png`
          const presigned = yield* store.presignPut({ key, contentType: "image/png", expiresIn: Duration.minutes(5) })
          const signed = new URL(presigned.url)
          assert.strictEqual(`${signed.origin}${signed.pathname}`, `${server.endpoint}/${server.bucket}/${key}`)
          assert.match(signed.searchParams.get("X-Amz-Credential") ?? "", new RegExp(`^${accessKeyId}/\\d{8}/us-east-1/s3/aws4_request$`), "S3_REGION defaults to us-east-1")
          assert.strictEqual(yield* fetchPut(presigned, bytes("c"), presigned.headers), 200)
        }).pipe(Effect.provide(S3ObjectStore.layerConfig.pipe(Layer.provide(ConfigProvider.layer(ConfigProvider.fromEnv({ env }))))))
      }))
  })
})

describe("S3ObjectStore multipart uploads on s3rver", () => {
  // Pages of two: the part and upload listings are read across pages.
  const server = TestS3rver.layer({ listPageSize: 2 })
  const store = Layer.unwrap(Effect.map(TestS3rver, (server) => storeOn(server)))

  layer(Layer.provideMerge(store, server), { timeout: 60_000, excludeTestServices: true })((it) => {
    it.effect("three parts (one uploaded twice) are listed in order, completed, and read back as their concatenation", () =>
      Effect.gen(function*() {
        const store = yield* ObjectStore
        const key = `${uniquePrefix()}lecture.mp4`
        const uploadId = yield* store.createMultipart({ key, contentType: "video/mp4" })
        const parts = [filled(5 * MiB, 1), filled(5 * MiB, 2), filled(1000, 3)] as const
        const sign = (partNumber: number, contentLength: number) =>
          store.presignPart({ key, uploadId, partNumber, contentLength, expiresIn: Duration.minutes(5) })
        const etags = new Map<number, string>()
        // Part 2 first with other bytes (and another length), then again: the second replaces it.
        const first = yield* putPart(yield* sign(2, 6 * MiB), filled(6 * MiB, 9))
        assert.strictEqual(first.status, 200)
        for (const [index, body] of parts.entries()) {
          const presigned = yield* sign(index + 1, body.byteLength)
          assert.deepStrictEqual(presigned.headers, { "Content-Length": String(body.byteLength) })
          const put = yield* putPart(presigned, body)
          assert.strictEqual(put.status, 200)
          etags.set(index + 1, put.etag!)
        }
        assert.notStrictEqual(etags.get(2), first.etag)
        const listed = Option.getOrThrow(yield* store.listParts(key, uploadId))
        assert.deepStrictEqual(listed, [
          { partNumber: 1, size: 5 * MiB, etag: etags.get(1)! },
          { partNumber: 2, size: 5 * MiB, etag: etags.get(2)! },
          { partNumber: 3, size: 1000, etag: etags.get(3)! }
        ])
        assert.isTrue(Option.isNone(yield* store.head(key)), "nothing is readable before completion")
        // One ETag without its quotes: compared as S3 does. (Out of order is refused: the suite.)
        yield* store.completeMultipart(key, uploadId, [
          { partNumber: 1, etag: etags.get(1)!.replace(/"/g, "") },
          { partNumber: 2, etag: etags.get(2)! },
          { partNumber: 3, etag: etags.get(3)! }
        ])
        const info = Option.getOrThrow(yield* store.head(key))
        assert.strictEqual(info.size, 10 * MiB + 1000)
        assert.strictEqual(info.contentType, "video/mp4")
        const read = yield* fetchGet((yield* store.presignGet({ key, expiresIn: Duration.minutes(1) })).url)
        assert.strictEqual(read.status, 200)
        assert.isTrue(Buffer.from(read.body).equals(Buffer.from(concat(...parts))), "the stored bytes are the parts in order")
        // Completed: the upload is gone, and completing again is refused.
        assert.isTrue(Option.isNone(yield* store.listParts(key, uploadId)))
        const again = yield* Effect.flip(store.completeMultipart(key, uploadId, [{ partNumber: 1, etag: etags.get(1)! }]))
        assert.deepStrictEqual(refusal(again), { reason: "NoSuchUpload" })
        yield* store.delete(key)
      }))

    it.effect("complete refuses a wrong ETag, a missing part and a small part but the last, naming the part, and changes nothing", () =>
      Effect.gen(function*() {
        const store = yield* ObjectStore
        const key = `${uniquePrefix()}talk.mp4`
        const uploadId = yield* store.createMultipart({ key, contentType: "video/mp4" })
        const parts = [filled(5 * MiB, 4), filled(100, 5), filled(50, 6)] as const
        const etags: Array<string> = []
        for (const [index, body] of parts.entries()) {
          const presigned = yield* store.presignPart({ key, uploadId, partNumber: index + 1, contentLength: body.byteLength, expiresIn: Duration.minutes(5) })
          const put = yield* putPart(presigned, body)
          assert.strictEqual(put.status, 200)
          etags.push(put.etag!)
        }
        const refused = (named: ReadonlyArray<{ readonly partNumber: number; readonly etag: string }>) =>
          Effect.map(Effect.flip(store.completeMultipart(key, uploadId, named)), refusal)
        assert.deepStrictEqual(
          yield* refused([{ partNumber: 1, etag: etags[0]! }, { partNumber: 2, etag: etags[0]! }]),
          { reason: "InvalidPart", partNumber: 2 }
        )
        assert.deepStrictEqual(
          yield* refused([{ partNumber: 1, etag: etags[0]! }, { partNumber: 4, etag: etags[1]! }]),
          { reason: "InvalidPart", partNumber: 4 }
        )
        assert.deepStrictEqual(
          yield* refused([{ partNumber: 1, etag: etags[0]! }, { partNumber: 2, etag: etags[1]! }, { partNumber: 3, etag: etags[2]! }]),
          { reason: "EntityTooSmall", partNumber: 2 }
        )
        assert.deepStrictEqual(yield* refused([]), { reason: "InvalidPart" })
        // Nothing changed: no object, every part still held.
        assert.isTrue(Option.isNone(yield* store.head(key)))
        assert.deepStrictEqual(
          Option.getOrThrow(yield* store.listParts(key, uploadId)).map((part) => [part.partNumber, part.size]),
          [[1, 5 * MiB], [2, 100], [3, 50]]
        )
        // The upload still completes, with the parts named rightly (a small last part).
        yield* store.completeMultipart(key, uploadId, [{ partNumber: 1, etag: etags[0]! }, { partNumber: 2, etag: etags[1]! }])
        assert.strictEqual(Option.getOrThrow(yield* store.head(key)).size, 5 * MiB + 100)
        const read = yield* fetchGet((yield* store.presignGet({ key, expiresIn: Duration.minutes(1) })).url)
        assert.isTrue(Buffer.from(read.body).equals(Buffer.from(concat(parts[0], parts[1]))))
        yield* store.delete(key)
      }))

    it.effect("a part PUT of another length than signed, or after its URL expired, is refused (403) and stores nothing", () =>
      Effect.gen(function*() {
        const store = yield* ObjectStore
        const key = `${uniquePrefix()}refused.mp4`
        const uploadId = yield* store.createMultipart({ key, contentType: "video/mp4" })
        const signed = yield* store.presignPart({ key, uploadId, partNumber: 1, contentLength: 10, expiresIn: Duration.minutes(5) })
        assert.strictEqual((yield* putPart({ url: signed.url, headers: { "Content-Length": "11" } }, filled(11, 1))).status, 403)
        assert.strictEqual((yield* putPart({ url: signed.url, headers: { "Content-Length": "9" } }, filled(9, 1))).status, 403)
        const brief = yield* store.presignPart({ key, uploadId, partNumber: 2, contentLength: 10, expiresIn: Duration.seconds(1) })
        yield* Effect.sleep(Duration.millis(DateTime.toEpochMillis(brief.expiresAt) - Date.now() + 50))
        assert.strictEqual((yield* putPart(brief, filled(10, 2))).status, 403)
        assert.deepStrictEqual(yield* store.listParts(key, uploadId), Option.some([]))
        // The URL itself was good.
        assert.strictEqual((yield* putPart(signed, filled(10, 1))).status, 200)
        assert.deepStrictEqual(Option.getOrThrow(yield* store.listParts(key, uploadId)).map((part) => part.size), [10])
        yield* store.abortMultipart(key, uploadId)
      }))

    it.effect("abort ends the upload: listParts is None, complete NoSuchUpload, a part PUT 404, and aborting again succeeds", () =>
      Effect.gen(function*() {
        const store = yield* ObjectStore
        const key = `${uniquePrefix()}aborted.mp4`
        const uploadId = yield* store.createMultipart({ key, contentType: "video/mp4" })
        const presigned = yield* store.presignPart({ key, uploadId, partNumber: 1, contentLength: 10, expiresIn: Duration.minutes(5) })
        const put = yield* putPart(presigned, filled(10, 1))
        assert.strictEqual(put.status, 200)
        yield* store.abortMultipart(key, uploadId)
        assert.isTrue(Option.isNone(yield* store.listParts(key, uploadId)))
        const refused = yield* Effect.flip(store.completeMultipart(key, uploadId, [{ partNumber: 1, etag: put.etag! }]))
        assert.deepStrictEqual(refusal(refused), { reason: "NoSuchUpload" })
        assert.strictEqual((yield* putPart(presigned, filled(10, 1))).status, 404)
        yield* store.abortMultipart(key, uploadId)
        yield* store.abortMultipart(key, "0123456789abcdef0123456789abcdef")
        assert.isTrue(Option.isNone(yield* store.head(key)))
      }))

    it.effect("an upload id is its key's: listed, completed or aborted under another key it is not there", () =>
      Effect.gen(function*() {
        const store = yield* ObjectStore
        const prefix = uniquePrefix()
        const uploadId = yield* store.createMultipart({ key: `${prefix}a.mp4`, contentType: "video/mp4" })
        assert.isTrue(Option.isNone(yield* store.listParts(`${prefix}b.mp4`, uploadId)))
        const refused = yield* Effect.flip(store.completeMultipart(`${prefix}b.mp4`, uploadId, [{ partNumber: 1, etag: "\"x\"" }]))
        assert.deepStrictEqual(refusal(refused), { reason: "NoSuchUpload" })
        yield* store.abortMultipart(`${prefix}b.mp4`, uploadId)
        assert.deepStrictEqual(yield* store.listParts(`${prefix}a.mp4`, uploadId), Option.some([]))
        yield* store.abortMultipart(`${prefix}a.mp4`, uploadId)
      }))

    it.effect("the front refuses what S3 refuses at CompleteMultipartUpload, with S3's codes, when asked directly", () =>
      Effect.gen(function*() {
        const server = yield* TestS3rver
        const { CompleteMultipartUploadCommand, S3Client } = yield* Effect.promise(() => import("@aws-sdk/client-s3"))
        const client = yield* Effect.acquireRelease(
          Effect.sync(() =>
            new S3Client({
              endpoint: server.endpoint,
              region: "us-east-1",
              forcePathStyle: true,
              credentials: { accessKeyId, secretAccessKey: Redacted.value(secretAccessKey) }
            })
          ),
          (client) => Effect.sync(() => client.destroy())
        )
        const store = yield* ObjectStore
        const key = `${uniquePrefix()}direct.mp4`
        const uploadId = yield* store.createMultipart({ key, contentType: "video/mp4" })
        const etags: Array<string> = []
        for (const [index, length] of [100, 50].entries()) {
          const put = yield* putPart(yield* store.presignPart({ key, uploadId, partNumber: index + 1, contentLength: length, expiresIn: Duration.minutes(5) }), filled(length, index))
          etags.push(put.etag!)
        }
        const complete = (parts: ReadonlyArray<{ readonly PartNumber: number; readonly ETag: string }>, id = uploadId) =>
          Effect.promise(() =>
            client.send(new CompleteMultipartUploadCommand({ Bucket: server.bucket, Key: key, UploadId: id, MultipartUpload: { Parts: [...parts] } })).then(
              () => "completed",
              (error: { name: string; $metadata: { httpStatusCode?: number } }) => `${error.$metadata.httpStatusCode} ${error.name}`
            )
          )
        assert.strictEqual(yield* complete([{ PartNumber: 1, ETag: etags[1]! }]), "400 InvalidPart")
        assert.strictEqual(yield* complete([{ PartNumber: 1, ETag: etags[0]! }, { PartNumber: 3, ETag: etags[1]! }]), "400 InvalidPart")
        assert.strictEqual(yield* complete([{ PartNumber: 2, ETag: etags[1]! }, { PartNumber: 1, ETag: etags[0]! }]), "400 InvalidPartOrder")
        assert.strictEqual(yield* complete([{ PartNumber: 1, ETag: etags[0]! }, { PartNumber: 2, ETag: etags[1]! }]), "400 EntityTooSmall")
        assert.strictEqual(yield* complete([{ PartNumber: 1, ETag: etags[0]! }], "0123456789abcdef0123456789abcdef"), "404 NoSuchUpload")
        assert.strictEqual(yield* complete([{ PartNumber: 2, ETag: etags[1]! }]), "completed")
        assert.strictEqual(Option.getOrThrow(yield* store.head(key)).size, 50)
        yield* store.delete(key)
      }))

    it.effect("a Complete that S3 answers 200 with an error in the body fails with a StorageError, and the upload stays", () =>
      Effect.gen(function*() {
        const store = yield* ObjectStore
        const key = `${uniquePrefix()}${answers200WithError}.mp4`
        const uploadId = yield* store.createMultipart({ key, contentType: "video/mp4" })
        const put = yield* putPart(yield* store.presignPart({ key, uploadId, partNumber: 1, contentLength: 10, expiresIn: Duration.minutes(5) }), filled(10, 1))
        const error = yield* Effect.flip(store.completeMultipart(key, uploadId, [{ partNumber: 1, etag: put.etag! }]))
        assert.strictEqual(error._tag, "StorageError")
        assert.strictEqual(error._tag === "StorageError" && errorName(error.cause), "InternalError")
        assert.isTrue(Option.isNone(yield* store.head(key)))
        assert.strictEqual(Option.getOrThrow(yield* store.listParts(key, uploadId)).length, 1)
        yield* store.abortMultipart(key, uploadId)
      }))

    it.effect("removeIncomplete aborts the uploads under the service's prefixes started and last written before `before`, and keeps the others", () =>
      Effect.gen(function*() {
        const store = yield* ObjectStore
        const unique = uniquePrefix()
        const start = (key: string) => Effect.map(store.createMultipart({ key, contentType: "video/mp4" }), (uploadId) => ({ key, uploadId }))
        const writePart = (upload: { readonly key: string; readonly uploadId: string }) =>
          Effect.gen(function*() {
            const presigned = yield* store.presignPart({ ...upload, partNumber: 1, contentLength: 10, expiresIn: Duration.minutes(5) })
            assert.strictEqual((yield* putPart(presigned, filled(10, 1))).status, 200)
          })
        // Abandoned under each of the service's prefixes (one with a part; three under
        // media/, over two listing pages); one started as long ago but written to since;
        // one started since.
        const abandoned = [
          yield* start(`media/${unique}old-1.mp4`),
          yield* start(`media/${unique}old-2.mp4`),
          yield* start(`media/${unique}old-3.mp4`),
          yield* start(`private/media/${unique}old.mp4`),
          yield* start(`courses/7/${unique}old.png`)
        ]
        yield* writePart(abandoned[1]!)
        // As old and idle, but another application's, elsewhere in the bucket.
        const others = [yield* start(`${unique}other-app.mp4`), yield* start(`private/${unique}other-app.mp4`), yield* start(`mediafiles/${unique}x.mp4`)]
        const active = yield* start(`media/${unique}old-but-active.mp4`)
        // File times are coarse (a clock tick): keep well clear of `before`.
        yield* Effect.sleep(Duration.millis(100))
        const before = yield* DateTime.now
        yield* Effect.sleep(Duration.millis(100))
        yield* writePart(active)
        const recent = yield* start(`media/${unique}recent.mp4`)
        assert.strictEqual(yield* store.removeIncomplete(before), 5)
        for (const upload of abandoned) assert.isTrue(Option.isNone(yield* store.listParts(upload.key, upload.uploadId)), upload.key)
        for (const upload of others) assert.deepStrictEqual(yield* store.listParts(upload.key, upload.uploadId), Option.some([]), upload.key)
        assert.strictEqual(Option.getOrThrow(yield* store.listParts(active.key, active.uploadId)).length, 1)
        assert.deepStrictEqual(yield* store.listParts(recent.key, recent.uploadId), Option.some([]))
        assert.strictEqual(yield* store.removeIncomplete(before), 0)
        for (const upload of [...others, active, recent]) yield* store.abortMultipart(upload.key, upload.uploadId)
      }).pipe(Effect.provide(Layer.unwrap(Effect.map(TestS3rver, (server) => storeOn(server))).pipe(Layer.provide(TestS3rver.layer({ listPageSize: 2 }))))))
  })
})

describe("S3ObjectStore", () => {
  const offline = S3ObjectStore.layer({
    endpoint: "http://127.0.0.1:9",
    region: "eu-central-1",
    bucket: "media",
    credentials: { accessKeyId: "AKIDEXAMPLE", secretAccessKey: Redacted.make("secret") },
    forcePathStyle: true,
    timeout: Duration.seconds(2)
  })

  it.effect("a presigned PUT signs the content type (and length), carries no SDK checksum, and expires at expiresAt", () =>
    Effect.gen(function*() {
      const store = yield* ObjectStore
      // The test clock: the URL is signed at the Effect clock's now.
      yield* TestClock.setTime(Date.UTC(2030, 0, 1, 12, 0, 0, 750))
      const sized = yield* store.presignPut({ key: "a b/c.png", contentType: "image/png", contentLength: 5, expiresIn: Duration.minutes(10) })
      const url = new URL(sized.url)
      assert.strictEqual(`${url.origin}${url.pathname}`, "http://127.0.0.1:9/media/a%20b/c.png")
      assert.strictEqual(url.searchParams.get("X-Amz-SignedHeaders"), "content-length;content-type;host")
      assert.strictEqual(url.searchParams.get("X-Amz-Date"), "20300101T120000Z")
      assert.strictEqual(url.searchParams.get("X-Amz-Expires"), "600")
      assert.strictEqual(DateTime.formatIso(sized.expiresAt), "2030-01-01T12:10:00.000Z")
      assert.deepStrictEqual(sized.headers, { "Content-Type": "image/png", "Content-Length": "5" })
      // Since SDK 3.729 a presigned PUT would carry a CRC32 of the empty body, which S3 checks against the upload.
      const checksumParameters = [...url.searchParams.keys()].filter((name) => /checksum/i.test(name))
      assert.deepStrictEqual(checksumParameters, [])

      const unsized = yield* store.presignPut({ key: "k.png", contentType: "image/png", expiresIn: Duration.seconds(90.9) })
      const unsizedUrl = new URL(unsized.url)
      assert.strictEqual(unsizedUrl.searchParams.get("X-Amz-SignedHeaders"), "content-type;host")
      assert.strictEqual(unsizedUrl.searchParams.get("X-Amz-Expires"), "90")
      assert.deepStrictEqual(unsized.headers, { "Content-Type": "image/png" })
    }).pipe(Effect.provide(offline)))

  it.effect("a presigned GET signs the private caching it makes the store answer, at the clock's now, in whole seconds, and expires at expiresAt", () =>
    Effect.gen(function*() {
      const store = yield* ObjectStore
      yield* TestClock.setTime(Date.UTC(2030, 0, 1, 12, 0, 0, 750))
      const signed = yield* store.presignGet({ key: "private/a b/c.mp4", expiresIn: Duration.seconds(600.9) })
      const url = new URL(signed.url)
      assert.strictEqual(`${url.origin}${url.pathname}`, "http://127.0.0.1:9/media/private/a%20b/c.mp4")
      assert.strictEqual(url.searchParams.get("response-cache-control"), "private, max-age=600")
      assert.strictEqual(url.searchParams.get("X-Amz-SignedHeaders"), "host")
      assert.strictEqual(url.searchParams.get("X-Amz-Date"), "20300101T120000Z")
      assert.strictEqual(url.searchParams.get("X-Amz-Expires"), "600")
      assert.strictEqual(DateTime.formatIso(signed.expiresAt), "2030-01-01T12:10:00.000Z")
      assert.deepStrictEqual([...url.searchParams.keys()].filter((name) => /checksum/i.test(name)), [])
    }).pipe(Effect.provide(offline)))

  it.effect("a presigned part PUT signs its length (no content type), carries no SDK checksum, and expires at expiresAt", () =>
    Effect.gen(function*() {
      const store = yield* ObjectStore
      yield* TestClock.setTime(Date.UTC(2030, 0, 1, 12, 0, 0, 750))
      const part = yield* store.presignPart({ key: "a b/c.mp4", uploadId: "upload-1", partNumber: 7, contentLength: 5_242_880, expiresIn: Duration.seconds(300.5) })
      const url = new URL(part.url)
      assert.strictEqual(`${url.origin}${url.pathname}`, "http://127.0.0.1:9/media/a%20b/c.mp4")
      assert.strictEqual(url.searchParams.get("uploadId"), "upload-1")
      assert.strictEqual(url.searchParams.get("partNumber"), "7")
      assert.strictEqual(url.searchParams.get("X-Amz-SignedHeaders"), "content-length;host")
      assert.strictEqual(url.searchParams.get("X-Amz-Date"), "20300101T120000Z")
      assert.strictEqual(url.searchParams.get("X-Amz-Expires"), "300")
      assert.strictEqual(DateTime.formatIso(part.expiresAt), "2030-01-01T12:05:00.000Z")
      assert.deepStrictEqual(part.headers, { "Content-Length": "5242880" })
      assert.deepStrictEqual([...url.searchParams.keys()].filter((name) => /checksum/i.test(name)), [])
    }).pipe(Effect.provide(offline)))

  it.effect("presignPart refuses part numbers, lengths and expiries S3 cannot take", () =>
    Effect.gen(function*() {
      const store = yield* ObjectStore
      const good = { key: "k", uploadId: "u", partNumber: 1, contentLength: 10, expiresIn: Duration.minutes(1) }
      for (const request of [
        { ...good, partNumber: 0 },
        { ...good, partNumber: 10_001 },
        { ...good, partNumber: 1.5 },
        { ...good, contentLength: -1 },
        { ...good, contentLength: 2.5 },
        { ...good, expiresIn: Duration.millis(500) },
        { ...good, expiresIn: Duration.days(8) }
      ]) {
        const error = yield* Effect.flip(store.presignPart(request))
        assert.strictEqual(error.operation, "presignPart", JSON.stringify(request))
      }
      yield* store.presignPart({ ...good, partNumber: 10_000 })
    }).pipe(Effect.provide(offline)))

  it.effect("presignGet refuses expiries S3 cannot sign", () =>
    Effect.gen(function*() {
      const store = yield* ObjectStore
      for (const expiresIn of [Duration.millis(999), Duration.days(7).pipe(Duration.sum(Duration.seconds(1)))]) {
        const error = yield* Effect.flip(store.presignGet({ key: "private/k.mp4", expiresIn }))
        assert.strictEqual(error.operation, "presignGet")
        assert.match(String(error.cause), /outside 1 second to 7 days/)
      }
      const longest = yield* store.presignGet({ key: "private/k.mp4", expiresIn: Duration.days(7) })
      assert.strictEqual(new URL(longest.url).searchParams.get("X-Amz-Expires"), "604800")
    }).pipe(Effect.provide(offline)))

  it.effect("presignPut refuses expiries S3 cannot sign and lengths that are no byte counts", () =>
    Effect.gen(function*() {
      const store = yield* ObjectStore
      for (const request of [
        { key: "k", contentType: "image/png", expiresIn: Duration.millis(500) },
        { key: "k", contentType: "image/png", expiresIn: Duration.days(8) },
        { key: "k", contentType: "image/png", contentLength: -1, expiresIn: Duration.minutes(1) },
        { key: "k", contentType: "image/png", contentLength: 1.5, expiresIn: Duration.minutes(1) }
      ]) {
        const error = yield* Effect.flip(store.presignPut(request))
        assert.strictEqual(error.operation, "presignPut")
      }
    }).pipe(Effect.provide(offline)))

  it.effect("publicUrl: the bucket URL for the endpoint and addressing style, or publicBaseUrl", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<readonly [S3ObjectStore.Options, string]> = [
        [{ region: "eu-central-1", bucket: "media" }, "https://media.s3.eu-central-1.amazonaws.com/a%20b/%C3%BC.png"],
        [{ endpoint: "http://127.0.0.1:9000/", region: "us-east-1", bucket: "media", forcePathStyle: true }, "http://127.0.0.1:9000/media/a%20b/%C3%BC.png"],
        [{ endpoint: "https://acct.r2.cloudflarestorage.com", region: "auto", bucket: "media" }, "https://media.acct.r2.cloudflarestorage.com/a%20b/%C3%BC.png"],
        [{ region: "auto", bucket: "media", publicBaseUrl: "https://files.example.com/c/" }, "https://files.example.com/c/a%20b/%C3%BC.png"]
      ]
      for (const [options, expected] of cases) {
        const url = yield* Effect.provide(ObjectStore.useSync((store) => store.publicUrl("a b/ü.png")), S3ObjectStore.layer(options))
        assert.strictEqual(url, expected)
      }
    }))

  it.effect("bucketUrl's origin is where presigned uploads, parts and reads go, for AWS, a virtual-hosted endpoint and a path-style one", () =>
    Effect.gen(function*() {
      const credentials = { accessKeyId: "AKIDEXAMPLE", secretAccessKey: Redacted.make("secret") }
      const cases: ReadonlyArray<readonly [S3ObjectStore.Options, string]> = [
        [{ region: "eu-central-1", bucket: "media", credentials }, "https://media.s3.eu-central-1.amazonaws.com"],
        [{ region: "us-east-1", bucket: "media", credentials }, "https://media.s3.us-east-1.amazonaws.com"],
        [{ endpoint: "https://acct.r2.cloudflarestorage.com", region: "auto", bucket: "media", credentials }, "https://media.acct.r2.cloudflarestorage.com"],
        [{ endpoint: "http://127.0.0.1:9000", region: "us-east-1", bucket: "media", forcePathStyle: true, credentials }, "http://127.0.0.1:9000"]
      ]
      for (const [options, origin] of cases) {
        assert.strictEqual(new URL(S3ObjectStore.bucketUrl(options)).origin, origin)
        const signed = yield* Effect.gen(function*() {
          const store = yield* ObjectStore
          const put = yield* store.presignPut({ key: "k.png", contentType: "image/png", expiresIn: Duration.minutes(5) })
          const part = yield* store.presignPart({ key: "k.mp4", uploadId: "u", partNumber: 1, contentLength: 5, expiresIn: Duration.minutes(5) })
          const get = yield* store.presignGet({ key: "private/k.mp4", expiresIn: Duration.minutes(5) })
          return [put.url, part.url, get.url].map((url) => new URL(url).origin)
        }).pipe(Effect.provide(S3ObjectStore.layer(options)))
        assert.deepStrictEqual(signed, [origin, origin, origin], JSON.stringify(options))
      }
    }))

  it.effect("unusable options fail the layer with a StorageError", () =>
    Effect.gen(function*() {
      for (const options of [
        { endpoint: "not a url", region: "us-east-1", bucket: "media" },
        { region: "us-east-1", bucket: "media", publicBaseUrl: "/relative" },
        { region: "us-east-1", bucket: "" }
      ]) {
        const error = yield* Effect.flip(Effect.provide(ObjectStore, S3ObjectStore.layer(options)))
        assert.strictEqual(error.operation, "start")
      }
    }))

  it.effect("layerConfig wants both keys or neither, and a bucket", () =>
    Effect.gen(function*() {
      const build = (env: Record<string, string>) =>
        Effect.exit(Effect.provide(
          ObjectStore,
          S3ObjectStore.layerConfig.pipe(Layer.provide(ConfigProvider.layer(ConfigProvider.fromEnv({ env }))))
        ))
      const halfKey = yield* build({ S3_BUCKET: "media", S3_ACCESS_KEY_ID: "AKID" })
      assert.strictEqual(String(halfKey), `Failure(Cause([Fail(ConfigError(SchemaError(Expected string\n  at ["S3_SECRET_ACCESS_KEY"])))]))`)
      const halfSecret = yield* build({ S3_BUCKET: "media", S3_SECRET_ACCESS_KEY: "secret" })
      assert.strictEqual(String(halfSecret), `Failure(Cause([Fail(ConfigError(SchemaError(Expected string\n  at ["S3_ACCESS_KEY_ID"])))]))`)
      const noBucket = yield* build({})
      assert.strictEqual(String(noBucket), `Failure(Cause([Fail(ConfigError(SchemaError(Expected string\n  at ["S3_BUCKET"])))]))`)
      // Neither key: the SDK's default chain, resolved on first use, so the layer builds.
      const neither = yield* build({ S3_BUCKET: "media", S3_ENDPOINT: "http://127.0.0.1:9" })
      assert.strictEqual(neither._tag, "Success", String(neither))
    }))

  it.live("an unreachable store fails with a StorageError, quickly; presigning needs no network", () =>
    Effect.gen(function*() {
      const store = yield* ObjectStore
      const started = Date.now()
      const calls: ReadonlyArray<readonly [string, Effect.Effect<unknown, StorageError | MultipartRefused>]> = [
        ["head", store.head("k")],
        ["check", store.check],
        ["delete", store.delete("k")],
        ["list", store.list("p/")],
        ["createMultipart", store.createMultipart({ key: "k", contentType: "video/mp4" })],
        ["listParts", store.listParts("k", "u")],
        ["completeMultipart", store.completeMultipart("k", "u", [{ partNumber: 1, etag: "\"e\"" }])],
        ["abortMultipart", store.abortMultipart("k", "u")],
        ["removeIncomplete", store.removeIncomplete(DateTime.makeUnsafe(0))]
      ]
      for (const [operation, call] of calls) {
        const error = yield* Effect.flip(call)
        assert.strictEqual(error._tag === "StorageError" ? error.operation : error._tag, operation)
      }
      assert.isBelow(Date.now() - started, 8_000)
      yield* store.presignPut({ key: "k", contentType: "image/png", expiresIn: Duration.minutes(1) })
    }).pipe(Effect.provide(offline)))

  it.live("completing is bounded by completeTimeout, not the timeout of other calls", () =>
    Effect.gen(function*() {
      // Answers ListParts (one part) at once and never answers CompleteMultipartUpload.
      const hanging = new Set<http.ServerResponse>()
      const server = yield* Effect.acquireRelease(
        Effect.callback<http.Server>((resume) => {
          const server = http.createServer((request, response) => {
            if (request.method === "POST") return void hanging.add(response)
            const body = `<?xml version="1.0" encoding="UTF-8"?>\n<ListPartsResult><IsTruncated>false</IsTruncated>` +
              `<Part><PartNumber>1</PartNumber><ETag>"e"</ETag><Size>10</Size></Part></ListPartsResult>`
            response.writeHead(200, { "Content-Type": "application/xml" }).end(body)
          })
          server.listen(0, "127.0.0.1", () => resume(Effect.succeed(server)))
        }),
        (server) =>
          Effect.callback<void>((resume) => {
            for (const response of hanging) response.destroy()
            server.close(() => resume(Effect.void))
            server.closeAllConnections()
          })
      )
      const { port } = server.address() as net.AddressInfo
      const started = Date.now()
      const error = yield* Effect.flip(Effect.provide(
        ObjectStore.use((store) => store.completeMultipart("k", "u", [{ partNumber: 1, etag: "\"e\"" }])),
        S3ObjectStore.layer({
          endpoint: `http://127.0.0.1:${port}`,
          region: "us-east-1",
          bucket: "media",
          credentials: { accessKeyId, secretAccessKey },
          forcePathStyle: true,
          timeout: Duration.millis(300),
          completeTimeout: Duration.millis(1500)
        })
      ))
      assert.strictEqual(error._tag === "StorageError" && error.operation, "completeMultipart")
      assert.match(String(error._tag === "StorageError" && error.cause), /No answer from the store within 1s 500ms/)
      const elapsed = Date.now() - started
      assert.isAtLeast(elapsed, 1_500)
      assert.isBelow(elapsed, 4_000)
    }))

  it.live("a store that accepts connections but never answers fails with a StorageError after the timeout", () =>
    Effect.gen(function*() {
      const sockets = new Set<net.Socket>()
      const silent = yield* Effect.acquireRelease(
        Effect.callback<net.Server>((resume) => {
          const server = net.createServer((socket) => {
            sockets.add(socket)
            socket.on("close", () => sockets.delete(socket))
          })
          server.listen(0, "127.0.0.1", () => resume(Effect.succeed(server)))
        }),
        (server) =>
          Effect.callback<void>((resume) => {
            for (const socket of sockets) socket.destroy()
            server.close(() => resume(Effect.void))
          })
      )
      const { port } = silent.address() as net.AddressInfo
      const started = Date.now()
      const error = yield* Effect.flip(Effect.provide(
        ObjectStore.use((store) => store.head("k")),
        S3ObjectStore.layer({
          endpoint: `http://127.0.0.1:${port}`,
          region: "us-east-1",
          bucket: "media",
          credentials: { accessKeyId, secretAccessKey },
          forcePathStyle: true,
          timeout: Duration.millis(500)
        })
      ))
      assert.strictEqual(error.operation, "head")
      assert.match(String(error.cause), /No answer from the store within/)
      assert.isBelow(Date.now() - started, 3_000)
    }))
})
