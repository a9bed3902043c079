/**
 * Resident memory (RSS) of the standalone server as built (`packages/server/dist/main.js`),
 * each in its own process, next to the bare `node:http` + `pg` baseline of
 * `catalogue-list.ts`:
 *   (a) the embedded default (no `DATABASE_URL`: PGlite and local disk in `DATA_DIR`),
 *       on its first start (an empty directory: the database is created) and on a later
 *       start (the database exists, seeded),
 *   (b) the same server on PostgreSQL (`DATABASE_URL`),
 *   (c) the bare baseline on the same PostgreSQL database.
 * All four start together and idle; each is read 10 s after it answered ("start-up") and
 * again after `BENCH_IDLE_SECONDS` (default 120: V8 only shrinks an idle heap after
 * about 100 s without a collection). Then, one at a time, each but the first start gets
 * the list benchmark's load (its cursors, 50 connections, its warm-up; highest RSS
 * sampled every 250 ms), and after another idle period its RSS is read again. Printed as
 * a table with the peak (VmHWM) and ratios to the bare baseline. Targets: idle, the
 * embedded default ≤ 250 MiB, on PostgreSQL ≤ 150 MiB.
 *
 * That is the `servers` part; the `workload` part (`npmStartWorkload.ts`) measures
 * `npm start` after issue #36's workload. `BENCH_ONLY=servers` or `=workload` runs one of
 * them (default both).
 */
import { PGlite } from "@electric-sql/pglite"
import pg from "pg"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { freshDatabase, load, type LoadResult, memoryOf, seededRandom, type Server, startServer, stopServer } from "./measure.ts"
import { workloadPart } from "./npmStartWorkload.ts"

const serverUrl = process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres"
const seconds = Number(process.env.BENCH_SECONDS ?? 10)
const startupSeconds = 10
const idleSeconds = Number(process.env.BENCH_IDLE_SECONDS ?? 120)
const connections = 50
const parts = new Set((process.env.BENCH_ONLY ?? "servers,workload").split(",").map((part) => part.trim()))
for (const part of parts) if (!["servers", "workload"].includes(part)) throw new Error(`BENCH_ONLY: no part ${JSON.stringify(part)} (servers, workload)`)
const courses = 10_000

const database = `coursekit_bench_memory_${process.pid}`
const databaseUrl = (() => {
  const parsed = new URL(serverUrl)
  parsed.pathname = `/${database}`
  return parsed.toString()
})()
const dataDir = mkdtempSync(join(tmpdir(), "coursekit-bench-memory-"))
const firstStartDir = mkdtempSync(join(tmpdir(), "coursekit-bench-memory-first-"))

// The list benchmark's cursors.
const random = seededRandom(42)
const paths = Array.from({ length: 5000 }, () => `/courses?cursor=${1 + Math.floor(random() * courses)}&limit=10`)

const seedCourses = `
  INSERT INTO coursekit.courses (title, slug, content_html, thumbnail_key)
  SELECT 'Course number ' || i, 'course-number-' || i,
         repeat('<p>Lorem ipsum dolor sit amet, consectetur.</p>', 117),
         CASE WHEN i % 2 = 0 THEN 'courses/' || i || '/thumb.jpg' END
  FROM generate_series(1, ${courses}) AS i`

const coursekitEnv = {
  DATA_DIR: dataDir,
  ADMIN_TOKENS: "bench-admin-token",
  CDN_URL: "http://localhost/files",
  LOG_LEVEL: "Info",
  HOST: "127.0.0.1"
}
const embedded = { script: "packages/server/dist/main.js", env: coursekitEnv }
const postgres = {
  script: "packages/server/dist/main.js",
  env: { ...coursekitEnv, DATA_DIR: join(dataDir, "postgres-server"), DATABASE_URL: databaseUrl, DATABASE_POOL_SIZE: "10" }
}
const bare = { script: "bench/servers/bare-node.mjs", env: { DATABASE_URL: databaseUrl, POOL_SIZE: "10" } }

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms))

interface Row {
  readonly name: string
  readonly server: Server
  startup?: number
  idle?: number
  load?: number
  after?: number
  result?: LoadResult
}

/** Starts a server and reads its RSS `startupSeconds` after it answered (without waiting for that). */
const launch = async (name: string, spec: { script: string; env: Record<string, string> }, port: number): Promise<Row> => {
  const row: Row = { name, server: await startServer(name, spec.script, spec.env, port) }
  setTimeout(() => (row.startup = memoryOf(row.server.child.pid!).rssMiB), startupSeconds * 1000)
  return row
}

/** The list benchmark's load (after its warm-up), with the highest RSS seen every 250 ms. */
const loadRow = async (row: Row) => {
  await load(row.server.url, paths, connections, 3)
  let highest = 0
  const sampler = setInterval(() => (highest = Math.max(highest, memoryOf(row.server.child.pid!).rssMiB)), 250)
  const result = await load(row.server.url, paths, connections, seconds)
  clearInterval(sampler)
  if (result.non2xx > 0 || result.errors > 0) {
    throw new Error(`${row.name}: ${result.non2xx} non-2xx responses, ${result.errors} errors`)
  }
  row.load = highest
  row.result = result
}

/** The servers part: the four servers side by side, idle and under the list benchmark's load. */
const serversPart = async () => {
  const dropDatabase = await freshDatabase(serverUrl, database)
  const rows: Array<Row> = []
  try {
    console.log(
      `Memory (RSS): ${startupSeconds}s after start-up, idle ${idleSeconds}s after it, highest under ${seconds}s of ` +
        `GET /courses (${connections} connections), idle ${idleSeconds}s after the load; ${courses} courses of 5 KB`
    )
    // Both databases migrated by a first start of their server, then seeded alike (PGlite
    // opened here, with its server stopped).
    await stopServer(await startServer("postgres", postgres.script, postgres.env, 4200))
    const seeder = new pg.Client({ connectionString: databaseUrl })
    await seeder.connect()
    await seeder.query(seedCourses)
    await seeder.query("VACUUM ANALYZE coursekit.courses")
    await seeder.end()
    await stopServer(await startServer("embedded", embedded.script, embedded.env, 4201))
    const db = await PGlite.create({ dataDir: join(dataDir, "pglite") })
    await db.exec(seedCourses)
    await db.exec("VACUUM ANALYZE coursekit.courses")
    await db.close()
    // Courses written by SQL are indexed for search by the next start: once, here, so the
    // starts measured below are ordinary ones.
    await stopServer(await startServer("postgres", postgres.script, postgres.env, 4206))
    await stopServer(await startServer("embedded", embedded.script, embedded.env, 4207))

    // All idle at once (memory is per process), the first start on an empty directory.
    rows.push(await launch("embedded, first start", { ...embedded, env: { ...embedded.env, DATA_DIR: firstStartDir } }, 4202))
    rows.push(await launch("embedded (PGlite)", embedded, 4203))
    rows.push(await launch("postgres", postgres, 4204))
    rows.push(await launch("bare", bare, 4205))
    await sleep(idleSeconds * 1000)
    for (const row of rows) row.idle = memoryOf(row.server.child.pid!).rssMiB

    const loaded = rows.filter((row) => row.name !== "embedded, first start")
    for (const row of loaded) await loadRow(row)
    await sleep(idleSeconds * 1000)
    for (const row of loaded) row.after = memoryOf(row.server.child.pid!).rssMiB

    const peaks = new Map(rows.map((row) => [row.name, memoryOf(row.server.child.pid!).peakMiB]))
    const baseline = rows.find((row) => row.name === "bare")!
    const cell = (value: number | undefined, width: number, digits = 0) =>
      (value === undefined ? "–" : value.toFixed(digits)).padStart(width)
    const ratio = (value: number | undefined, base: number | undefined) =>
      value === undefined || base === undefined ? undefined : value / base
    console.log(
      "\nserver                 start-up MiB  idle MiB  load MiB  after MiB  peak MiB   req/s  idle ÷ bare  load ÷ bare"
    )
    for (const row of rows) {
      console.log(
        `${row.name.padEnd(22)} ${cell(row.startup, 12)} ${cell(row.idle, 9)} ${cell(row.load, 9)} ${cell(row.after, 10)} ` +
          `${cell(peaks.get(row.name), 9)} ${cell(row.result?.requestsPerSecond, 7)} ${cell(ratio(row.idle, baseline.idle), 12, 2)} ` +
          `${cell(ratio(row.load, baseline.load), 12, 2)}`
      )
    }
    const target = (name: string, limit: number) => {
      const row = rows.find((candidate) => candidate.name === name)!
      return `${name} ${row.idle!.toFixed(0)} MiB ≤ ${limit}: ${row.idle! <= limit ? "met" : "MISSED"} ` +
        `(${row.startup!.toFixed(0)} MiB ${startupSeconds}s after start-up)`
    }
    console.log(
      `\ntargets, idle: ${target("embedded, first start", 250)}; ${target("embedded (PGlite)", 250)}; ${target("postgres", 150)}`
    )
  } finally {
    await Promise.all(rows.filter((row) => row.server.child.exitCode === null).map((row) => stopServer(row.server)))
    await dropDatabase()
  }
}

try {
  if (parts.has("servers")) await serversPart()
  if (parts.has("workload")) await workloadPart(serverUrl, idleSeconds)
} finally {
  rmSync(dataDir, { recursive: true, force: true })
  rmSync(firstStartDir, { recursive: true, force: true })
}
