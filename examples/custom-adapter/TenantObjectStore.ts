/**
 * A custom `ObjectStore` adapter in one file: every tenant's files under its own prefix
 * of one shared store — one bucket for many schools, each seeing only its own keys. It
 * wraps any other `ObjectStore` (S3, local disk, memory) and passes the core's
 * conformance suite (examples/test/customAdapter.test.ts), which is what makes an adapter
 * done. See docs/writing-an-adapter.md.
 */
import { isPrivateKey, type ListedObject, type ObjectPage, ObjectStore, privateKeyPrefix, StorageError } from "@coursekit/core"
import { Effect, Layer } from "effect"

const tenantName = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/

/** Most keys of one `list` page, as the stores have it. */
const maxPageSize = 1000

/**
 * The store of `tenant` inside the `ObjectStore` in context: keys `tenants/<tenant>/<key>`
 * there, `<key>` here. A private key stays private there: `private/<rest>` here is
 * `private/tenants/<tenant>/<rest>` there, under the prefix the inner store (and its
 * bucket policy) never serves publicly. Fails with a `StorageError` when `tenant` is not
 * a tenant name.
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
  const privateRoot = `${privateKeyPrefix}${root}`
  const innerKey = (key: string) => isPrivateKey(key) ? privateRoot + key.slice(privateKeyPrefix.length) : root + key
  const outerKey = (key: string) => key.startsWith(privateRoot) ? privateKeyPrefix + key.slice(privateRoot.length) : key.slice(root.length)

  /**
   * One page of the tenant's keys under `prefix`. Its keys live under two inner prefixes
   * (public and private), so a prefix both can match (`""`, `"p"`) lists both and merges
   * them; a key maps to one with the same order, so `after` carries over as it is.
   */
  const list = Effect.fn("TenantObjectStore.list")(function*(prefix: string, options?: {
    readonly after?: string | undefined
    readonly limit?: number | undefined
  }) {
    const limit = Math.min(Math.max(Math.floor(options?.limit ?? maxPageSize), 1), maxPageSize)
    const after = options?.after
    const pages: Array<ObjectPage> = []
    if (!isPrivateKey(prefix)) {
      pages.push(yield* inner.list(root + prefix, { limit, after: after === undefined ? undefined : root + after }))
    }
    // Private keys match `prefix` when it starts with `private/` or is the start of it;
    // none of them lies after an `after` past every `private/…` key.
    const privatePrefix = isPrivateKey(prefix) ? prefix : privateKeyPrefix.startsWith(prefix) ? privateKeyPrefix : undefined
    if (privatePrefix !== undefined && (after === undefined || isPrivateKey(after) || after < privateKeyPrefix)) {
      pages.push(yield* inner.list(innerKey(privatePrefix), {
        limit,
        after: after !== undefined && isPrivateKey(after) ? innerKey(after) : undefined
      }))
    }
    const merged: Array<ListedObject> = pages
      .flatMap((page) => page.objects.map((object) => ({ ...object, key: outerKey(object.key) })))
      .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    const objects = merged.slice(0, limit)
    const more = merged.length > limit || pages.some((page) => page.next !== undefined)
    return { objects, next: more ? objects[objects.length - 1]?.key : undefined } satisfies ObjectPage
  })

  return ObjectStore.of({
    presignPut: (request) => inner.presignPut({ ...request, key: innerKey(request.key) }),
    presignGet: (request) => inner.presignGet({ ...request, key: innerKey(request.key) }),
    // A multipart upload's parts and its object live under the mapped key too; the
    // upload id is the inner store's, which ties it to that key.
    createMultipart: (request) => inner.createMultipart({ ...request, key: innerKey(request.key) }),
    presignPart: (request) => inner.presignPart({ ...request, key: innerKey(request.key) }),
    listParts: (key, uploadId) => inner.listParts(innerKey(key), uploadId),
    completeMultipart: (key, uploadId, parts) => inner.completeMultipart(innerKey(key), uploadId, parts),
    abortMultipart: (key, uploadId) => inner.abortMultipart(innerKey(key), uploadId),
    head: (key) => inner.head(innerKey(key)),
    delete: (key) => inner.delete(innerKey(key)),
    list,
    // What partial uploads left belongs to the store as a whole, not to a tenant.
    removeIncomplete: (before) => inner.removeIncomplete(before),
    publicUrl: (key) => inner.publicUrl(innerKey(key)),
    check: inner.check
  })
})

/** `tenant`'s store over the `ObjectStore` it is given: `TenantObjectStore.layer("acme").pipe(Layer.provide(S3ObjectStore.layer(options)))`. */
export const layer = (tenant: string): Layer.Layer<ObjectStore, StorageError, ObjectStore> => Layer.effect(ObjectStore, make(tenant))
