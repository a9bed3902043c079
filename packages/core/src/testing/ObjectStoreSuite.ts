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
import { ObjectStore, type PresignedPut, privateKeyPrefix } from "../ObjectStore.ts"

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

const uniquePrefix = () => `conformance/${Math.random().toString(36).slice(2, 10)}/`
const bytes = (text: string) => new TextEncoder().encode(text)

/** The HTTP status a store answers each refused PUT with. */
export interface RefusedPutStatuses {
  /** A Content-Type other than the signed one. */
  readonly wrongType: number
  /** A body of another size than the signed `contentLength`. */
  readonly wrongLength: number
  /** A body over `maxLength`, with no length signed (by a store that caps it). */
  readonly overMaxLength: number
  /** A URL past its expiry. */
  readonly expired: number
}

/** What S3 and the memory store answer: 403 for what the signature or expiry refuses, 413 over the cap. */
const s3RefusedPutStatuses: RefusedPutStatuses = { wrongType: 403, wrongLength: 403, overMaxLength: 413, expired: 403 }

export interface ObjectStoreSuiteOptions<R> {
  /** How the suite PUTs to presigned URLs (it may use the layer's other services). */
  readonly put: ClientPut | Effect.Effect<ClientPut, never, R>
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
   * whose `get` answers a status and bytes, says false.
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

      it.effect("check succeeds while the store is reachable", () =>
        Effect.gen(function*() {
          const store = yield* ObjectStore
          const checked = yield* Effect.exit(store.check)
          assert.isTrue(Exit.isSuccess(checked), String(checked))
        }))
    })
  })
}
