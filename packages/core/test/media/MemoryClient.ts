/**
 * The memory store as the conformance suite's client, for the suites run over it (here
 * and in examples/). The suite compares HTTP statuses across stores; the memory store
 * answers in its own words, so they are mapped here to what S3 would answer.
 */
import { Effect } from "effect"
import { type MemoryGet, MemoryObjectStore, type MemoryPut, type MemoryPutPart } from "../../src/index.ts"
import type { ClientGet, ClientPut, ClientPutPart, ObjectStoreSuiteOptions } from "../../src/testing/index.ts"

const putStatus = { Stored: 200, Refused: 403, TooLarge: 413 } satisfies Record<MemoryPut["_tag"], number>
const putPartStatus = { Stored: 200, Refused: 403, NoSuchUpload: 404 } satisfies Record<MemoryPutPart["_tag"], number>
const getStatus = { Found: 200, Refused: 403, NotFound: 404 } satisfies Record<MemoryGet["_tag"], number>

const put = Effect.map(Effect.service(MemoryObjectStore), (memory): ClientPut => (presigned, body, headers) =>
  Effect.map(memory.put(presigned.url, headers, body), (answer) => putStatus[answer._tag]))

const putPart = Effect.map(Effect.service(MemoryObjectStore), (memory): ClientPutPart => (presigned, body, headers) =>
  Effect.map(memory.putPart(presigned.url, headers, body), (answer) => ({
    status: putPartStatus[answer._tag],
    etag: answer._tag === "Stored" ? answer.etag : undefined
  })))

// No headers: the memory store plays no HTTP headers or ranges (`answersHttp: false`).
const get = Effect.map(Effect.service(MemoryObjectStore), (memory): ClientGet => (url) =>
  Effect.map(memory.get(url), (answer) => ({
    status: getStatus[answer._tag],
    headers: {},
    body: answer._tag === "Found" ? answer.body : new Uint8Array()
  })))

/** The suite's `put`, `putPart` and `get` over the layer's `MemoryObjectStore`. */
export const memoryClient = {
  put,
  putPart,
  get,
  answersHttp: false
} satisfies ObjectStoreSuiteOptions<MemoryObjectStore>
