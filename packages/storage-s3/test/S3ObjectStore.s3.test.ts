import { ObjectStore, type StorageError } from "@coursekit/core"
import { fetchGet, fetchPut, objectStoreSuite } from "@coursekit/core/testing"
import { assert, describe, it, layer } from "@effect/vitest"
import { ConfigProvider, DateTime, Duration, Effect, Layer, Option, Redacted } from "effect"
import { TestClock } from "effect/testing"
import * as net from "node:net"
import * as S3ObjectStore from "../src/S3ObjectStore.ts"
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
      const calls: ReadonlyArray<readonly [string, Effect.Effect<unknown, StorageError>]> = [
        ["head", store.head("k")],
        ["check", store.check],
        ["delete", store.delete("k")],
        ["list", store.list("p/")]
      ]
      for (const [operation, call] of calls) {
        const error = yield* Effect.flip(call)
        assert.strictEqual(error.operation, operation)
      }
      assert.isBelow(Date.now() - started, 8_000)
      yield* store.presignPut({ key: "k", contentType: "image/png", expiresIn: Duration.minutes(1) })
    }).pipe(Effect.provide(offline)))

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
