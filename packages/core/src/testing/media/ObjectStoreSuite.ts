/**
 * The conformance suite every `ObjectStore` adapter runs. The suite plays the client
 * itself: it PUTs bytes to the presigned URLs through `put` and reads signed URLs through
 * `get`, which for a real adapter are real HTTP requests (`fetchPut`, `fetchGet`). Every
 * test works under its own random prefix, so adapters can share one bucket or directory
 * across tests.
 *
 * @since 0.1.0
 */
import { assert, describe, layer } from "@effect/vitest"
import { DateTime, Duration, Effect, Exit, type Layer, Option } from "effect"
import { type CompletedPart, maxPartCount, minPartSize, ObjectStore, type PresignedPut, privateKeyPrefix, type StorageError } from "../../media/ObjectStore.ts"
import type { MultipartRefused } from "../../media/ObjectStore.ts"

/** Plays a client's PUT of `body` to a presigned URL; answers the HTTP status. */
export type ClientPut = (
  presigned: PresignedPut,
  body: Uint8Array,
  headers: Readonly<Record<string, string>>
) => Effect.Effect<number>

/** A client PUT over HTTP with `fetch`. */
export const fetchPut: ClientPut = (presigned, body, headers) =>
  Effect.promise(async () => {
    const response = await fetch(presigned.url, { method: "PUT", headers: { ...headers }, body: body as BodyInit })
    await response.arrayBuffer()
    return response.status
  })

/** A store's answer to the PUT of a part: its status and `ETag` header (quotes included). */
export interface ClientPutPartReply {
  readonly status: number
  readonly etag: string | undefined
}

/** Plays a client's PUT of a part to a URL from `presignPart`. */
export type ClientPutPart = (
  presigned: PresignedPut,
  body: Uint8Array,
  headers: Readonly<Record<string, string>>
) => Effect.Effect<ClientPutPartReply>

/**
 * A client PUT of a part over HTTP with `fetch`. Node's `fetch` reads every header; a
 * browser on another origin reads `ETag` only when the store exposes it (CORS
 * `Access-Control-Expose-Headers: ETag`).
 */
export const fetchPutPart: ClientPutPart = (presigned, body, headers) =>
  Effect.promise(async () => {
    const response = await fetch(presigned.url, { method: "PUT", headers: { ...headers }, body: body as BodyInit })
    await response.arrayBuffer()
    return { status: response.status, etag: response.headers.get("etag") ?? undefined }
  })

/** A store's answer to a GET, read whole. */
export interface ClientGetReply {
  readonly status: number
  /** Names in lower case; empty for a store that does not answer over HTTP (the memory store). */
  readonly headers: Readonly<Record<string, string>>
  readonly body: Uint8Array
}

/** Plays a client's GET of `url` with the request `headers` (`Range`, …). */
export type ClientGet = (url: string, headers?: Readonly<Record<string, string>>) => Effect.Effect<ClientGetReply>

/** A client GET over HTTP with `fetch`. */
export const fetchGet: ClientGet = (url, headers = {}) =>
  Effect.promise(async () => {
    const response = await fetch(url, { headers: { ...headers } })
    return {
      status: response.status,
      headers: Object.fromEntries(response.headers),
      body: new Uint8Array(await response.arrayBuffer())
    }
  })

/**
 * `url` with the value of its first query parameter whose name matches `name` changed;
 * the rest of the URL stays byte for byte as issued (re-serializing the whole query
 * could change other parameters' encoding and break the signature for another reason).
 */
const withParameter = (url: string, name: RegExp, change: (value: string) => string): string => {
  const question = url.indexOf("?")
  const pairs = question === -1 ? [] : url.slice(question + 1).split("&")
  const index = pairs.findIndex((pair) => name.test(decodeURIComponent(pair.split("=")[0]!)))
  assert.isAtLeast(index, 0, `the signed URL ${url} has no query parameter matching ${name}`)
  const [key, ...value] = pairs[index]!.split("=")
  pairs[index] = `${key}=${encodeURIComponent(change(decodeURIComponent(value.join("="))))}`
  return `${url.slice(0, question)}?${pairs.join("&")}`
}

/** The path of `target` with the query of `source`: another key's URL signed for this one. */
const withQueryOf = (target: string, source: string): string => {
  const question = (url: string) => url.indexOf("?") === -1 ? url.length : url.indexOf("?")
  return target.slice(0, question(target)) + source.slice(question(source))
}

/** `size` bytes that depend on `seed` and the position: every part different, the same on every run. */
const patterned = (seed: number, size: number): Uint8Array => {
  const out = new Uint8Array(size)
  for (let i = 0; i < size; i++) out[i] = (i * 31 + seed * 101 + (i >>> 8)) & 0xff
  return out
}

const concatenated = (parts: ReadonlyArray<Uint8Array>): Uint8Array => {
  const out = new Uint8Array(parts.reduce((total, part) => total + part.byteLength, 0))
  let offset = 0
  for (const part of parts) {
    out.set(part, offset)
    offset += part.byteLength
  }
  return out
}

/** The first index where `a` and `b` differ (a length counts), or -1: a readable failure for megabytes. */
const firstDifference = (a: Uint8Array, b: Uint8Array): number => {
  const shorter = Math.min(a.byteLength, b.byteLength)
  for (let i = 0; i < shorter; i++) if (a[i] !== b[i]) return i
  return a.byteLength === b.byteLength ? -1 : shorter
}

/** A refusal as plain data, for exact assertions: `[tag, reason, partNumber]`. */
const refusal = (error: StorageError | MultipartRefused) =>
  error._tag === "MultipartRefused" ? [error._tag, error.reason, error.partNumber] : [error._tag, error.operation]

const uniquePrefix = () => `conformance/${Math.random().toString(36).slice(2, 10)}/`
const bytes = (text: string) => new TextEncoder().encode(text)

/** The HTTP status a store answers each refused PUT with. */
export interface RefusedPutStatuses {
  /** A Content-Type other than the signed one. */
  readonly wrongType: number
  /** A body of another size than the signed `contentLength` (of an object or of a part). */
  readonly wrongLength: number
  /** A body over `maxLength`, with no length signed (by a store that caps it). */
  readonly overMaxLength: number
  /** A URL past its expiry (of an object or of a part). */
  readonly expired: number
}

/** What S3 answers (and the memory store's answers mapped to statuses): 403 for what the signature or expiry refuses, 413 over the cap. */
const s3RefusedPutStatuses: RefusedPutStatuses = { wrongType: 403, wrongLength: 403, overMaxLength: 413, expired: 403 }

export interface ObjectStoreSuiteOptions<R> {
  /** How the suite PUTs to presigned URLs (it may use the layer's other services). */
  readonly put: ClientPut | Effect.Effect<ClientPut, never, R>
  /** How the suite PUTs parts of multipart uploads, reading their `ETag`: default {@link fetchPutPart}. */
  readonly putPart?: ClientPutPart | Effect.Effect<ClientPutPart, never, R> | undefined
  /**
   * Whether a PUT of undeclared length is capped at `maxLength` (default true). Only a
   * store that cannot cap it says false — S3's presigned PUT signs an exact length or
   * none — and the use cases' finalize check is then the limit.
   */
  readonly capsUndeclaredLength?: boolean | undefined
  /** The statuses of refused PUTs where this store's differ from S3's (403, 403, 413, 403). */
  readonly refusedWith?: Partial<RefusedPutStatuses> | undefined
  /** Reads what `publicUrl(key)` serves, when the adapter serves files (else skipped). */
  readonly fetchPublic?: ((url: string) => Effect.Effect<{ status: number; body: Uint8Array; contentType: string | null }>) | undefined
  /** How the suite GETs signed URLs (it may use the layer's other services): `fetchGet` for a store on HTTP. */
  readonly get: ClientGet | Effect.Effect<ClientGet, never, R>
  /**
   * Whether `get` speaks HTTP (default true): then a signed GET's `Cache-Control`,
   * `Content-Type` and single `Range` requests are checked too. Only the memory store,
   * whose `get` answers an outcome and bytes, says false.
   */
  readonly answersHttp?: boolean | undefined
  /**
   * The names of the signed URL's query parameters the suite changes to forge one, where
   * they match neither `/signature/i` nor `/expires/i` (S3's `X-Amz-Signature` and
   * `X-Amz-Expires` do, as do the local store's `signature` and `expires`).
   */
  readonly signedParameters?: { readonly signature: string; readonly expires: string } | undefined
}

/**
 * Registers the `ObjectStore` conformance tests for `storeLayer` under `name`.
 * The layer is built once for the whole suite.
 */
export const objectStoreSuite = <E, R = never>(
  name: string,
  storeLayer: Layer.Layer<ObjectStore | R, E>,
  options: ObjectStoreSuiteOptions<R>
): void => {
  const clientPut: Effect.Effect<ClientPut, never, R> = Effect.isEffect(options.put) ? options.put : Effect.succeed(options.put)
  const upload = (presigned: PresignedPut, body: Uint8Array, headers: Readonly<Record<string, string>> = presigned.headers) =>
    Effect.flatMap(clientPut, (put) => put(presigned, body, headers))
  const refusedWith: RefusedPutStatuses = { ...s3RefusedPutStatuses, ...options.refusedWith }
  const putPartOption = options.putPart ?? fetchPutPart
  const clientPutPart: Effect.Effect<ClientPutPart, never, R> = Effect.isEffect(putPartOption) ? putPartOption : Effect.succeed(putPartOption)
  /** Signs part `partNumber` of `uploadId` for `body` and PUTs it; the store's answer. */
  const putPart = (key: string, uploadId: string, partNumber: number, body: Uint8Array) =>
    Effect.gen(function*() {
      const store = yield* ObjectStore
      const presigned = yield* store.presignPart({ key, uploadId, partNumber, contentLength: body.byteLength, expiresIn: Duration.minutes(5) })
      return yield* Effect.flatMap(clientPutPart, (put) => put(presigned, body, presigned.headers))
    })
  /** PUTs a part that must land; its ETag. */
  const storedPart = (key: string, uploadId: string, partNumber: number, body: Uint8Array) =>
    Effect.gen(function*() {
      const reply = yield* putPart(key, uploadId, partNumber, body)
      assert.strictEqual(reply.status, 200, `PUT part ${partNumber} of ${key}`)
      assert.match(reply.etag ?? "", /^"[^"]+"$/, `the ETag of part ${partNumber}`)
      return reply.etag!
    })
  const clientGet: Effect.Effect<ClientGet, never, R> = Effect.isEffect(options.get) ? options.get : Effect.succeed(options.get)
  const read = (url: string, headers?: Readonly<Record<string, string>>) => Effect.flatMap(clientGet, (get) => get(url, headers))
  const answersHttp = options.answersHttp !== false
  const exactly = (name: string) => new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`)
  const signatureParameter = options.signedParameters === undefined ? /signature/i : exactly(options.signedParameters.signature)
  const expiresParameter = options.signedParameters === undefined ? /expires/i : exactly(options.signedParameters.expires)
  /** Stores `body` under `key` through a presigned PUT. */
  const stored = (key: string, body: Uint8Array, contentType = "video/mp4") =>
    Effect.gen(function*() {
      const store = yield* ObjectStore
      const presigned = yield* store.presignPut({ key, contentType, expiresIn: Duration.minutes(5) })
      assert.strictEqual(yield* upload(presigned, body), 200, `PUT ${key}`)
    })
  const text = (body: Uint8Array) => new TextDecoder().decode(body)

  describe(`ObjectStore conformance: ${name}`, () => {
    layer(storeLayer, { timeout: 60_000, excludeTestServices: true })((it) => {
      it.effect("a presigned PUT stores the bytes; head reports size and content type", () =>
        Effect.gen(function*() {
          const store = yield* ObjectStore
          const key = `${uniquePrefix()}thumb.png`
          const presigned = yield* store.presignPut({ key, contentType: "image/png", expiresIn: Duration.minutes(5) })
          assert.strictEqual(presigned.headers["Content-Type"], "image/png")
          assert.isNotEmpty(presigned.url)
          assert.strictEqual(yield* upload(presigned, bytes("png bytes here")), 200)
          const info = yield* store.head(key)
          assert.deepStrictEqual(Option.map(info, ({ contentType, size }) => ({ contentType, size })), Option.some({ contentType: "image/png", size: 14 }))
        }))

      it.effect("head of an absent key is None, and delete of one succeeds", () =>
        Effect.gen(function*() {
          const store = yield* ObjectStore
          const key = `${uniquePrefix()}absent.png`
          assert.deepStrictEqual(yield* store.head(key), Option.none())
          yield* store.delete(key)
        }))

      it.effect("a PUT with another content type than the signed one is refused and stores nothing", () =>
        Effect.gen(function*() {
          const store = yield* ObjectStore
          const key = `${uniquePrefix()}typed.png`
          const presigned = yield* store.presignPut({ key, contentType: "image/png", expiresIn: Duration.minutes(5) })
          const status = yield* upload(presigned, bytes("<svg/>"), { ...presigned.headers, "Content-Type": "image/svg+xml" })
          assert.strictEqual(status, refusedWith.wrongType)
          assert.deepStrictEqual(yield* store.head(key), Option.none())
        }))

      it.effect("a signed length refuses a body of another size", () =>
        Effect.gen(function*() {
          const store = yield* ObjectStore
          const key = `${uniquePrefix()}sized.png`
          const presigned = yield* store.presignPut({ key, contentType: "image/png", contentLength: 5, expiresIn: Duration.minutes(5) })
          assert.strictEqual(presigned.headers["Content-Length"], "5")
          const { "Content-Length": _, ...withoutLength } = presigned.headers
          const status = yield* upload(presigned, bytes("more than five"), withoutLength)
          assert.strictEqual(status, refusedWith.wrongLength)
          assert.deepStrictEqual(yield* store.head(key), Option.none())
          assert.strictEqual(yield* upload(presigned, bytes("12345")), 200)
          assert.strictEqual(Option.getOrThrow(yield* store.head(key)).size, 5)
        }))

      // Real time: the layer runs without test services, as the stores sign with real clocks.
      if (options.capsUndeclaredLength !== false) {
        it.effect("without a signed length, maxLength caps the PUT: a larger body is refused and stores nothing", () =>
          Effect.gen(function*() {
            const store = yield* ObjectStore
            const key = `${uniquePrefix()}capped.png`
            const presigned = yield* store.presignPut({ key, contentType: "image/png", maxLength: 8, expiresIn: Duration.minutes(5) })
            assert.strictEqual(presigned.headers["Content-Length"], undefined)
            const status = yield* upload(presigned, bytes("nine bytes"), presigned.headers)
            assert.strictEqual(status, refusedWith.overMaxLength)
            assert.deepStrictEqual(yield* store.head(key), Option.none())
            assert.strictEqual(yield* upload(presigned, bytes("8 bytes!")), 200)
            assert.strictEqual(Option.getOrThrow(yield* store.head(key)).size, 8)
          }))
      }

      it.effect("an expired URL is refused", () =>
        Effect.gen(function*() {
          const store = yield* ObjectStore
          const key = `${uniquePrefix()}late.png`
          const presigned = yield* store.presignPut({ key, contentType: "image/png", expiresIn: Duration.seconds(1) })
          yield* Effect.sleep(Duration.millis(2_100))
          const status = yield* upload(presigned, bytes("late"))
          assert.strictEqual(status, refusedWith.expired)
          assert.deepStrictEqual(yield* store.head(key), Option.none())
        }), { timeout: 20_000 })

      it.effect("delete removes an object", () =>
        Effect.gen(function*() {
          const store = yield* ObjectStore
          const key = `${uniquePrefix()}gone.png`
          const presigned = yield* store.presignPut({ key, contentType: "image/png", expiresIn: Duration.minutes(5) })
          assert.strictEqual(yield* upload(presigned, bytes("x")), 200)
          yield* store.delete(key)
          assert.deepStrictEqual(yield* store.head(key), Option.none())
        }))

      it.effect("list pages through the keys under a prefix in ascending order", () =>
        Effect.gen(function*() {
          const store = yield* ObjectStore
          const prefix = uniquePrefix()
          const keys = [`${prefix}a.png`, `${prefix}b/c.png`, `${prefix}d.png`]
          for (const key of [...keys].reverse()) {
            const presigned = yield* store.presignPut({ key, contentType: "image/png", expiresIn: Duration.minutes(5) })
            assert.strictEqual(yield* upload(presigned, bytes(key)), 200)
          }
          const other = yield* store.presignPut({ key: `${uniquePrefix()}other.png`, contentType: "image/png", expiresIn: Duration.minutes(5) })
          assert.strictEqual(yield* upload(other, bytes("other")), 200)
          const first = yield* store.list(prefix, { limit: 2 })
          assert.deepStrictEqual(first.objects.map((object) => object.key), keys.slice(0, 2))
          assert.isDefined(first.next)
          const second = yield* store.list(prefix, { after: first.next, limit: 2 })
          assert.deepStrictEqual(second.objects.map((object) => object.key), keys.slice(2))
          assert.isUndefined(second.next)
          assert.strictEqual(second.objects[0]!.size, keys[2]!.length)
        }))

      it.effect("publicUrl names the key", () =>
        Effect.gen(function*() {
          const store = yield* ObjectStore
          const key = `${uniquePrefix()}public.png`
          const url = store.publicUrl(key)
          assert.strictEqual(url.slice(-key.length), key, url)
          if (options.fetchPublic !== undefined) {
            const presigned = yield* store.presignPut({ key, contentType: "image/png", expiresIn: Duration.minutes(5) })
            assert.strictEqual(yield* upload(presigned, bytes("served")), 200)
            const served = yield* options.fetchPublic(url)
            assert.strictEqual(served.status, 200)
            assert.strictEqual(new TextDecoder().decode(served.body), "served")
            assert.strictEqual(served.contentType, "image/png")
          }
        }))

      it.effect("a signed GET answers the bytes, of a private key and of a public one, until expiresAt: whole seconds, never later than asked", () =>
        Effect.gen(function*() {
          const store = yield* ObjectStore
          const prefix = uniquePrefix()
          for (const key of [`${privateKeyPrefix}${prefix}lesson.mp4`, `${prefix}lesson.mp4`]) {
            yield* stored(key, bytes(`video of ${key}`))
            const asked = Duration.millis(300_700)
            const before = DateTime.toEpochMillis(yield* DateTime.now)
            const signed = yield* store.presignGet({ key, expiresIn: asked })
            const after = DateTime.toEpochMillis(yield* DateTime.now)
            const expiresAt = DateTime.toEpochMillis(signed.expiresAt)
            assert.strictEqual(expiresAt % 1000, 0, `expiresAt ${DateTime.formatIso(signed.expiresAt)} is not whole seconds`)
            assert.isAtMost(expiresAt, after + Duration.toMillis(asked), "expiresAt is later than asked")
            assert.isAbove(expiresAt, before + Duration.toMillis(asked) - 2_000, "expiresAt is much earlier than asked")
            const reply = yield* read(signed.url)
            assert.strictEqual(reply.status, 200, key)
            assert.strictEqual(text(reply.body), `video of ${key}`)
            if (answersHttp) {
              assert.strictEqual(reply.headers["content-type"], "video/mp4")
              const cacheControl = reply.headers["cache-control"] ?? ""
              assert.match(cacheControl, /(^|[\s,])private($|[\s,])/, `Cache-Control: ${cacheControl}`)
              assert.notMatch(cacheControl, /immutable/, `Cache-Control: ${cacheControl}`)
            }
          }
        }))

      it.effect("a signed GET as of an earlier issuedAt: the same inputs give the same URL, valid until issuedAt + expiresIn", () =>
        Effect.gen(function*() {
          const store = yield* ObjectStore
          const key = `${privateKeyPrefix}${uniquePrefix()}reused.mp4`
          yield* stored(key, bytes("reused"))
          const now = DateTime.toEpochMillis(yield* DateTime.now)
          const issuedAt = DateTime.makeUnsafe(Math.floor(now / 60_000) * 60_000 - 60_000)
          const request = { key, expiresIn: Duration.minutes(10), issuedAt }
          const first = yield* store.presignGet(request)
          const second = yield* store.presignGet(request)
          assert.strictEqual(second.url, first.url)
          assert.strictEqual(DateTime.toEpochMillis(first.expiresAt), DateTime.toEpochMillis(issuedAt) + 600_000)
          const reply = yield* read(first.url)
          assert.deepStrictEqual([reply.status, text(reply.body)], [200, "reused"])
          // Another issuedAt is another URL.
          const later = yield* store.presignGet({ ...request, issuedAt: DateTime.makeUnsafe(DateTime.toEpochMillis(issuedAt) + 30_000) })
          assert.notStrictEqual(later.url, first.url)
        }))

      if (answersHttp) {
        it.effect("a signed GET with a single Range answers 206 with exactly those bytes", () =>
          Effect.gen(function*() {
            const store = yield* ObjectStore
            const key = `${privateKeyPrefix}${uniquePrefix()}ranged.mp4`
            yield* stored(key, bytes("0123456789"))
            const signed = yield* store.presignGet({ key, expiresIn: Duration.minutes(5) })
            const reply = yield* read(signed.url, { Range: "bytes=2-5" })
            assert.strictEqual(reply.status, 206)
            assert.strictEqual(text(reply.body), "2345")
            assert.strictEqual(reply.headers["content-range"], "bytes 2-5/10")
          }))
      }

      it.effect("a signed GET whose signature, expiry or key was changed is refused with 403", () =>
        Effect.gen(function*() {
          const store = yield* ObjectStore
          const prefix = uniquePrefix()
          for (const directory of [`${privateKeyPrefix}${prefix}`, prefix]) {
            const [key, other] = [`${directory}signed.mp4`, `${directory}other.mp4`]
            yield* stored(key, bytes("signed bytes"))
            yield* stored(other, bytes("other bytes"))
            const { url } = yield* store.presignGet({ key, expiresIn: Duration.minutes(5) })
            const otherUrl = (yield* store.presignGet({ key: other, expiresIn: Duration.minutes(5) })).url
            assert.strictEqual((yield* read(otherUrl)).status, 200, "the other key is readable with its own URL")
            const forged: ReadonlyArray<readonly [string, string]> = [
              ["signature", withParameter(url, signatureParameter, (value) => value.slice(0, -1) + (value.endsWith("0") ? "1" : "0"))],
              ["expiry", withParameter(url, expiresParameter, (value) => {
                assert.match(value, /^\d+$/, `the expiry parameter of ${url} is not a number`)
                return String(Number(value) + 60)
              })],
              ["key", withQueryOf(otherUrl, url)]
            ]
            for (const [changed, forgedUrl] of forged) {
              const reply = yield* read(forgedUrl)
              assert.strictEqual(reply.status, 403, `${changed} changed: ${forgedUrl}`)
              assert.notMatch(text(reply.body), /signed bytes|other bytes/, `${changed} changed: the body holds an object`)
            }
          }
        }))

      it.effect("a signed GET past its expiry is refused with 403", () =>
        Effect.gen(function*() {
          const store = yield* ObjectStore
          const key = `${privateKeyPrefix}${uniquePrefix()}late.mp4`
          yield* stored(key, bytes("late bytes"))
          const signed = yield* store.presignGet({ key, expiresIn: Duration.seconds(1) })
          const wait = DateTime.toEpochMillis(signed.expiresAt) - DateTime.toEpochMillis(yield* DateTime.now)
          yield* Effect.sleep(Duration.millis(Math.max(wait, 0) + 1_100))
          const reply = yield* read(signed.url)
          assert.strictEqual(reply.status, 403)
          assert.notInclude(text(reply.body), "late bytes")
        }), { timeout: 20_000 })

      if (options.fetchPublic !== undefined) {
        const fetchPublic = options.fetchPublic
        it.effect("a private key is not served at its public URL", () =>
          Effect.gen(function*() {
            const store = yield* ObjectStore
            const key = `${privateKeyPrefix}${uniquePrefix()}paid.mp4`
            yield* stored(key, bytes("paid bytes"))
            const served = yield* fetchPublic(store.publicUrl(key))
            assert.strictEqual(served.status, 403, store.publicUrl(key))
            assert.notInclude(text(served.body), "paid bytes")
          }))
      }

      it.effect("multipart: parts PUT out of order, one twice, are listed in order and completed into exactly their concatenation", () =>
        Effect.gen(function*() {
          const store = yield* ObjectStore
          const prefix = uniquePrefix()
          const key = `${prefix}lecture.mp4`
          const uploadId = yield* store.createMultipart({ key, contentType: "video/mp4" })
          assert.isNotEmpty(uploadId)
          const parts = [patterned(1, minPartSize), patterned(2, minPartSize), patterned(3, 7)]
          const signed = yield* store.presignPart({ key, uploadId, partNumber: 2, contentLength: minPartSize, expiresIn: Duration.minutes(5) })
          assert.deepStrictEqual(signed.headers, { "Content-Length": String(minPartSize) })
          const etag3 = yield* storedPart(key, uploadId, 3, parts[2]!)
          const replaced = yield* storedPart(key, uploadId, 2, patterned(9, minPartSize))
          const etag1 = yield* storedPart(key, uploadId, 1, parts[0]!)
          const etag2 = yield* storedPart(key, uploadId, 2, parts[1]!)
          assert.notStrictEqual(etag2, replaced, "other bytes, another ETag")
          assert.deepStrictEqual(
            yield* store.listParts(key, uploadId),
            Option.some([
              { partNumber: 1, size: minPartSize, etag: etag1 },
              { partNumber: 2, size: minPartSize, etag: etag2 },
              { partNumber: 3, size: 7, etag: etag3 }
            ])
          )
          // Nothing is under the key before completion.
          assert.deepStrictEqual(yield* store.head(key), Option.none())
          assert.deepStrictEqual((yield* store.list(prefix)).objects, [])
          const early = yield* read((yield* store.presignGet({ key, expiresIn: Duration.minutes(5) })).url)
          assert.strictEqual(early.status, 404, "a signed GET before completion")

          yield* store.completeMultipart(key, uploadId, [{ partNumber: 1, etag: etag1 }, { partNumber: 2, etag: etag2 }, { partNumber: 3, etag: etag3 }])
          const info = yield* store.head(key)
          assert.deepStrictEqual(
            Option.map(info, ({ contentType, size }) => ({ contentType, size })),
            Option.some({ contentType: "video/mp4", size: 2 * minPartSize + 7 })
          )
          assert.deepStrictEqual(yield* store.listParts(key, uploadId), Option.none(), "a completed upload is not there")
          const reply = yield* read((yield* store.presignGet({ key, expiresIn: Duration.minutes(5) })).url)
          assert.strictEqual(reply.status, 200)
          assert.strictEqual(reply.body.byteLength, 2 * minPartSize + 7)
          assert.strictEqual(firstDifference(reply.body, concatenated(parts)), -1, "the object is the parts' concatenation")
          if (answersHttp) assert.strictEqual(reply.headers["content-type"], "video/mp4")
        }), { timeout: 60_000 })

      it.effect("multipart with a part size (as the service starts them): parts PUT out of order, one twice, completed 1…k into exactly their concatenation", () =>
        Effect.gen(function*() {
          const store = yield* ObjectStore
          const key = `${uniquePrefix()}sized-parts.mp4`
          const uploadId = yield* store.createMultipart({ key, contentType: "video/mp4", partSize: minPartSize })
          const parts = [patterned(11, minPartSize), patterned(12, minPartSize), patterned(13, 1000)]
          const etag3 = yield* storedPart(key, uploadId, 3, parts[2]!)
          yield* storedPart(key, uploadId, 1, patterned(19, minPartSize))
          const etag2 = yield* storedPart(key, uploadId, 2, parts[1]!)
          const etag1 = yield* storedPart(key, uploadId, 1, parts[0]!)
          assert.deepStrictEqual(
            Option.map(yield* store.listParts(key, uploadId), (listed) => listed.map(({ partNumber, size }) => [partNumber, size])),
            Option.some([[1, minPartSize], [2, minPartSize], [3, 1000]])
          )
          yield* store.completeMultipart(key, uploadId, [{ partNumber: 1, etag: etag1 }, { partNumber: 2, etag: etag2 }, { partNumber: 3, etag: etag3 }])
          assert.strictEqual(Option.getOrThrow(yield* store.head(key)).size, 2 * minPartSize + 1000)
          const reply = yield* read((yield* store.presignGet({ key, expiresIn: Duration.minutes(5) })).url)
          assert.strictEqual(firstDifference(reply.body, concatenated(parts)), -1, "the object is the parts' concatenation")
          assert.deepStrictEqual(yield* store.listParts(key, uploadId), Option.none())
        }), { timeout: 60_000 })

      it.effect("multipart: a completion naming a wrong ETag, an absent part, a small part not last, parts out of order or none is refused and changes nothing", () =>
        Effect.gen(function*() {
          const store = yield* ObjectStore
          const key = `${uniquePrefix()}refused.mp4`
          const uploadId = yield* store.createMultipart({ key, contentType: "video/mp4" })
          const [first, small, last] = [patterned(4, minPartSize), patterned(5, 3), patterned(6, 5)]
          const etag1 = yield* storedPart(key, uploadId, 1, first)
          const etag2 = yield* storedPart(key, uploadId, 2, small)
          const etag3 = yield* storedPart(key, uploadId, 3, last)
          const held = yield* store.listParts(key, uploadId)
          const wrongEtag = `"${"0".repeat(32)}"`
          const refusals: ReadonlyArray<readonly [string, ReadonlyArray<CompletedPart>, ReadonlyArray<unknown>]> = [
            ["a wrong ETag", [{ partNumber: 1, etag: wrongEtag }, { partNumber: 3, etag: etag3 }], ["MultipartRefused", "InvalidPart", 1]],
            ["a part never uploaded", [{ partNumber: 1, etag: etag1 }, { partNumber: 4, etag: etag3 }], ["MultipartRefused", "InvalidPart", 4]],
            ["a part under the minimum, not last", [{ partNumber: 1, etag: etag1 }, { partNumber: 2, etag: etag2 }, { partNumber: 3, etag: etag3 }], [
              "MultipartRefused",
              "EntityTooSmall",
              2
            ]],
            ["parts out of order", [{ partNumber: 3, etag: etag3 }, { partNumber: 1, etag: etag1 }], ["MultipartRefused", "InvalidPart", 1]],
            ["a part named twice", [{ partNumber: 1, etag: etag1 }, { partNumber: 1, etag: etag1 }], ["MultipartRefused", "InvalidPart", 1]],
            ["no part", [], ["MultipartRefused", "InvalidPart", undefined]]
          ]
          for (const [what, parts, expected] of refusals) {
            const refused = yield* Effect.flip(store.completeMultipart(key, uploadId, parts))
            assert.deepStrictEqual(refusal(refused), expected, what)
            assert.deepStrictEqual(yield* store.head(key), Option.none(), `${what}: no object`)
            assert.deepStrictEqual(yield* store.listParts(key, uploadId), held, `${what}: the parts are still there`)
          }
          // Parts need not be numbered contiguously; the ETag may come without its quotes.
          yield* store.completeMultipart(key, uploadId, [{ partNumber: 1, etag: etag1 }, { partNumber: 3, etag: etag3.slice(1, -1) }])
          assert.strictEqual(Option.getOrThrow(yield* store.head(key)).size, minPartSize + 5)
          const reply = yield* read((yield* store.presignGet({ key, expiresIn: Duration.minutes(5) })).url)
          assert.strictEqual(firstDifference(reply.body, concatenated([first, last])), -1)
        }), { timeout: 60_000 })

      it.effect("multipart: a part PUT of another length than signed is refused and stores nothing; part numbers are 1 to 10,000", () =>
        Effect.gen(function*() {
          const store = yield* ObjectStore
          const key = `${uniquePrefix()}sized.mp4`
          const uploadId = yield* store.createMultipart({ key, contentType: "video/mp4" })
          const presigned = yield* store.presignPart({ key, uploadId, partNumber: 1, contentLength: 5, expiresIn: Duration.minutes(5) })
          const { "Content-Length": _, ...withoutLength } = presigned.headers
          const reply = yield* Effect.flatMap(clientPutPart, (put) => put(presigned, bytes("more than five"), withoutLength))
          assert.strictEqual(reply.status, refusedWith.wrongLength)
          assert.deepStrictEqual(yield* store.listParts(key, uploadId), Option.some([]))
          const etag = yield* Effect.flatMap(clientPutPart, (put) => put(presigned, bytes("12345"), presigned.headers))
          assert.strictEqual(etag.status, 200)
          assert.deepStrictEqual(
            Option.map(yield* store.listParts(key, uploadId), (parts) => parts.map(({ partNumber, size }) => ({ partNumber, size }))),
            Option.some([{ partNumber: 1, size: 5 }])
          )
          for (const partNumber of [0, maxPartCount + 1, 1.5]) {
            const refused = yield* Effect.flip(store.presignPart({ key, uploadId, partNumber, contentLength: 5, expiresIn: Duration.minutes(5) }))
            assert.deepStrictEqual(refusal(refused), ["StorageError", "presignPart"], `part number ${partNumber}`)
          }
          yield* store.abortMultipart(key, uploadId)
        }))

      it.effect("multipart: an expired part URL is refused and stores nothing", () =>
        Effect.gen(function*() {
          const store = yield* ObjectStore
          const key = `${uniquePrefix()}late.mp4`
          const uploadId = yield* store.createMultipart({ key, contentType: "video/mp4" })
          const presigned = yield* store.presignPart({ key, uploadId, partNumber: 1, contentLength: 4, expiresIn: Duration.seconds(1) })
          yield* Effect.sleep(Duration.millis(2_100))
          const reply = yield* Effect.flatMap(clientPutPart, (put) => put(presigned, bytes("late"), presigned.headers))
          assert.strictEqual(reply.status, refusedWith.expired)
          assert.deepStrictEqual(yield* store.listParts(key, uploadId), Option.some([]))
          yield* store.abortMultipart(key, uploadId)
        }), { timeout: 20_000 })

      it.effect("multipart: completing twice, the second is NoSuchUpload and the object stays; abort ends an upload, twice is fine; an unknown upload lists None", () =>
        Effect.gen(function*() {
          const store = yield* ObjectStore
          const prefix = uniquePrefix()
          const key = `${prefix}twice.mp4`
          const uploadId = yield* store.createMultipart({ key, contentType: "video/mp4" })
          // A single part is the last one: any size.
          const parts = [{ partNumber: 1, etag: yield* storedPart(key, uploadId, 1, bytes("one part")) }]
          yield* store.completeMultipart(key, uploadId, parts)
          const again = yield* Effect.flip(store.completeMultipart(key, uploadId, parts))
          assert.deepStrictEqual(refusal(again), ["MultipartRefused", "NoSuchUpload", undefined])
          assert.strictEqual(Option.getOrThrow(yield* store.head(key)).size, 8)

          const abortedKey = `${prefix}aborted.mp4`
          const aborted = yield* store.createMultipart({ key: abortedKey, contentType: "video/mp4" })
          const etag = yield* storedPart(abortedKey, aborted, 1, bytes("aborted"))
          yield* store.abortMultipart(abortedKey, aborted)
          assert.deepStrictEqual(yield* store.listParts(abortedKey, aborted), Option.none())
          const afterAbort = yield* Effect.flip(store.completeMultipart(abortedKey, aborted, [{ partNumber: 1, etag }]))
          assert.deepStrictEqual(refusal(afterAbort), ["MultipartRefused", "NoSuchUpload", undefined])
          yield* store.abortMultipart(abortedKey, aborted)
          assert.deepStrictEqual(yield* store.head(abortedKey), Option.none())
          assert.deepStrictEqual(yield* store.listParts(abortedKey, "unknown-upload-id"), Option.none())
        }))

      it.effect("multipart: removeIncomplete removes an upload nothing wrote to since before, and keeps one written after", () =>
        Effect.gen(function*() {
          const store = yield* ObjectStore
          // Under one of the service's prefixes: a store may leave other keys' uploads alone.
          const prefix = `media/${uniquePrefix()}`
          const [left, active] = [`${prefix}left.mp4`, `${prefix}active.mp4`]
          const leftId = yield* store.createMultipart({ key: left, contentType: "video/mp4" })
          const activeId = yield* store.createMultipart({ key: active, contentType: "video/mp4" })
          yield* storedPart(left, leftId, 1, bytes("left alone"))
          yield* storedPart(active, activeId, 1, bytes("first"))
          // Stores may keep times to the second.
          yield* Effect.sleep(Duration.millis(1_100))
          const before = yield* DateTime.now
          yield* Effect.sleep(Duration.millis(1_100))
          const etag = yield* storedPart(active, activeId, 2, bytes("written after before"))
          assert.isAtLeast(yield* store.removeIncomplete(before), 1)
          assert.deepStrictEqual(yield* store.listParts(left, leftId), Option.none(), "the upload left alone is removed")
          assert.deepStrictEqual(
            Option.map(yield* store.listParts(active, activeId), (parts) => parts.map(({ partNumber }) => partNumber)),
            Option.some([1, 2]),
            "the upload written after before is kept"
          )
          // Once `before` is past its last write, it is removed too.
          const later = DateTime.addDuration(yield* DateTime.now, Duration.seconds(2))
          assert.isAtLeast(yield* store.removeIncomplete(later), 1)
          assert.deepStrictEqual(yield* store.listParts(active, activeId), Option.none())
          const refused = yield* Effect.flip(store.completeMultipart(active, activeId, [{ partNumber: 2, etag }]))
          assert.deepStrictEqual(refusal(refused), ["MultipartRefused", "NoSuchUpload", undefined])
        }), { timeout: 20_000 })

      it.effect("check succeeds while the store is reachable", () =>
        Effect.gen(function*() {
          const store = yield* ObjectStore
          const checked = yield* Effect.exit(store.check)
          assert.isTrue(Exit.isSuccess(checked), String(checked))
        }))
    })
  })
}
