/**
 * Throughput of one large media upload through the standalone server as built
 * (`packages/server/dist/main.js`, embedded defaults: PGlite in a fresh `DATA_DIR`), in
 * its own process: a single PUT of the file (upload-url, PUT, finalize) next to a
 * multipart upload of the same file with 4 parts in flight (create, part URLs in batches
 * of up to 100, part PUTs, complete), in one run, on two stores:
 *   (a) the local store (`STORAGE=local`): the PUTs go to the server itself, which
 *       streams them to disk;
 *   (b) S3 (`STORAGE=s3`): s3rver behind the tests' SigV4 verifier
 *       (`packages/storage-s3/test/S3rverProcess.ts`), in its own process; the PUTs go
 *       to s3rver, the server only signs and completes.
 * Each request body is streamed from the file on disk (the whole file, or the part's
 * range), never read into memory. Times run from the first API call to the finalize or
 * complete answer. The server's RSS is read from /proc before, every 100 ms during each
 * upload (its peak) and after. Prints MiB/s, the ratio multipart ÷ single PUT and the
 * RSS. Target (issue #15): multipart ≥ 1.0× the single PUT, and the server's RSS flat.
 *
 * `BENCH_MULTIPART_MIB` (default 1024) sets the file's size.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { createReadStream, mkdtempSync, openSync, rmSync, closeSync, writeSync } from "node:fs"
import * as http from "node:http"
import { randomBytes } from "node:crypto"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { memoryOf, root, type Server, startServer, stopServer } from "./measure.ts"

const MiB = 1024 * 1024
const sizeMiB = Number(process.env.BENCH_MULTIPART_MIB ?? 1024)
const size = sizeMiB * MiB
const partsInFlight = 4
/** Which stores to measure (`BENCH_MULTIPART_STORES`, default both): local, s3rver. */
const stores = (process.env.BENCH_MULTIPART_STORES ?? "local,s3rver").split(",")
const token = "bench-admin-token"

const work = mkdtempSync(join(tmpdir(), "coursekit-bench-multipart-"))
const file = join(work, "lecture.mp4")

/** The test file, written once: a random 8 MiB block repeated, each copy with its own first bytes. */
const writeFile = () => {
  const block = randomBytes(8 * MiB)
  const fd = openSync(file, "w")
  try {
    for (let offset = 0; offset < size; offset += block.byteLength) {
      block.writeUInt32BE(offset / block.byteLength, 0)
      writeSync(fd, block, 0, Math.min(block.byteLength, size - offset))
    }
  } finally {
    closeSync(fd)
  }
}

// One connection per part in flight, kept between requests as a client would.
const agent = new http.Agent({ keepAlive: true, maxSockets: partsInFlight })

/** PUTs bytes `start`…`end` (inclusive) of the file, streamed, with exactly `headers`; answers the ETag. */
const put = (url: string, headers: Record<string, string>, start: number, end: number) =>
  new Promise<string>((done, fail) => {
    const request = http.request(url, { method: "PUT", headers, agent }, (response) => {
      let text = ""
      response.setEncoding("utf8").on("data", (chunk: string) => (text += chunk)).on("end", () => {
        if (response.statusCode !== 200) fail(new Error(`PUT answered ${response.statusCode}: ${text}`))
        else done(String(response.headers.etag ?? ""))
      })
    })
    request.on("error", fail)
    createReadStream(file, { start, end, highWaterMark: MiB }).on("error", fail).pipe(request)
  })

const api = async <A>(server: Server, method: string, path: string, body?: unknown): Promise<A> => {
  const response = await fetch(server.url + path, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  const text = await response.text()
  if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${text}`)
  return JSON.parse(text) as A
}

interface MediaFile {
  readonly file_key: string
  readonly size_bytes: number
}

/** The last step (finalize, complete) with its own duration in seconds: the store's share of the total. */
const timed = async (last: Promise<MediaFile>) => {
  const start = performance.now()
  const media = await last
  return { media, lastSeconds: (performance.now() - start) / 1000 }
}

const singlePut = async (server: Server, size: number) => {
  const issued = await api<{ upload_url: string; file_key: string; headers: Record<string, string> }>(
    server, "POST", "/admin/media/upload-url", { filename: "lecture.mp4", type: "video/mp4", size_bytes: size }
  )
  await put(issued.upload_url, issued.headers, 0, size - 1)
  return timed(api<MediaFile>(server, "POST", "/admin/media/finalize-upload", { file_key: issued.file_key }))
}

const multipart = async (server: Server, size: number) => {
  const upload = await api<{ upload_id: string; part_size: number; part_count: number }>(
    server, "POST", "/admin/media/multipart", { filename: "lecture.mp4", type: "video/mp4", size_bytes: size }
  )
  const base = `/admin/media/multipart/${upload.upload_id}`
  const etags: Array<string> = []
  // Part URLs in batches of up to 100, asked for as the upload reaches them (they expire after 5 minutes).
  let batch: Promise<Map<number, { upload_url: string; headers: Record<string, string> }>> | undefined
  let batchStart = 0
  const urlOf = async (part: number) => {
    const first = Math.floor((part - 1) / 100) * 100 + 1
    if (batch === undefined || batchStart !== first) {
      batchStart = first
      const numbers = Array.from({ length: Math.min(100, upload.part_count - first + 1) }, (_, i) => first + i)
      batch = api<{ parts: ReadonlyArray<{ part_number: number; upload_url: string; headers: Record<string, string> }> }>(
        server, "POST", `${base}/parts`, { part_numbers: numbers }
      ).then((answer) => new Map(answer.parts.map((part) => [part.part_number, part])))
    }
    return (await batch).get(part)!
  }
  let next = 1
  const worker = async () => {
    while (next <= upload.part_count) {
      const part = next++
      const { headers, upload_url } = await urlOf(part)
      const start = (part - 1) * upload.part_size
      etags[part - 1] = await put(upload_url, headers, start, Math.min(size, start + upload.part_size) - 1)
    }
  }
  await Promise.all(Array.from({ length: partsInFlight }, worker))
  return timed(api<MediaFile>(server, "POST", `${base}/complete`, {
    parts: etags.map((etag, i) => ({ part_number: i + 1, etag }))
  }))
}

interface Measured {
  readonly mibPerSecond: number
  readonly seconds: number
  /** Of which the finalize or complete call. */
  readonly lastSeconds: number
  readonly rssBefore: number
  readonly rssPeak: number
  readonly rssAfter: number
}

/** Runs one upload, sampling the server's RSS every 100 ms; the "after" reading is 1 s after it ends. */
const measure = async (server: Server, upload: (server: Server, size: number) => Promise<{ media: MediaFile; lastSeconds: number }>): Promise<Measured> => {
  const pid = server.child.pid!
  const rssBefore = memoryOf(pid).rssMiB
  let rssPeak = rssBefore
  const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, memoryOf(pid).rssMiB)), 100)
  const start = performance.now()
  let lastSeconds = 0
  try {
    const { media, lastSeconds: last } = await upload(server, size)
    if (media.size_bytes !== size) throw new Error(`recorded ${media.size_bytes} bytes, not ${size}`)
    lastSeconds = last
  } finally {
    clearInterval(sampler)
  }
  const seconds = (performance.now() - start) / 1000
  rssPeak = Math.max(rssPeak, memoryOf(pid).rssMiB)
  await new Promise((done) => setTimeout(done, 1000))
  return { mibPerSecond: sizeMiB / seconds, seconds, lastSeconds, rssBefore, rssPeak, rssAfter: memoryOf(pid).rssMiB }
}

const startS3rver = async (directory: string, bucket: string) => {
  const child = spawn(
    process.execPath,
    ["--openssl-legacy-provider", join(root, "packages/storage-s3/test/S3rverProcess.ts"), directory, bucket],
    { cwd: root, stdio: ["pipe", "pipe", "inherit"] }
  )
  const endpoint = await new Promise<string>((resolve, reject) => {
    let output = ""
    child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
      output += chunk
      if (output.includes("\n")) resolve(`http://127.0.0.1:${(JSON.parse(output.split("\n")[0]!) as { port: number }).port}`)
    })
    child.once("exit", (code) => reject(new Error(`s3rver exited with ${code}`)))
  })
  return { child, endpoint }
}

const stopS3rver = (child: ChildProcess) =>
  new Promise<void>((done) => {
    child.removeAllListeners("exit")
    child.once("exit", () => done())
    child.stdin!.end()
  })

/** Waits until the server's RSS stops falling (PGlite's start-up leaves a few hundred MiB for V8 to collect), at most 20 s. */
const settle = async (server: Server) => {
  let last = memoryOf(server.child.pid!).rssMiB
  for (let i = 0; i < 20; i++) {
    await new Promise((done) => setTimeout(done, 1000))
    const now = memoryOf(server.child.pid!).rssMiB
    if (last - now < 2) return
    last = now
  }
}

interface Row {
  readonly store: string
  readonly single: Measured
  readonly multipart: Measured
  readonly storeRssPeak?: number
}

/** Both uploads against one server, on a fresh data directory, single PUT first. */
const run = async (store: string, port: number, env: Record<string, string>, storePid?: number): Promise<Row> => {
  const dataDir = mkdtempSync(join(work, `${store}-`))
  const server = await startServer(store, "packages/server/dist/main.js", {
    DATA_DIR: dataDir,
    ADMIN_TOKENS: token,
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    HOST: "127.0.0.1",
    LOG_LEVEL: "Warn",
    // The defaults (5 GiB − 5 MiB in one PUT, 50 GiB in all) already take the file; stated so that a change of default cannot skew the run.
    UPLOAD_SINGLE_PUT_MAX_BYTES: String(5 * 1024 * MiB - 5 * MiB),
    UPLOAD_MEDIA_MAX_BYTES: String(50 * 1024 * MiB),
    ...env
  }, port)
  let storeRssPeak = storePid === undefined ? 0 : memoryOf(storePid).rssMiB
  const storeSampler = storePid === undefined
    ? undefined
    : setInterval(() => (storeRssPeak = Math.max(storeRssPeak, memoryOf(storePid).rssMiB)), 100)
  try {
    // Warm-up: both flows once on 12 MiB (3 parts), then the server's start-up garbage collected away.
    await singlePut(server, 12 * MiB)
    await multipart(server, 12 * MiB)
    await settle(server)
    const single = await measure(server, singlePut)
    await settle(server)
    const parts = await measure(server, multipart)
    return { store, single, multipart: parts, ...(storePid === undefined ? {} : { storeRssPeak }) }
  } finally {
    if (storeSampler !== undefined) clearInterval(storeSampler)
    await stopServer(server)
    rmSync(dataDir, { recursive: true, force: true })
  }
}

try {
  writeFile()
  const rows: Array<Row> = []
  rows.push(await run("local", 4310, { STORAGE: "local" }))
  if (stores.includes("s3rver")) {
  const s3Directory = mkdtempSync(join(work, "s3rver-"))
  const bucket = "coursekit-bench"
  const s3rver = await startS3rver(s3Directory, bucket)
  try {
    rows.push(await run("s3rver", 4311, {
      STORAGE: "s3",
      S3_ENDPOINT: s3rver.endpoint,
      S3_REGION: "us-east-1",
      S3_BUCKET: bucket,
      S3_ACCESS_KEY_ID: "S3RVER",
      S3_SECRET_ACCESS_KEY: "S3RVER",
      S3_FORCE_PATH_STYLE: "true"
    }, s3rver.child.pid))
  } finally {
    await stopS3rver(s3rver.child)
    rmSync(s3Directory, { recursive: true, force: true })
  }
  }

  console.log(`\nMedia upload of ${sizeMiB} MiB through the standalone server: one PUT, and multipart with ${partsInFlight} parts in flight\n`)
  console.log(`${"".padEnd(22)}${"MiB/s".padStart(8)}${"s".padStart(8)}${"last s".padStart(8)}${"RSS before".padStart(12)}${"peak".padStart(8)}${"after".padStart(8)}`)
  const line = (name: string, m: Measured) =>
    `${name.padEnd(22)}${m.mibPerSecond.toFixed(1).padStart(8)}${m.seconds.toFixed(2).padStart(8)}${m.lastSeconds.toFixed(2).padStart(8)}` +
    `${m.rssBefore.toFixed(0).padStart(12)}${m.rssPeak.toFixed(0).padStart(8)}${m.rssAfter.toFixed(0).padStart(8)}`
  for (const row of rows) {
    console.log(line(`${row.store}: single PUT`, row.single))
    console.log(line(`${row.store}: multipart`, row.multipart))
  }
  console.log("(s: first API call to the answer of the last; last s: the finalize or complete call alone; RSS of the server process, MiB)")
  for (const row of rows) {
    const ratio = row.multipart.mibPerSecond / row.single.mibPerSecond
    const growth = Math.max(row.single.rssPeak - row.single.rssBefore, row.multipart.rssPeak - row.multipart.rssBefore)
    console.log(`\n${row.store}: multipart ÷ single PUT ${ratio.toFixed(2)}×; server RSS grew at most ${growth.toFixed(0)} MiB during an upload` +
      (row.storeRssPeak === undefined ? "" : ` (s3rver's own RSS peaked at ${row.storeRssPeak.toFixed(0)} MiB)`))
    console.log(`target: multipart ≥ 1.0× the single PUT: ${ratio >= 1 ? "met" : "missed"}`)
  }
} finally {
  agent.destroy()
  rmSync(work, { recursive: true, force: true })
}
