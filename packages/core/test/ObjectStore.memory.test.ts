import { Effect } from "effect"
import { MemoryObjectStore, ObjectStore } from "../src/index.ts"
import { type ClientPut, objectStoreSuite } from "../src/testing/index.ts"

objectStoreSuite("memory", ObjectStore.layerMemory, {
  put: Effect.gen(function*() {
    const memory = yield* MemoryObjectStore
    const put: ClientPut = (presigned, body, headers) => memory.put(presigned.url, headers, body)
    return put
  })
})
