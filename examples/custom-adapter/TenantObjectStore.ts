/**
 * A custom `ObjectStore` adapter in one file: every tenant's files under its own prefix
 * of one shared store — one bucket for many schools, each seeing only its own keys. It
 * wraps any other `ObjectStore` (S3, local disk, memory) and passes the core's
 * conformance suite (examples/test/customAdapter.test.ts), which is what makes an adapter
 * done. See docs/writing-an-adapter.md.
 */
import { type ObjectPage, ObjectStore, StorageError } from "@coursekit/core"
import { Effect, Layer } from "effect"

const tenantName = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/

/**
 * The store of `tenant` inside the `ObjectStore` in context: keys `tenants/<tenant>/<key>`
 * there, `<key>` here. Fails with a `StorageError` when `tenant` is not a tenant name.
 */
export const make = Effect.fn("TenantObjectStore.make")(function*(tenant: string) {
  // Checked once here, so no key of one tenant can reach into another's prefix.
  if (!tenantName.test(tenant)) {
    return yield* new StorageError({
      operation: "start",
      cause: new TypeError(`"${tenant}" is not a tenant name: 1-63 of a-z, 0-9 and inner "-".`)
    })
  }
  const inner = yield* ObjectStore
  const root = `tenants/${tenant}/`
  const outer = (key: string) => key.slice(root.length)
  const unwrap = (page: ObjectPage): ObjectPage => ({
    objects: page.objects.map((object) => ({ ...object, key: outer(object.key) })),
    next: page.next === undefined ? undefined : outer(page.next)
  })
  return ObjectStore.of({
    presignPut: (request) => inner.presignPut({ ...request, key: root + request.key }),
    head: (key) => inner.head(root + key),
    delete: (key) => inner.delete(root + key),
    list: (prefix, options) =>
      Effect.map(
        inner.list(root + prefix, {
          limit: options?.limit,
          after: options?.after === undefined ? undefined : root + options.after
        }),
        unwrap
      ),
    // What partial uploads left belongs to the store as a whole, not to a tenant.
    removeIncomplete: (before) => inner.removeIncomplete(before),
    publicUrl: (key) => inner.publicUrl(root + key),
    check: inner.check
  })
})

/** `tenant`'s store over the `ObjectStore` it is given: `TenantObjectStore.layer("acme").pipe(Layer.provide(S3ObjectStore.layer(options)))`. */
export const layer = (tenant: string): Layer.Layer<ObjectStore, StorageError, ObjectStore> => Layer.effect(ObjectStore, make(tenant))
