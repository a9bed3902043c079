/**
 * The conformance suite every `ObjectStore` adapter runs. The suite plays the client
 * itself: it PUTs bytes to the presigned URLs through `put`, which for a real adapter is a
 * real HTTP request (`fetchPut`). Every test works under its own random prefix, so
 * adapters can share one bucket or directory across tests.
 *
 * @since 0.1.0
 */
import { assert, describe, layer } from "@effect/vitest"
import { Duration, Effect, Exit, type Layer, Option } from "effect"
import { ObjectStore, type PresignedPut } from "../ObjectStore.ts"

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

      it.effect("check succeeds while the store is reachable", () =>
        Effect.gen(function*() {
          const store = yield* ObjectStore
          const checked = yield* Effect.exit(store.check)
          assert.isTrue(Exit.isSuccess(checked), String(checked))
        }))
    })
  })
}
