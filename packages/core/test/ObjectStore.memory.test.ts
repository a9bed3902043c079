import { Effect } from "effect"
import { MemoryObjectStore, ObjectStore } from "../src/index.ts"
import { type ClientGet, type ClientPut, objectStoreSuite } from "../src/testing/index.ts"

objectStoreSuite("memory", ObjectStore.layerMemory, {
  put: Effect.gen(function*() {
    const memory = yield* MemoryObjectStore
    const put: ClientPut = (presigned, body, headers) => memory.put(presigned.url, headers, body)
    return put
  }),
  get: Effect.gen(function*() {
    const memory = yield* MemoryObjectStore
    const get: ClientGet = (url) => Effect.map(memory.get(url), (reply) => ({ ...reply, headers: {} }))
    return get
  }),
  // `MemoryObjectStore.get` plays the status and the bytes, no HTTP headers or ranges.
  answersHttp: false
})
