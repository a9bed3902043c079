/**
 * Throughput of one large media upload through the standalone server as built
 * (`packages/server/dist/main.js`, embedded defaults: PGlite in a fresh `DATA_DIR`), in
 * its own process, on two stores:
 *   (a) the local store (`STORAGE=local`): the PUTs go to the server itself, which
 *       streams them to disk;
 *   (b) S3 (`STORAGE=s3`): s3rver behind the tests' SigV4 verifier
 *       (`packages/storage-s3/test/S3rverProcess.ts`), in its own process; the PUTs go
 *       to s3rver, the server only signs and completes.
 * In four steps (`BENCH_MULTIPART_RUNS`, default `check,bare,shaped,resume`):
 *
 * check — the shaping proxy's self-check (`shapingProxy.ts`): raw sockets through the
 *   link into a sink must get min(link, connections · window / RTT), within 10 %, and N
 *   connections together never more than the link.
 * bare — on bare loopback: a single PUT of the file (upload-url, PUT, finalize) next to
 *   a multipart upload with 4 parts in flight (create, part URLs in batches of up to
 *   100, part PUTs, complete), made by this process. Each request body is streamed from
 *   the file on disk, never read into memory. Times run from the first API call to the
 *   finalize or complete answer. The server's RSS is read from /proc before, every
 *   100 ms during each upload (its peak) and after. Target (issue #36): multipart ≥ 0.75×
 *   the single PUT (loopback has no round trip, so parts can only add overhead); the
 *   server's RSS flat.
 * shaped — through the shaping proxy (`shapingProxy.ts`: one link rate shared by every
 *   connection, a round-trip time, a window per connection), at each RTT: one PUT, and
 *   multipart with 4 and 8 parts in flight, each by `@coursekit/client`'s `uploadMedia`
 *   in an uploader process of its own (`mediaUploaderProcess.ts`); its API calls and its
 *   PUTs to storage all cross the link (the server's own calls to s3rver do not: a
 *   server sits next to its bucket). Timed from the uploader's start signal to the
 *   media's answer. Target: the speed-up over one PUT ≥ 0.8 of the ideal,
 *   min(link, k · window / RTT) ÷ min(link, window / RTT), at every RTT and part count.
 * resume — through the link at 50 ms, 4 parts in flight: the uploader is killed with
 *   SIGKILL once the proxy has carried half the file and the link cut at that instant
 *   (nothing it had not delivered arrives), and a new one finishes from the parts
 *   storage holds (its `fileResumeStore`). Bytes sent again are what the proxy
 *   carried for each part past its length, over both runs. Targets: ≤ one part per part
 *   in flight sent again, and time to finish ≤ 0.6× starting over (the 4-part run at
 *   50 ms of the shaped step, or one made for it).
 *
 * Environment:
 *   `BENCH_MULTIPART_MIB` (default 1024) — the bare runs' file size;
 *   `BENCH_MULTIPART_SHAPED_MIB` (default 256) — the shaped and resume runs' file size
 *     (at 200 Mbit/s, 256 MiB takes 10.7 s however many connections);
 *   `BENCH_MULTIPART_STORES` (default `local,s3rver`);
 *   `BENCH_MULTIPART_RUNS` (default `check,bare,shaped,resume`);
 *   `BENCH_MULTIPART_LINK_MBIT` (default 200) — the link's rate, all connections together;
 *   `BENCH_MULTIPART_WINDOW_KIB` (default 1024) — the window per connection;
 *   `BENCH_MULTIPART_RTTS_MS` (default `0,50,150`) — the round-trip times swept;
 *   `BENCH_MULTIPART_PARTS_IN_FLIGHT` (default `4,8`) — the multipart runs' parallel parts.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { createReadStream, mkdtempSync, openSync, readFileSync, rmSync, closeSync, writeSync } from "node:fs"
import * as http from "node:http"
import { randomBytes } from "node:crypto"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { memoryOf, root, type Server, startServer, stopServer } from "./measure.ts"
import type { UploaderJob } from "./mediaUploaderProcess.ts"
import { checkShape, idealRate, type LinkShape, type ShapeCase, type ShapedLink, shapedLink } from "./shapingProxy.ts"

const MiB = 1024 * 1024
const sizeMiB = Number(process.env.BENCH_MULTIPART_MIB ?? 1024)
const size = sizeMiB * MiB
const partsInFlight = 4
/** Which stores to measure (`BENCH_MULTIPART_STORES`, default both): local, s3rver. */
const stores = (process.env.BENCH_MULTIPART_STORES ?? "local,s3rver").split(",")
const steps = new Set((process.env.BENCH_MULTIPART_RUNS ?? "check,bare,shaped,resume").split(","))
const shapedMiB = Number(process.env.BENCH_MULTIPART_SHAPED_MIB ?? 256)
const shapedSize = shapedMiB * MiB
const linkMbit = Number(process.env.BENCH_MULTIPART_LINK_MBIT ?? 200)
const windowKiB = Number(process.env.BENCH_MULTIPART_WINDOW_KIB ?? 1024)
const rtts = (process.env.BENCH_MULTIPART_RTTS_MS ?? "0,50,150").split(",").map(Number)
const partCounts = (process.env.BENCH_MULTIPART_PARTS_IN_FLIGHT ?? "4,8").split(",").map(Number)
/** The resume step's link and parallel parts (the client's default). */
const resumeRttMs = 50
const resumePartsInFlight = 4
const shapeAt = (rttMs: number): LinkShape => ({ rateBytesPerSecond: (linkMbit * 1e6) / 8, rttMs, windowBytes: windowKiB * 1024 })
const token = "bench-admin-token"

const work = mkdtempSync(join(tmpdir(), "coursekit-bench-multipart-"))
const file = join(work, "lecture.mp4")
const shapedFile = join(work, "lecture-shaped.mp4")

/** A test file, written once: a random 8 MiB block repeated, each copy with its own first bytes. */
const writeFile = (file: string, size: number) => {
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

/** One upload over the link, by the uploader process. */
interface ShapedRun {
  readonly store: string
  readonly rttMs: number
  /** Parts in flight; 0: one PUT. */
  readonly parts: number
  readonly seconds: number
  readonly lastSeconds: number
  readonly mibPerSecond: number
  /** Medians per PUT, in ms: the store's answer after the last byte, and the uploader's next request after the answer. */
  readonly storeMs: number
  readonly clientMs: number
  /** The link's capacity lost while the proxy could not run, as a share of the run's. */
  readonly lostShare: number
}

const median = (values: ReadonlyArray<number>) => {
  if (values.length === 0) return Number.NaN
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]!
}

interface ResumeRun {
  readonly store: string
  readonly partSize: number
  /** The body bytes carried at which the first uploader was killed, and what the link had carried when it was cut. */
  readonly killedAt: number
  readonly carriedFirst: number
  /** Bytes carried past each part's length over both runs, and the parts carried twice. */
  readonly resentBytes: number
  readonly partsResent: number
  readonly seconds: number
  readonly startingOverSeconds: number
}

/**
 * Runs the uploader process on `job` until it answers the media, or until the proxy has
 * carried `killAtBytes` of request bodies, when it is killed with SIGKILL (answers undefined).
 */
const runUploader = (job: UploaderJob, link: ShapedLink, killAtBytes?: number) =>
  new Promise<{ readonly seconds: number; readonly lastSeconds: number; readonly size: number } | undefined>((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", join(root, "bench/mediaUploaderProcess.ts"), JSON.stringify(job)], {
      cwd: root,
      stdio: ["pipe", "pipe", "inherit"]
    })
    let answer: { seconds: number; lastSeconds: number; size: number } | undefined
    let failure: string | undefined
    let buffered = ""
    child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
      buffered += chunk
      const lines = buffered.split("\n")
      buffered = lines.pop()!
      for (const text of lines) {
        const line = JSON.parse(text) as { ready?: true; media?: { size_bytes: number }; seconds?: number; lastSeconds?: number; error?: string }
        if (line.ready) {
          if (killAtBytes !== undefined) {
            link.onCarried = (total) => {
              if (total < killAtBytes) return
              link.onCarried = undefined
              child.kill("SIGKILL")
              link.cut()
            }
          }
          child.stdin!.write("go\n")
        } else if (line.media !== undefined) {
          answer = { seconds: line.seconds!, lastSeconds: line.lastSeconds!, size: line.media.size_bytes }
        } else if (line.error !== undefined) {
          failure = text
        }
      }
    })
    child.once("close", (code, signal) => {
      link.onCarried = undefined
      if (answer !== undefined) resolve(answer)
      else if (killAtBytes !== undefined && signal === "SIGKILL") resolve(undefined)
      else reject(new Error(`the uploader ended with ${code ?? signal}: ${failure ?? "no answer"}`))
    })
  })

/** The shaped sweep and the resume run against one server; `storePort`: s3rver's, where the PUTs go. */
const shapedRuns = async (store: string, server: Server, storePort: number | undefined, shaped: Array<ShapedRun>, resumed: Array<ResumeRun>) => {
  const serverPort = Number(new URL(server.url).port)
  const withLink = async <A>(rttMs: number, use: (link: ShapedLink, job: (partsInFlight: number, statePath: string) => UploaderJob) => Promise<A>) => {
    const link = shapedLink(shapeAt(rttMs))
    try {
      const apiPort = await link.listen(serverPort)
      const routes: Record<string, number> = { [`127.0.0.1:${serverPort}`]: apiPort }
      if (storePort !== undefined) routes[`127.0.0.1:${storePort}`] = await link.listen(storePort)
      return await use(link, (partsInFlight, statePath) => ({
        baseUrl: `http://127.0.0.1:${apiPort}`, adminToken: token, file: shapedFile, statePath, routes, partsInFlight
      }))
    } finally {
      await link.close()
    }
  }
  let runNumber = 0
  const timedRun = async (link: ShapedLink, job: UploaderJob, rttMs: number): Promise<ShapedRun> => {
    link.resetCounts()
    const done = await runUploader(job, link)
    if (done === undefined || done.size !== shapedSize) throw new Error(`recorded ${done?.size} bytes, not ${shapedSize}`)
    const { clientMs, connections, lostBytes, storeMs } = link.timings()
    const run = {
      store, rttMs, parts: job.partsInFlight, seconds: done.seconds, lastSeconds: done.lastSeconds, mibPerSecond: shapedMiB / done.seconds,
      storeMs: median(storeMs), clientMs: median(clientMs), lostShare: lostBytes / (link.shape.rateBytesPerSecond * done.seconds)
    }
    console.error(`  ${store} RTT ${rttMs} ms, ${job.partsInFlight === 0 ? "one PUT" : `${job.partsInFlight} parts`}: ${run.mibPerSecond.toFixed(2)} MiB/s, ` +
      `${storeMs.length} PUTs over ${connections} connections`)
    return run
  }
  if (steps.has("shaped")) {
    for (const rttMs of rtts) {
      await withLink(rttMs, async (link, job) => {
        for (const parts of [0, ...partCounts]) shaped.push(await timedRun(link, job(parts, join(work, `state-${runNumber++}.json`)), rttMs))
      })
    }
  }
  if (steps.has("resume")) {
    await withLink(resumeRttMs, async (link, job) => {
      const startingOver = shaped.find((run) => run.store === store && run.rttMs === resumeRttMs && run.parts === resumePartsInFlight) ??
        await timedRun(link, job(resumePartsInFlight, join(work, `state-${runNumber++}.json`)), resumeRttMs)
      const statePath = join(work, `state-${runNumber++}.json`)
      link.resetCounts()
      const killedAt = shapedSize / 2
      if (await runUploader(job(resumePartsInFlight, statePath), link, killedAt) !== undefined) throw new Error("the uploader finished before it was killed")
      // The server and storage see their PUTs cut off before a new uploader starts.
      await new Promise((done) => setTimeout(done, 1000))
      // The service's part plan, from the killed uploader's resume store (forgotten once completed).
      const partSize = Object.values(JSON.parse(readFileSync(statePath, "utf8")) as Record<string, { part_size: number }>)[0]!.part_size
      const first = new Map(link.carried())
      const carriedFirst = link.carriedTotal()
      link.resetCounts()
      const finished = await runUploader(job(resumePartsInFlight, statePath), link)
      if (finished === undefined || finished.size !== shapedSize) throw new Error(`resumed: recorded ${finished?.size} bytes, not ${shapedSize}`)
      const second = link.carried()
      const { storeMs } = link.timings()
      console.error(`  resumed: store ms per PUT median ${median(storeMs).toFixed(0)}, max ${Math.max(...storeMs).toFixed(0)}; ${storeMs.length} PUTs`)
      let resentBytes = 0
      let partsResent = 0
      for (const part of new Set([...first.keys(), ...second.keys()])) {
        if (part === 0) continue
        const length = Math.min(partSize, shapedSize - (part - 1) * partSize)
        const extra = (first.get(part) ?? 0) + (second.get(part) ?? 0) - length
        if (extra > 0) {
          resentBytes += extra
          partsResent++
        }
      }
      resumed.push({ store, partSize, killedAt, carriedFirst, resentBytes, partsResent, seconds: finished.seconds, startingOverSeconds: startingOver.seconds })
    })
  }
}

interface Row {
  readonly store: string
  readonly single: Measured
  readonly multipart: Measured
  readonly storeRssPeak?: number
}

/** The steps against one server, on a fresh data directory: bare (single PUT first), then shaped and resume. */
const run = async (
  store: string, port: number, env: Record<string, string>, rows: Array<Row>, shaped: Array<ShapedRun>, resumed: Array<ResumeRun>,
  storeProcess?: { readonly pid: number; readonly port: number }
) => {
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
  const storePid = storeProcess?.pid
  let storeRssPeak = storePid === undefined ? 0 : memoryOf(storePid).rssMiB
  const storeSampler = storePid === undefined
    ? undefined
    : setInterval(() => (storeRssPeak = Math.max(storeRssPeak, memoryOf(storePid).rssMiB)), 100)
  try {
    // Warm-up: both flows once on 12 MiB (3 parts), then the server's start-up garbage collected away.
    await singlePut(server, 12 * MiB)
    await multipart(server, 12 * MiB)
    await settle(server)
    if (steps.has("bare")) {
      const single = await measure(server, singlePut)
      await settle(server)
      const parts = await measure(server, multipart)
      rows.push({ store, single, multipart: parts, ...(storePid === undefined ? {} : { storeRssPeak }) })
    }
    if (storeSampler !== undefined) clearInterval(storeSampler)
    await shapedRuns(store, server, storeProcess?.port, shaped, resumed)
  } finally {
    if (storeSampler !== undefined) clearInterval(storeSampler)
    await stopServer(server)
    rmSync(dataDir, { recursive: true, force: true })
  }
}

const fixed = (value: number, digits: number, width: number) => value.toFixed(digits).padStart(width)
const met = (ok: boolean) => (ok ? "met" : "missed")

try {
  const rows: Array<Row> = []
  const shaped: Array<ShapedRun> = []
  const resumed: Array<ResumeRun> = []
  let selfCheck: ReadonlyArray<ShapeCase> = []
  if (steps.has("check")) {
    selfCheck = await checkShape(
      { rateBytesPerSecond: (linkMbit * 1e6) / 8, windowBytes: windowKiB * 1024 },
      [...new Set([...rtts, resumeRttMs])].flatMap((rttMs) => [1, ...partCounts].map((connections) => ({ rttMs, connections }))),
      1.5
    )
  }
  // The warm-up reads the first 12 MiB of the bare runs' file.
  writeFile(file, steps.has("bare") ? size : 12 * MiB)
  if (steps.has("shaped") || steps.has("resume")) writeFile(shapedFile, shapedSize)
  if (steps.has("bare") || steps.has("shaped") || steps.has("resume")) {
    if (stores.includes("local")) await run("local", 4310, { STORAGE: "local" }, rows, shaped, resumed)
    if (stores.includes("s3rver")) {
      const s3Directory = mkdtempSync(join(work, "s3rver-"))
      const bucket = "coursekit-bench"
      const s3rver = await startS3rver(s3Directory, bucket)
      try {
        await run("s3rver", 4311, {
          STORAGE: "s3",
          S3_ENDPOINT: s3rver.endpoint,
          S3_REGION: "us-east-1",
          S3_BUCKET: bucket,
          S3_ACCESS_KEY_ID: "S3RVER",
          S3_SECRET_ACCESS_KEY: "S3RVER",
          S3_FORCE_PATH_STYLE: "true"
        }, rows, shaped, resumed, { pid: s3rver.child.pid!, port: Number(new URL(s3rver.endpoint).port) })
      } finally {
        await stopS3rver(s3rver.child)
        rmSync(s3Directory, { recursive: true, force: true })
      }
    }
  }

  const linkText = `${linkMbit} Mbit/s shared by all connections, window ${windowKiB} KiB per connection`
  if (selfCheck.length > 0) {
    console.log(`\nShaping proxy self-check: ${linkText}; raw sockets writing through it into a sink, 1.5 s each\n`)
    console.log(`${"RTT ms".padStart(7)}${"connections".padStart(13)}${"MiB/s".padStart(9)}${"expected".padStart(10)}${"peak 250 ms".padStart(13)}${"counted".padStart(9)}  ok`)
    for (const check of selfCheck) {
      console.log(`${fixed(check.shape.rttMs, 0, 7)}${fixed(check.connections, 0, 13)}${fixed(check.measured / MiB, 2, 9)}${fixed(check.expected / MiB, 2, 10)}` +
        `${fixed(check.peak / MiB, 2, 13)}${(check.counted ? "exact" : "OFF").padStart(9)}  ${check.ok ? "yes" : "NO"}`)
    }
    console.log("(ok: within 10 % of expected = min(link, connections · window / RTT), ≤ 1.02× the link, ≤ 1.25× in any 250 ms, the proxy's byte count exact)")
    console.log(`self-check: ${selfCheck.every((check) => check.ok) ? "the proxy has the shape" : "FAILED, the figures below are not of this shape"}`)
  }

  if (rows.length > 0) {
    console.log(`\nBare loopback: media upload of ${sizeMiB} MiB through the standalone server: one PUT, and multipart with ${partsInFlight} parts in flight\n`)
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
      console.log(`target: multipart ≥ 0.75× the single PUT on bare loopback: ${met(ratio >= 0.75)}`)
    }
  }

  if (shaped.length > 0) {
    console.log(`\nShaped link: ${linkText}; media upload of ${shapedMiB} MiB by @coursekit/client in its own process\n`)
    console.log(`${"".padEnd(9)}${"RTT ms".padStart(7)}  ${"upload".padEnd(11)}${"MiB/s".padStart(7)}${"s".padStart(7)}${"last s".padStart(8)}` +
      `${"store ms".padStart(9)}${"gap ms".padStart(7)}${"lost".padStart(6)}${"speed-up".padStart(10)}${"ideal".padStart(7)}${"of ideal".padStart(10)}${"w/o last".padStart(10)}  ≥ 0.8 of ideal`)
    const fractions: Array<{ readonly run: ShapedRun; readonly fraction: number }> = []
    for (const run of shaped) {
      const single = shaped.find((other) => other.store === run.store && other.rttMs === run.rttMs && other.parts === 0)
      const shape = shapeAt(run.rttMs)
      const head = `${run.store.padEnd(9)}${fixed(run.rttMs, 0, 7)}  ${(run.parts === 0 ? "one PUT" : `${run.parts} parts`).padEnd(11)}` +
        `${fixed(run.mibPerSecond, 2, 7)}${fixed(run.seconds, 1, 7)}${fixed(run.lastSeconds, 2, 8)}` +
        `${fixed(run.storeMs, 0, 9)}${(Number.isNaN(run.clientMs) ? "–" : run.clientMs.toFixed(0)).padStart(7)}${(`${(run.lostShare * 100).toFixed(1)}%`).padStart(6)}`
      if (run.parts === 0 || single === undefined) {
        console.log(head)
        continue
      }
      const speedUp = run.mibPerSecond / single.mibPerSecond
      const ideal = idealRate(shape, run.parts) / idealRate(shape, 1)
      const fraction = speedUp / ideal
      // The same without the last call (s3rver's complete copies the parts into one object).
      const withoutLast = (single.seconds - single.lastSeconds) / (run.seconds - run.lastSeconds) / ideal
      fractions.push({ run, fraction })
      console.log(`${head}${fixed(speedUp, 2, 9)}×${fixed(ideal, 2, 6)}×${fixed(fraction, 3, 10)}${fixed(withoutLast, 3, 10)}  ${met(fraction >= 0.8)}`)
    }
    console.log("(s: the uploader's start to the media's answer; last s: the finalize or complete call alone; store ms: median per PUT from its last byte " +
      "at the store to the answer's first byte; gap ms: median from an answer at the uploader to its next request on that connection; " +
      "lost: the link's capacity lost while the proxy was kept from running past the 50 ms it may catch up; " +
      "ideal: min(link, k · window / RTT) ÷ min(link, window / RTT); w/o last: of ideal with both times less their last call)")
    if (fractions.length > 0) {
      const lowest = fractions.reduce((low, next) => (next.fraction < low.fraction ? next : low))
      console.log(`target: multipart ≥ 0.8 of the ideal speed-up at every RTT and part count: ${met(lowest.fraction >= 0.8)}` +
        ` (lowest ${lowest.fraction.toFixed(3)}: ${lowest.run.store}, ${lowest.run.rttMs} ms, ${lowest.run.parts} parts)`)
    }
  }

  for (const resume of resumed) {
    const allowed = resumePartsInFlight * resume.partSize
    const timeRatio = resume.seconds / resume.startingOverSeconds
    console.log(`\nResume, ${resume.store}: ${shapedMiB} MiB over the link at ${resumeRttMs} ms, ${resumePartsInFlight} parts in flight of ${resume.partSize / MiB} MiB; ` +
      `the uploader killed (SIGKILL) at ${(resume.killedAt / MiB).toFixed(0)} MiB carried and the link cut (${(resume.carriedFirst / MiB).toFixed(1)} MiB carried)`)
    console.log(`sent again: ${(resume.resentBytes / MiB).toFixed(1)} MiB over ${resume.partsResent} parts; target ≤ ${resumePartsInFlight} parts (${allowed / MiB} MiB): ${met(resume.resentBytes <= allowed)}`)
    console.log(`time to finish: ${resume.seconds.toFixed(1)} s against ${resume.startingOverSeconds.toFixed(1)} s starting over, ${timeRatio.toFixed(2)}×; target ≤ 0.6×: ${met(timeRatio <= 0.6)}`)
  }
} finally {
  agent.destroy()
  rmSync(work, { recursive: true, force: true })
}
