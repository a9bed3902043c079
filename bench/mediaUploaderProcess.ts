/**
 * The uploader of `upload-multipart.ts`'s runs over the shaping proxy, a process of its
 * own so that it can be killed with SIGKILL and run again: `@coursekit/client`'s
 * `uploadMedia` (as built) of one file, with a `fileResumeStore`, as a Node script would.
 *
 * `node --import tsx bench/mediaUploaderProcess.ts '<json>'`, the JSON being
 * {@link UploaderJob}. It prints `{"ready":true}` once loaded and starts when a line
 * arrives on stdin, so that its start-up is not timed; then `{"media":…,"seconds":…,"lastSeconds":…}`
 * (from that line to the answer; the finalize or complete call alone), or `{"error":…}` and exit 1.
 *
 * Storage's presigned URLs name the store's own host and port, and S3 signs the `Host`
 * header: a PUT to a host in `routes` is sent to the proxy's port instead, with the
 * `Host` it was signed for. Node's `fetch` sets `Host` itself, so those PUTs go through
 * `node:http`; the API calls go to `baseUrl` (the proxy in front of the server) by `fetch`.
 */
import { createClient } from "@coursekit/client"
import { fileResumeStore } from "@coursekit/client/node"
import * as http from "node:http"
import { openAsBlob, statSync } from "node:fs"
import { basename } from "node:path"
import { Readable } from "node:stream"

export interface UploaderJob {
  readonly baseUrl: string
  readonly adminToken: string
  readonly file: string
  readonly statePath: string
  /** `host:port` of a store → the port of the proxy in front of it on 127.0.0.1. */
  readonly routes: Readonly<Record<string, number>>
  /** Parts in flight; 0: one PUT of the whole file. */
  readonly partsInFlight: number
}

const print = (line: unknown) => process.stdout.write(`${JSON.stringify(line)}\n`)

const job = JSON.parse(process.argv[2] ?? "") as UploaderJob
const agent = new http.Agent({ keepAlive: true })

/** A PUT to `url` through the proxy on `port`, with `url`'s own `Host`: what `fetch` answers, from `node:http`. */
const throughProxy = (url: URL, port: number, init: RequestInit | undefined) =>
  new Promise<Response>((resolve, reject) => {
    const headers: Record<string, string> = { ...Object.fromEntries(new Headers(init?.headers)), host: url.host }
    const body = init?.body
    if (body instanceof Blob && headers["content-length"] === undefined) headers["content-length"] = String(body.size)
    const request = http.request({
      host: "127.0.0.1", port, path: url.pathname + url.search, method: init?.method ?? "GET", headers, agent,
      ...(init?.signal ? { signal: init.signal } : {})
    }, (response) => {
      const chunks: Array<Buffer> = []
      response.on("data", (chunk: Buffer) => chunks.push(chunk)).on("error", reject).on("end", () => {
        const status = response.statusCode ?? 0
        const answer = new Headers()
        for (const [name, value] of Object.entries(response.headers)) {
          if (value !== undefined) answer.set(name, Array.isArray(value) ? value.join(", ") : value)
        }
        resolve(new Response(status === 204 || status === 304 ? null : Buffer.concat(chunks), { status, headers: answer }))
      })
    })
    request.on("error", reject)
    if (body === undefined || body === null) request.end()
    else if (body instanceof ReadableStream) Readable.fromWeb(body as import("node:stream/web").ReadableStream).pipe(request)
    else if (body instanceof Blob) Readable.fromWeb(body.stream() as import("node:stream/web").ReadableStream).pipe(request)
    else request.end(body as string)
  })

/** Seconds of the last call (finalize or complete): how much of the time is the store assembling. */
let lastSeconds = 0

const routed: typeof fetch = async (input, init) => {
  const url = new URL(input instanceof Request ? input.url : String(input))
  const port = job.routes[url.host]
  const start = performance.now()
  const response = await (port === undefined ? fetch(input, init) : throughProxy(url, port, init))
  if (/\/(complete|finalize-upload)$/.test(url.pathname)) lastSeconds = (performance.now() - start) / 1000
  return response
}

const kit = createClient({ baseUrl: job.baseUrl, adminToken: job.adminToken, fetch: routed })
try {
  const file = new File([await openAsBlob(job.file)], basename(job.file), { type: "video/mp4", lastModified: statSync(job.file).mtimeMs })
  print({ ready: true })
  await new Promise((go) => process.stdin.once("data", go))
  const start = performance.now()
  const media = await kit.uploadMedia(file, {
    resumeStore: fileResumeStore(job.statePath),
    ...(job.partsInFlight === 0 ? { multipartThreshold: Number.POSITIVE_INFINITY } : { multipartThreshold: 0, partsInFlight: job.partsInFlight })
  })
  print({ media, seconds: (performance.now() - start) / 1000, lastSeconds })
} catch (error) {
  print({ error: String(error), problem: (error as { problem?: unknown }).problem })
  process.exitCode = 1
} finally {
  await kit.dispose()
  agent.destroy()
  process.stdin.destroy()
}
