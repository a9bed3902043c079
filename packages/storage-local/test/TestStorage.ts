/**
 * The local store served over real HTTP for a test file: `node:http` on 127.0.0.1 with
 * an ephemeral port, the upload and file routes, and a root in a fresh directory under
 * the run's scratch directory, removed afterwards. Plus raw HTTP helpers for requests
 * `fetch` cannot make (unnormalized paths, chunked bodies, aborts).
 */
import { ObjectStore } from "@coursekit/core"
import { NodeHttpServer } from "@effect/platform-node"
import { Context, Duration, Effect, Layer, Redacted } from "effect"
import { HttpRouter, HttpServer } from "effect/http"
import { mkdtempSync, readdirSync, rmSync } from "node:fs"
import { createServer, type IncomingHttpHeaders, request as httpRequest } from "node:http"
import { tmpdir } from "node:os"
import { basename, join } from "node:path"
import * as LocalStorageRoutes from "@coursekit/http/local-storage"
import { LocalObjectStore, type LocalTransfers, ServedKeys } from "../src/index.ts"

/** Where the store under test lives and answers. */
export class TestStorage extends Context.Service<TestStorage, {
  /** `http://127.0.0.1:<port>` */
  readonly baseUrl: string
  /** The store's root. */
  readonly root: string
  /** The directory holding the root (and nothing the store may serve). */
  readonly dir: string
}>()("test/TestStorage") {}

export const secret = Redacted.make("test-signing-secret-0123456789")

/** The store and its routes on a fresh Node server. */
export const layerServed = (
  options: { readonly maxUploadBytes?: number } = {}
): Layer.Layer<ObjectStore | LocalTransfers | TestStorage, unknown> =>
  Layer.unwrap(Effect.gen(function*() {
    const server = yield* HttpServer.HttpServer
    const address = server.address
    if (address._tag === "UnixPathAddress") return yield* Effect.die("expected a TCP address")
    const baseUrl = `http://127.0.0.1:${address.port}`
    const dir = mkdtempSync(join(process.env.COURSEKIT_TEST_TMP ?? tmpdir(), "storage-local-"))
    yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(dir, { recursive: true, force: true })))
    const root = join(dir, "root")
    const store = LocalObjectStore.layer({
      root,
      uploadBaseUrl: `${baseUrl}/storage`,
      publicBaseUrl: `${baseUrl}/files`,
      secret,
      maxUploadBytes: options.maxUploadBytes
    })
    // The store alone, without the upload flow: every stored file is served.
    return HttpRouter.serve(LocalStorageRoutes.layer(), { disableLogger: true, disableListenLog: true }).pipe(
      Layer.provide(ServedKeys.layerEveryFile),
      Layer.provideMerge(store),
      Layer.merge(Layer.succeed(TestStorage, TestStorage.of({ baseUrl, root, dir })))
    )
  })).pipe(
    Layer.provide(NodeHttpServer.layer(() => createServer(), {
      port: 0,
      host: "127.0.0.1",
      gracefulShutdownTimeout: Duration.seconds(1)
    }))
  )

/** Reads what a public URL serves. */
export const fetchPublic = (url: string) =>
  Effect.promise(async () => {
    const response = await fetch(url)
    return {
      status: response.status,
      body: new Uint8Array(await response.arrayBuffer()),
      contentType: response.headers.get("content-type")
    }
  })

/** A response read whole. */
export interface RawReply {
  readonly status: number
  readonly headers: IncomingHttpHeaders
  readonly body: string
}

/**
 * One request with `node:http`, the path sent exactly as given. Without a
 * `content-length` header, the chunks go chunked.
 */
export const raw = (options: {
  readonly method: string
  readonly path: string
  readonly headers?: Readonly<Record<string, string>>
  readonly chunks?: ReadonlyArray<Uint8Array>
}) =>
  Effect.gen(function*() {
    const { baseUrl } = yield* TestStorage
    const { port } = new URL(baseUrl)
    return yield* Effect.promise(() =>
      new Promise<RawReply>((resolve, reject) => {
        const request = httpRequest(
          { host: "127.0.0.1", port, method: options.method, path: options.path, headers: { ...options.headers }, agent: false },
          (response) => {
            const parts: Array<Buffer> = []
            response.on("data", (part: Buffer) => parts.push(part))
            response.on("end", () =>
              resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(parts).toString("utf8") }))
            response.on("error", reject)
          }
        )
        request.on("error", reject)
        for (const chunk of options.chunks ?? []) request.write(chunk)
        request.end()
      })
    )
  })

/**
 * Starts a PUT of `declaredLength` bytes, sends `sentBytes` of them, and hands back a
 * function that kills the connection, as a client that goes away mid-upload.
 */
export const startAbandonedUpload = (url: string, contentType: string, declaredLength: number, sentBytes: number) =>
  Effect.sync(() => {
    const target = new URL(url)
    const request = httpRequest({
      host: target.hostname,
      port: target.port,
      method: "PUT",
      path: target.pathname + target.search,
      headers: { "content-type": contentType, "content-length": String(declaredLength) },
      agent: false
    })
    request.on("error", () => {})
    request.write(new Uint8Array(sentBytes).fill(7))
    return () => request.destroy()
  })

/** Every temporary upload file under `root`. */
export const temporaryFiles = (root: string): Array<string> =>
  (readdirSync(root, { recursive: true }) as Array<string>).filter((entry) => basename(entry).startsWith(".upload-"))

/** Polls `condition` every 20 ms for up to 5 s; whether it came true. */
export const eventually = (condition: () => boolean) =>
  Effect.gen(function*() {
    for (let attempt = 0; attempt < 250; attempt++) {
      if (condition()) return true
      yield* Effect.sleep(Duration.millis(20))
    }
    return condition()
  })
