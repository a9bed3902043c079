/**
 * examples/custom-adapter: the one-file TenantObjectStore passes the core's ObjectStore
 * conformance suite (over the in-memory store), and tenants do not see each other.
 */
import { MemoryObjectStore, ObjectStore } from "@coursekit/core"
import { type ClientPut, objectStoreSuite } from "@coursekit/core/testing"
import { assert, describe, it } from "@effect/vitest"
import { Context, Duration, Effect, Layer, Option } from "effect"
import * as TenantObjectStore from "../custom-adapter/TenantObjectStore.ts"

/** The tenant's store, and the memory store under it (the suite PUTs through it). */
const tenantOverMemory = (tenant: string) =>
  Layer.effectContext(
    Effect.gen(function*() {
      const store = yield* TenantObjectStore.make(tenant)
      return Context.make(ObjectStore, store).pipe(Context.add(MemoryObjectStore, yield* MemoryObjectStore))
    })
  ).pipe(Layer.provide(ObjectStore.layerMemory))

objectStoreSuite("TenantObjectStore (examples/custom-adapter) over memory", tenantOverMemory("acme"), {
  put: Effect.gen(function*() {
    const memory = yield* MemoryObjectStore
    const put: ClientPut = (presigned, body, headers) => memory.put(presigned.url, headers, body)
    return put
  })
})

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
