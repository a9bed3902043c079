import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect } from "effect"
import { MemoryObjectStore, ObjectStore } from "../../src/index.ts"
import { type ClientGet, type ClientPut, type ClientPutPart, objectStoreSuite } from "../../src/testing/index.ts"

objectStoreSuite("memory", ObjectStore.layerMemory, {
  put: Effect.gen(function*() {
    const memory = yield* MemoryObjectStore
    const put: ClientPut = (presigned, body, headers) => memory.put(presigned.url, headers, body)
    return put
  }),
  putPart: Effect.gen(function*() {
    const memory = yield* MemoryObjectStore
    const putPart: ClientPutPart = (presigned, body, headers) => memory.putPart(presigned.url, headers, body)
    return putPart
  }),
  get: Effect.gen(function*() {
    const memory = yield* MemoryObjectStore
    const get: ClientGet = (url) => Effect.map(memory.get(url), (reply) => ({ ...reply, headers: {} }))
    return get
  }),
  // `MemoryObjectStore.get` plays the status and the bytes, no HTTP headers or ranges.
  answersHttp: false
})

describe("MemoryObjectStore.putPart", () => {
  it.effect("answers S3's ETag of a part, the quoted MD5 of its bytes; 404 once the upload is aborted", () =>
    Effect.gen(function*() {
      const store = yield* ObjectStore
      const memory = yield* MemoryObjectStore
      const uploadId = yield* store.createMultipart({ key: "a.mp4", contentType: "video/mp4" })
      const presigned = yield* store.presignPart({ key: "a.mp4", uploadId, partNumber: 1, contentLength: 3, expiresIn: Duration.minutes(1) })
      const abc = new TextEncoder().encode("abc")
      assert.deepStrictEqual(yield* memory.putPart(presigned.url, presigned.headers, abc), { status: 200, etag: "\"900150983cd24fb0d6963f7d28e17f72\"" })
      yield* store.abortMultipart("a.mp4", uploadId)
      assert.deepStrictEqual(yield* memory.putPart(presigned.url, presigned.headers, abc), { status: 404, etag: undefined })
    }).pipe(Effect.provide(ObjectStore.layerMemory)))
})
