import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect } from "effect"
import { MemoryObjectStore, ObjectStore } from "../../src/index.ts"
import { objectStoreSuite } from "../../src/testing/index.ts"
import { memoryClient } from "./MemoryClient.ts"

objectStoreSuite("memory", ObjectStore.layerMemory, memoryClient)

describe("MemoryObjectStore.putPart", () => {
  it.effect("answers S3's ETag of a part, the quoted MD5 of its bytes; NoSuchUpload once the upload is aborted", () =>
    Effect.gen(function*() {
      const store = yield* ObjectStore
      const memory = yield* MemoryObjectStore
      const uploadId = yield* store.createMultipart({ key: "a.mp4", contentType: "video/mp4" })
      const presigned = yield* store.presignPart({ key: "a.mp4", uploadId, partNumber: 1, contentLength: 3, expiresIn: Duration.minutes(1) })
      const abc = new TextEncoder().encode("abc")
      assert.deepStrictEqual(yield* memory.putPart(presigned.url, presigned.headers, abc), { _tag: "Stored", etag: "\"900150983cd24fb0d6963f7d28e17f72\"" })
      yield* store.abortMultipart("a.mp4", uploadId)
      assert.deepStrictEqual(yield* memory.putPart(presigned.url, presigned.headers, abc), { _tag: "NoSuchUpload" })
    }).pipe(Effect.provide(ObjectStore.layerMemory)))
})
