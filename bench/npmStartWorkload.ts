/**
 * `bench/memory.ts`'s workload part (`BENCH_ONLY=workload`): the server as `npm start`
 * runs it, on the embedded defaults (only `DATA_DIR` and `PORT` set: PGlite, local disk,
 * the admin token from `DATA_DIR/admin-token`), and the same command with `DATABASE_URL`
 * as the comparison that shows PGlite's share. For each:
 *   1. a first start on an empty `DATA_DIR`, idle: RSS every `marks` second after it first
 *      answered (the target is the 10 s reading, as in the servers part);
 *   2. an admin's workload through the HTTP API: 100 courses and 500 lessons (bodies of a
 *      few KB), 50 list pages followed by their cursors, 200 public course reads, 10 media
 *      uploads of 1 MiB (upload URL, PUT, finalize), 20 searches; highest RSS sampled
 *      every 250 ms meanwhile; then 10 s idle and RSS again (the target), and again after
 *      `idleSeconds`;
 *   3. a later start on the same directory (its 100 courses), idle, read as in 1.
 * The measured process is the server's own Node process (`node --import tsx
 * packages/server/src/main.ts`, found among `npm start`'s descendants), not npm's
 * (which runs on the machine's Node and holds ~55 MiB of its own) nor tsx's esbuild
 * service. Each reading also splits the RSS, from `/proc/<pid>/smaps`: PostgreSQL's
 * WebAssembly memory, glibc's malloc arenas, and the V8 heap as the process reports it
 * (`process.memoryUsage()`, written on SIGUSR2 by `memoryReport.mjs`, which the bench
 * preloads through `NODE_OPTIONS`; the server has no such endpoint).
 */
import { type ChildProcess, spawn } from "node:child_process"
import { existsSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { descendantsOf, freshDatabase, memoryOf, root, seededText, withDatabase } from "./measure.ts"

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms))
const mib = (bytes: number) => bytes / 1024 / 1024

/** What the workload does, as the issue sets it. */
const workload = { courses: 100, lessons: 500, listPages: 50, publicReads: 200, uploads: 10, uploadBytes: 1024 * 1024, searches: 20 }

/** A running `npm start` and the server process it runs. */
interface Started {
  readonly npm: ChildProcess
  readonly pid: number
  readonly url: string
}

const commandOf = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ")
  } catch {
    return ""
  }
}

/** `npm start` in its own process group with `env`, until `/health/ready` answers 200. */
const npmStart = async (env: Record<string, string>, port: number): Promise<Started> => {
  const npm = spawn("npm", ["start"], {
    cwd: root,
    detached: true,
    env: { ...process.env, ...env, PORT: String(port) },
    stdio: ["ignore", openSync("/dev/null", "w"), "inherit"]
  })
  const url = `http://127.0.0.1:${port}`
  for (let attempt = 0; attempt < 600; attempt++) {
    if (npm.exitCode !== null) throw new Error(`npm start exited with ${npm.exitCode}`)
    const ok = await fetch(`${url}/health/ready`, { signal: AbortSignal.timeout(2000) }).then((response) => response.ok, () => false)
    if (ok) {
      const pid = descendantsOf(npm.pid!).find((candidate) => /node .*packages\/server\/(src|dist)\/main\./.test(commandOf(candidate)))
      if (pid === undefined) throw new Error("npm start answers, but no server process was found under it")
      return { npm, pid, url }
    }
    await sleep(100)
  }
  throw new Error("npm start was not ready after 60 s")
}

/** Ctrl-C: SIGINT to the group, as a terminal sends it; waits for npm to exit. */
const stop = (started: Started) =>
  new Promise<void>((done) => {
    if (started.npm.exitCode !== null) return done()
    started.npm.on("exit", () => done())
    process.kill(-started.npm.pid!, "SIGINT")
  })

/** A process's RSS split, in MiB: from smaps, and the V8 heap as `memoryReport.mjs` wrote it. */
interface Reading {
  readonly rss: number
  /** PostgreSQL's WebAssembly memory: the anonymous writable mapping of ≥ 128 MiB (PGlite's is at least that). */
  readonly wasm: number
  /** glibc's thread arenas (64 MiB-aligned anonymous mappings) and its main heap (`[heap]`). */
  readonly malloc: number
  /** Mapped files: the node binary, shared libraries. */
  readonly files: number
  /** `process.memoryUsage()`: the V8 heap committed, of it the young generation, and used; Buffers and ArrayBuffers. */
  readonly heapTotal: number
  readonly newSpace: number
  readonly heapUsed: number
  readonly arrayBuffers: number
}

const arenaAlignment = 64 * 1024 * 1024

const smapsOf = (pid: number) => {
  let wasm = 0, malloc = 0, files = 0
  let current: { start: bigint; size: number; perms: string; path: string } | undefined
  for (const line of readFileSync(`/proc/${pid}/smaps`, "utf8").split("\n")) {
    const header = /^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ (\d+)\s*(.*)$/.exec(line)
    if (header !== null) {
      const start = BigInt(`0x${header[1]}`)
      current = { start, size: Number(BigInt(`0x${header[2]}`) - start), perms: header[3]!, path: header[4] === "0" ? header[5]! : header[5] || "file" }
      continue
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line)
    if (rss === null || current === undefined) continue
    const bytes = Number(rss[1]) * 1024
    if (current.path === "[heap]" || (current.path === "" && current.start % BigInt(arenaAlignment) === 0n && current.size <= arenaAlignment)) malloc += bytes
    else if (current.path === "" && current.perms === "rw-p" && current.size >= 128 * 1024 * 1024) wasm += bytes
    else if (current.path !== "" && !current.path.startsWith("[")) files += bytes
  }
  return { wasm: mib(wasm), malloc: mib(malloc), files: mib(files) }
}

/** Asks the server for its `process.memoryUsage()` (SIGUSR2 to `memoryReport.mjs`), waiting up to 2 s for the file. */
const heapOf = async (pid: number, reportDir: string) => {
  const file = join(reportDir, `${pid}.json`)
  rmSync(file, { force: true })
  process.kill(pid, "SIGUSR2")
  for (let attempt = 0; attempt < 40 && !existsSync(file); attempt++) await sleep(50)
  const usage = JSON.parse(readFileSync(file, "utf8")) as NodeJS.MemoryUsage & { readonly newSpace: number }
  return { heapTotal: mib(usage.heapTotal), newSpace: mib(usage.newSpace), heapUsed: mib(usage.heapUsed), arrayBuffers: mib(usage.arrayBuffers) }
}

const read = async (pid: number, reportDir: string): Promise<Reading> => {
  // RSS and smaps first: the report itself allocates a little.
  const rss = memoryOf(pid).rssMiB
  const split = smapsOf(pid)
  return { rss, ...split, ...(await heapOf(pid, reportDir)) }
}

/** Seeded HTML of a few KB: headings, paragraphs, a list, a link, as a lesson or course body. */
const bodies = (seed: number) => {
  const text = seededText(seed)
  const paragraph = () => `<p>${Array.from({ length: 4 + Math.floor(text.random() * 4) }, () => text.sentence()).join(" ")}</p>`
  return (sections: number) =>
    Array.from({ length: sections }, (_, index) =>
      `<h2>${text.sentence(4)}</h2>${paragraph()}${paragraph()}` +
      `<ul>${Array.from({ length: 4 }, () => `<li>${text.sentence(6)}</li>`).join("")}</ul>` +
      `<p>${text.sentence()} <a href="https://example.com/notes/${index}">${text.sentence(3)}</a> <strong>${text.sentence(5)}</strong></p>`
    ).join("")
}

/** The workload on `url` as an admin with `token`: answers its highest RSS of `pid`, sampled every 250 ms, and its duration. */
const runWorkload = async (url: string, token: string, pid: number) => {
  const began = performance.now()
  let highest = memoryOf(pid).rssMiB
  const sampler = setInterval(() => (highest = Math.max(highest, memoryOf(pid).rssMiB)), 250)
  const admin = { authorization: `Bearer ${token}` }
  const json = { ...admin, "content-type": "application/json" }
  const call = async (path: string, init: RequestInit = {}, expected = [200]) => {
    const response = await fetch(url + path, init)
    const body = await response.text()
    if (!expected.includes(response.status)) throw new Error(`${init.method ?? "GET"} ${path}: ${response.status} ${body.slice(0, 300)}`)
    return { response, body: body === "" ? undefined : JSON.parse(body) }
  }
  const body = bodies(36)
  const text = seededText(37)
  try {
    const slugs: Array<string> = []
    for (let course = 0; course < workload.courses; course++) {
      const created = await call("/courses", {
        method: "POST",
        headers: json,
        body: JSON.stringify({ title: `${text.sentence(4).slice(0, -1)} ${course + 1}`, description: text.sentence(), content_html: body(2) })
      }, [201])
      slugs.push(created.body.slug)
      for (let lesson = 0; lesson < workload.lessons / workload.courses; lesson++) {
        await call(`/courses/${created.body.id}/lessons`, {
          method: "POST",
          headers: json,
          body: JSON.stringify({ title: text.sentence(5).slice(0, -1), content_html: body(3), is_preview: lesson === 0 })
        }, [201])
      }
    }
    // List pages as the Studio pages through them: 10 a page, the next cursor from Link.
    let next: string | undefined = "/courses?limit=10"
    for (let page = 0; page < workload.listPages; page++) {
      const { response } = await call(next ?? "/courses?limit=10", { headers: admin })
      const link = /<([^>]+)>;\s*rel="next"/.exec(response.headers.get("link") ?? "")?.[1]
      next = link === undefined ? undefined : new URL(link, url).pathname + new URL(link, url).search
    }
    for (let read = 0; read < workload.publicReads; read++) await call(`/public/courses/${slugs[read % slugs.length]}`)
    const file = Buffer.alloc(workload.uploadBytes, 7)
    for (let upload = 0; upload < workload.uploads; upload++) {
      const ticket = await call("/admin/media/upload-url", {
        method: "POST",
        headers: json,
        body: JSON.stringify({ filename: `clip-${upload}.mp4`, type: "video/mp4", size_bytes: file.length })
      })
      const put = await fetch(new URL(ticket.body.upload_url, url), { method: "PUT", headers: ticket.body.headers, body: file })
      if (put.status !== 200) throw new Error(`PUT ${ticket.body.upload_url}: ${put.status} ${await put.text()}`)
      await call("/admin/media/finalize-upload", { method: "POST", headers: json, body: JSON.stringify({ file_key: ticket.body.file_key }) })
    }
    for (let search = 0; search < workload.searches; search++) {
      const found = await call(`/courses/search?q=${encodeURIComponent(text.pick(["bread", "crust dough", "levain", "oven steam", "proof"]))}`, { headers: admin })
      if (found.body.length === 0) throw new Error("a search found nothing")
    }
  } finally {
    clearInterval(sampler)
  }
  return { highest: Math.max(highest, memoryOf(pid).rssMiB), seconds: (performance.now() - began) / 1000 }
}

interface Run {
  readonly name: string
  readonly firstStart: Array<Reading>
  readonly workloadPeak: number
  readonly workloadSeconds: number
  readonly afterWorkload: Reading
  readonly afterIdle: Reading
  readonly laterStart: Array<Reading>
  readonly peak: number
}

/**
 * Runs the part for `npm start` with `env` (on top of `DATA_DIR` and `PORT`): readings at
 * `marks` seconds after each start, and `afterSeconds` after the workload.
 */
const measure = async (
  name: string,
  env: Record<string, string>,
  port: number,
  marks: ReadonlyArray<number>,
  afterSeconds: ReadonlyArray<number>,
  reportDir: string
): Promise<Run> => {
  const dataDir = mkdtempSync(join(tmpdir(), "coursekit-bench-workload-"))
  const runEnv = {
    ...env,
    DATA_DIR: dataDir,
    NODE_OPTIONS: `--import=${join(root, "bench/servers/memoryReport.mjs")} ${process.env.BENCH_SERVER_NODE_OPTIONS ?? ""}`.trim(),
    MEMORY_REPORT_DIR: reportDir
  }
  const idleReadings = async (started: Started) => {
    const readings: Array<Reading> = []
    const since = performance.now()
    for (const mark of marks) {
      await sleep(since + mark * 1000 - performance.now())
      readings.push(await read(started.pid, reportDir))
    }
    return readings
  }
  let started: Started | undefined
  try {
    started = await npmStart(runEnv, port)
    const firstStart = await idleReadings(started)
    const token = env.ADMIN_TOKENS ?? readFileSync(join(dataDir, "admin-token"), "utf8").trim()
    const { highest: workloadPeak, seconds: workloadSeconds } = await runWorkload(started.url, token, started.pid)
    const after: Array<Reading> = []
    const since = performance.now()
    for (const seconds of afterSeconds) {
      await sleep(since + seconds * 1000 - performance.now())
      after.push(await read(started.pid, reportDir))
    }
    const peak = memoryOf(started.pid).peakMiB
    await stop(started)
    started = await npmStart(runEnv, port)
    const laterStart = await idleReadings(started)
    return { name, firstStart, workloadPeak, workloadSeconds, afterWorkload: after[0]!, afterIdle: after[after.length - 1]!, laterStart, peak }
  } finally {
    if (started !== undefined) await stop(started)
    rmSync(dataDir, { recursive: true, force: true })
  }
}

/**
 * The workload part: the embedded default, then the same on PostgreSQL at `serverUrl`
 * (a database of its own, dropped after), printed as two tables.
 */
export const workloadPart = async (serverUrl: string, idleSeconds: number) => {
  const marks = [...new Set([5, 10, 30, 60, idleSeconds])].filter((mark) => mark <= idleSeconds).sort((a, b) => a - b)
  const afterSeconds = [...new Set([10, idleSeconds])].sort((a, b) => a - b)
  const reportDir = mkdtempSync(join(tmpdir(), "coursekit-bench-memory-report-"))
  const database = `coursekit_bench_workload_${process.pid}`
  const dropDatabase = await freshDatabase(serverUrl, database)
  try {
    console.log(
      `\nWorkload after npm start (the server's node process; RSS, and its split in MiB): ${workload.courses} courses, ` +
        `${workload.lessons} lessons, ${workload.listPages} list pages, ${workload.publicReads} public course reads, ` +
        `${workload.uploads} uploads of 1 MiB, ${workload.searches} searches; read ${afterSeconds.join(" and ")} s after it. ` +
        `Idle after each start at ${marks.join(", ")} s.`
    )
    const runs = [await measure("embedded (PGlite)", {}, 4220, marks, afterSeconds, reportDir)]
    if (process.env.BENCH_WORKLOAD_POSTGRES !== "false") {
      runs.push(await measure("postgres", { DATABASE_URL: withDatabase(serverUrl, database), DATABASE_POOL_SIZE: "10" }, 4221, marks, afterSeconds, reportDir))
    }
    const cell = (value: number, width: number) => value.toFixed(0).padStart(width)
    console.log("\nserver             reading                     RSS  wasm  malloc  files  V8 heap  young  used  buffers")
    for (const run of runs) {
      const rows: Array<[string, Reading]> = [
        ...run.firstStart.map((reading, index): [string, Reading] => [`first start, ${marks[index]} s`, reading]),
        [`workload (${run.workloadSeconds.toFixed(0)} s), highest`, { rss: run.workloadPeak } as Reading],
        [`after workload, ${afterSeconds[0]} s`, run.afterWorkload],
        ...(afterSeconds.length > 1 ? [[`after workload, ${afterSeconds[1]} s`, run.afterIdle] as [string, Reading]] : []),
        ...run.laterStart.map((reading, index): [string, Reading] => [`later start, ${marks[index]} s`, reading])
      ]
      for (const [label, reading] of rows) {
        const split = reading.heapTotal === undefined
          ? ""
          : `${cell(reading.wasm, 5)} ${cell(reading.malloc, 7)} ${cell(reading.files, 6)} ${cell(reading.heapTotal, 8)} ` +
            `${cell(reading.newSpace, 6)} ${cell(reading.heapUsed, 5)} ${cell(reading.arrayBuffers, 8)}`
        console.log(`${run.name.padEnd(18)} ${label.padEnd(26)} ${cell(reading.rss, 4)} ${split}`)
      }
      console.log(`${run.name.padEnd(18)} ${"peak (VmHWM) to workload end".padEnd(26)} ${cell(run.peak, 4)}`)
    }
    const embedded = runs[0]!
    const postgres = runs[1]
    const tenSeconds = marks.indexOf(10)
    const verdict = (value: number, limit: number) => `${value.toFixed(0)} MiB ≤ ${limit}: ${value <= limit ? "met" : "MISSED"}`
    console.log(
      `\ntargets (embedded): after the workload, 10 s idle ${verdict(embedded.afterWorkload.rss, 250)}; ` +
        `idle 10 s after start, first start ${verdict(embedded.firstStart[tenSeconds]!.rss, 200)}, ` +
        `later start ${verdict(embedded.laterStart[tenSeconds]!.rss, 200)}`
    )
    if (postgres !== undefined) {
      console.log(
        `PGlite's share after the workload: embedded − postgres ${(embedded.afterWorkload.rss - postgres.afterWorkload.rss).toFixed(0)} MiB ` +
          `(its WebAssembly memory ${embedded.afterWorkload.wasm.toFixed(0)} MiB resident)`
      )
    }
  } finally {
    rmSync(reportDir, { recursive: true, force: true })
    await dropDatabase()
  }
}
