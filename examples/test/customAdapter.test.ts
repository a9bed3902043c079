/**
 * examples/custom-adapter: the one-file TenantObjectStore passes the core's ObjectStore
 * conformance suite (over the in-memory store, and over the local disk store on real
 * HTTP, which serves public URLs: there a private key mapped out of the inner store's
 * `private/` would be served to anyone), and tenants do not see each other.
 */
import { MemoryObjectStore, ObjectStore } from "@coursekit/core"
import { fetchGet, fetchPut, fetchPutPart, objectStoreSuite } from "@coursekit/core/testing"
import { assert, describe, it } from "@effect/vitest"
import { Context, Duration, Effect, Layer, Option } from "effect"
import { memoryClient } from "../../packages/core/test/media/MemoryClient.ts"
import { fetchPublic, layerServed } from "../../packages/storage-local/test/TestStorage.ts"
import * as TenantObjectStore from "../custom-adapter/TenantObjectStore.ts"

/** The tenant's store, and the memory store under it (the suite PUTs through it). */
const tenantOverMemory = (tenant: string) =>
  Layer.effectContext(
    Effect.gen(function*() {
      const store = yield* TenantObjectStore.make(tenant)
      return Context.make(ObjectStore, store).pipe(Context.add(MemoryObjectStore, yield* MemoryObjectStore))
    })
  ).pipe(Layer.provide(ObjectStore.layerMemory))

objectStoreSuite("TenantObjectStore (examples/custom-adapter) over memory", tenantOverMemory("acme"), memoryClient)

objectStoreSuite(
  "TenantObjectStore (examples/custom-adapter) over local disk",
  TenantObjectStore.layer("acme").pipe(Layer.provide(layerServed())),
  { put: fetchPut, putPart: fetchPutPart, get: fetchGet, fetchPublic, refusedWith: { wrongLength: 413 } }
)

const bytes = (text: string) => new TextEncoder().encode(text)

describe("TenantObjectStore", () => {
  it.effect("keeps each tenant under its own prefix; one tenant lists none of another's keys; a name that is not a tenant's is refused", () =>
    Effect.gen(function*() {
      const inner = yield* ObjectStore
      const memory = yield* MemoryObjectStore
      const acme = yield* TenantObjectStore.make("acme")
      const globex = yield* TenantObjectStore.make("globex")
      const presigned = yield* acme.presignPut({ key: "courses/1/a.png", contentType: "image/png", expiresIn: Duration.minutes(5) })
      yield* memory.put(presigned.url, presigned.headers, new Uint8Array([1, 2, 3]))
      assert.strictEqual(Option.getOrUndefined(yield* inner.head("tenants/acme/courses/1/a.png"))?.size, 3)
      assert.strictEqual(Option.getOrUndefined(yield* acme.head("courses/1/a.png"))?.size, 3)
      assert.deepStrictEqual(yield* globex.head("courses/1/a.png"), Option.none())
      assert.deepStrictEqual((yield* acme.list("courses/")).objects.map((object) => object.key), ["courses/1/a.png"])
      assert.deepStrictEqual((yield* globex.list("")).objects, [])
      assert.strictEqual(acme.publicUrl("courses/1/a.png"), inner.publicUrl("tenants/acme/courses/1/a.png"))
      const refused = yield* Effect.flip(TenantObjectStore.make("../globex"))
      assert.strictEqual(refused._tag, "StorageError")
      assert.strictEqual(refused.operation, "start")
      assert.match(String(refused.cause), /not a tenant name/)
    }).pipe(Effect.provide(ObjectStore.layerMemory)))
})

describe("TenantObjectStore private keys", () => {
  it.effect("stay under the inner store's private/ prefix, and list with the public keys in order, page by page", () =>
    Effect.gen(function*() {
      const inner = yield* ObjectStore
      const memory = yield* MemoryObjectStore
      const acme = yield* TenantObjectStore.make("acme")
      const keys = ["a.png", "courses/1/b.png", "private/media/v1.mp4", "private/media/v2.mp4", "q.png"]
      for (const key of keys) {
        const presigned = yield* acme.presignPut({ key, contentType: "application/octet-stream", expiresIn: Duration.minutes(5) })
        assert.deepStrictEqual(yield* memory.put(presigned.url, presigned.headers, bytes(key)), { _tag: "Stored" }, key)
      }
      // Another tenant's private key and a stray inner key are none of acme's.
      const globex = yield* TenantObjectStore.make("globex")
      const other = yield* globex.presignPut({ key: "private/media/x.mp4", contentType: "video/mp4", expiresIn: Duration.minutes(5) })
      assert.deepStrictEqual(yield* memory.put(other.url, other.headers, bytes("x")), { _tag: "Stored" })
      yield* memory.putObject("private/stray.mp4", bytes("stray"), "video/mp4")

      assert.strictEqual(Option.getOrUndefined(yield* inner.head("private/tenants/acme/media/v1.mp4"))?.size, bytes("private/media/v1.mp4").byteLength)
      assert.deepStrictEqual(yield* inner.head("tenants/acme/private/media/v1.mp4"), Option.none())
      assert.strictEqual(acme.publicUrl("private/media/v1.mp4"), inner.publicUrl("private/tenants/acme/media/v1.mp4"))
      const signed = yield* acme.presignGet({ key: "private/media/v1.mp4", expiresIn: Duration.minutes(5) })
      assert.deepStrictEqual(yield* memory.get(signed.url), { _tag: "Found", body: bytes("private/media/v1.mp4") })

      assert.deepStrictEqual((yield* acme.list("")).objects.map((object) => object.key), keys)
      assert.deepStrictEqual((yield* acme.list("private/")).objects.map((object) => object.key), keys.slice(2, 4))
      assert.deepStrictEqual((yield* acme.list("p")).objects.map((object) => object.key), keys.slice(2, 4))
      assert.deepStrictEqual((yield* acme.list("", { after: "private/media/v1.mp4" })).objects.map((object) => object.key), keys.slice(3))
      assert.deepStrictEqual((yield* acme.list("", { after: "private/z" })).objects.map((object) => object.key), ["q.png"])
      for (const limit of [1, 2, 3]) {
        const seen: Array<string> = []
        let after: string | undefined
        do {
          const page = yield* acme.list("", { after, limit })
          assert.isAtMost(page.objects.length, limit)
          seen.push(...page.objects.map((object) => object.key))
          after = page.next
        } while (after !== undefined)
        assert.deepStrictEqual(seen, keys, `limit ${limit}`)
      }
    }).pipe(Effect.provide(ObjectStore.layerMemory)))
})
