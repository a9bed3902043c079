/**
 * GET /courses?cursor=…&limit=10 over 10,000 courses (5 KB bodies) on PostgreSQL,
 * 50 connections, for
 *   (a) Coursekit's standalone server as shipped: production middleware on (admin auth
 *       wired, request ids, one JSON log line per request, problem errors) and its list
 *       cache (exact across instances: keyed on the catalogue version) on,
 *   (a') the same with the list cache off (LIST_CACHE_ENTRIES=0): every request reads its page,
 *   (b) bare node:http + pg doing what Coursekit does for the public (the baseline): the
 *       same statement (the page visible now and the catalogue version it was read at),
 *       the same JSON and the same Link, ETag, Cache-Control and Vary (`list-common.mjs`),
 *   (c) Fastify + the same pg client and work,
 *   (c') `fastify-prod`, Fastify as deployed in production (issue #36): pino with one log
 *       line per request, a response schema (fast-json-stringify), Coursekit's statement
 *       deadline and every row checked with Ajv (`servers/fastify-production.mjs`),
 *   (d) `effect`, a plain Effect HttpRouter route over @effect/sql-pg doing the same work:
 *       what the stack Coursekit is built on costs by itself,
 *   (e) `bare-lite`, the earlier baseline: bare node:http + pg with less work (no
 *       visibility filter, no version, no caching headers), for comparison only.
 * Before any load, every server's answers are checked against Coursekit's (body bytes and
 * headers; `bare-lite` for its body only), and the statements each runs per request are
 * printed. The servers that log (Coursekit and `fastify-prod`) write their request log to
 * a file, as deployed; the others log nothing. Prints the medians of the rounds of req/s,
 * p50, p99, CPU per request, memory, and the ratios to (b). Coursekit runs from its
 * build (`npm run bench` builds first), the others are plain JavaScript: no process under
 * measurement carries a transpiler. Each server runs in its own process; rounds
 * alternate the order so no server always runs on a warmer machine.
 * `BENCH_CHECK_ONLY=1`: the checks and the statements only. `BENCH_SERVERS=ck-nocache,effect`:
 * load only these (the checks still run all). `BENCH_PROFILE_DIR`: every loaded server
 * runs with `--cpu-prof` into its own directory there (read them with
 * `bench/profile-summary.ts`; the profiler slows servers unevenly, so read the profiles
 * for where time goes, not that run's ratios). `BENCH_LAYERS=1`: instead of the load,
 * Coursekit's CPU per request layer by layer (`catalogue-list-layers.ts`).
 * `BENCH_GUARDS=1`: also the Effect probe with each of Coursekit's per-read guarantees
 * added on its own (`effect-guarded.mjs`: `g-log`, `g-span`, `g-deadline`, `g-decode`,
 * and `g-repo+log`, the repository's list call and the log line), for what each costs.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import pg from "pg"
import { coursekitOn, cpuProfileArgs, type CpuPerRequest, freshDatabase, load, type LoadResult, loadWithCpu, median, memoryOf, seededRandom, type Server, startServer, stopServer, withDatabase } from "./measure.ts"
import { measureListLayers } from "./catalogue-list-layers.ts"
import { printStatementsOf, statementLog } from "./pgStatementLog.ts"

const serverUrl = process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres"
const seconds = Number(process.env.BENCH_SECONDS ?? 10)
const rounds = Number(process.env.BENCH_ROUNDS ?? 3)
const checkOnly = process.env.BENCH_CHECK_ONLY === "1"
const profileDir = process.env.BENCH_PROFILE_DIR
const only = process.env.BENCH_SERVERS?.split(",")
const layersOnly = process.env.BENCH_LAYERS === "1"
const withGuards = process.env.BENCH_GUARDS === "1"
const connections = 50
const courses = 10_000

const database = `coursekit_bench_${process.pid}`
const databaseUrl = withDatabase(serverUrl, database)

// The same pseudo-random cursors for every server.
const random = seededRandom(42)
const paths = Array.from({ length: 5000 }, () => `/courses?cursor=${1 + Math.floor(random() * courses)}&limit=10`)

const coursekitEnv = coursekitOn(databaseUrl)
const baselineEnv = { DATABASE_URL: databaseUrl, POOL_SIZE: "10" }

const servers: ReadonlyArray<{ name: string; script: string; env: Record<string, string>; logs?: true }> = [
  { name: "coursekit", script: "packages/server/dist/main.js", env: coursekitEnv, logs: true },
  { name: "ck-nocache", script: "packages/server/dist/main.js", env: { ...coursekitEnv, LIST_CACHE_ENTRIES: "0" }, logs: true },
  { name: "bare", script: "bench/servers/bare-node.mjs", env: baselineEnv },
  { name: "fastify", script: "bench/servers/fastify.mjs", env: baselineEnv },
  { name: "fastify-prod", script: "bench/servers/fastify-prod.mjs", env: baselineEnv, logs: true },
  { name: "effect", script: "bench/servers/effect-router.mjs", env: baselineEnv },
  { name: "bare-lite", script: "bench/servers/bare-lite.mjs", env: baselineEnv },
  ...(withGuards
    ? (["log", "span", "deadline", "decode", "repository,log"] as const).map((guards) => ({
      name: `g-${guards.replace("repository", "repo").replace(",", "+")}`,
      script: "bench/servers/effect-guarded.mjs",
      env: { ...baselineEnv, GUARDS: guards }
    }))
    : [])
]

const fail = (message: string): never => {
  throw new Error(`catalogue-list check failed: ${message}`)
}
const answer = async (server: Server, path: string, headers: Record<string, string> = {}) => {
  const response = await fetch(server.url + path, { headers })
  return { status: response.status, body: await response.text(), headers: response.headers }
}

/** Every server answers what Coursekit answers (first and middle pages, the last, an empty one, 304s). */
const check = async (running: ReadonlyArray<Server>) => {
  const [coursekit, ...others] = running
  const checked = ["/courses", "/courses?cursor=5&limit=2", `/courses?cursor=${courses - 3}&limit=10`, `/courses?cursor=${courses + 1}`, "/courses?limit=50"]
  for (const path of checked) {
    const expected = await answer(coursekit!, path)
    if (expected.status !== 200) fail(`coursekit answered ${expected.status} for ${path}`)
    for (const other of others) {
      const actual = await answer(other, path)
      if (actual.status !== 200 || actual.body !== expected.body) fail(`${other.name}'s answer for ${path} differs from coursekit's`)
      if (other.name === "bare-lite") continue
      for (const header of ["content-type", "link", "etag", "cache-control", "vary"]) {
        // Fastify names JSON's charset, which JSON's media type fixes anyway (RFC 8259).
        const value = header === "content-type" ? actual.headers.get(header)?.replace("; charset=utf-8", "") : actual.headers.get(header)
        if (value !== expected.headers.get(header)) {
          fail(`${other.name}: ${header} ${actual.headers.get(header)} ≠ coursekit's ${expected.headers.get(header)} for ${path}`)
        }
      }
      const revalidated = await answer(other, path, { "if-none-match": expected.headers.get("etag")! })
      if (revalidated.status !== 304) fail(`${other.name} answered ${revalidated.status} to If-None-Match for ${path}`)
    }
  }
  console.log(
    `checked: ${checked.length} pages on every server: the same bytes, Link, ETag, Cache-Control and Vary as coursekit's ` +
      "(bare-lite: bytes only; fastify-prod's content-type adds charset=utf-8); 304 on If-None-Match"
  )
}

/** The statements each server runs for one request (its third: prepared statements are warm). */
const printStatements = async () => {
  const log = await statementLog(databaseUrl)
  try {
    for (const [index, spec] of servers.entries()) {
      const server = await startServer(spec.name, spec.script, { ...spec.env, DATABASE_URL: log.url }, 4160 + index)
      try {
        // Distinct pages: with the cache on, a page not yet kept is one statement.
        await printStatementsOf(log, spec.name, (i) => answer(server, `/courses?cursor=${101 + i}&limit=10`))
      } finally {
        await stopServer(server)
      }
    }
  } finally {
    await log.close()
  }
}

interface Sample extends LoadResult, CpuPerRequest {
  readonly rssMiB: number
  readonly peakMiB: number
}

/** The median of each server's rounds, the ratios to bare, and the targets. */
const report = (samples: ReadonlyMap<string, ReadonlyArray<Sample>>) => {
  const summary = new Map([...samples].map(([name, list]) => [name, {
    rps: median(list.map((sample) => sample.requestsPerSecond)),
    p50: median(list.map((sample) => sample.p50)),
    p99: median(list.map((sample) => sample.p99)),
    rss: median(list.map((sample) => sample.rssMiB)),
    peak: Math.max(...list.map((sample) => sample.peakMiB)),
    serverCpu: median(list.map((sample) => sample.serverCpu)),
    postgresCpu: median(list.map((sample) => sample.postgresCpu))
  }]))
  const bare = summary.get("bare")!
  console.log(`\nmedians of ${rounds} rounds`)
  console.log("server         req/s    p50 ms  p99 ms  rss MiB  peak MiB  req/s ÷ bare  p99 ÷ bare  cpu µs/req server  pg")
  for (const [name, row] of summary) {
    console.log(
      `${name.padEnd(12)} ${row.rps.toFixed(0).padStart(7)} ${row.p50.toFixed(1).padStart(8)} ${row.p99.toFixed(1).padStart(7)} ` +
        `${row.rss.toFixed(0).padStart(8)} ${row.peak.toFixed(0).padStart(9)} ${(row.rps / bare.rps).toFixed(3).padStart(13)} ` +
        `${(row.p99 / bare.p99).toFixed(2).padStart(11)} ${row.serverCpu.toFixed(0).padStart(18)} ${row.postgresCpu.toFixed(0).padStart(4)}`
    )
  }
  for (const peer of ["fastify", "fastify-prod"]) {
    const row = summary.get(peer)
    if (row === undefined) continue
    for (const name of ["coursekit", "ck-nocache"]) {
      const coursekit = summary.get(name)
      if (coursekit === undefined) continue
      const ratio = coursekit.rps / bare.rps
      const peerRatio = row.rps / bare.rps
      const cpu = coursekit.serverCpu / row.serverCpu
      const verdicts = [
        `req/s ÷ bare ≥ ${peer}'s (${ratio.toFixed(3)} vs ${peerRatio.toFixed(3)}): ${ratio >= peerRatio ? "met" : "MISSED"}`,
        `p99 ≤ 1.5× bare (${(coursekit.p99 / bare.p99).toFixed(2)}×): ${coursekit.p99 <= 1.5 * bare.p99 ? "met" : "MISSED"}`,
        // The CPU target is the production peer's (issue #36).
        ...(peer === "fastify-prod" ? [`server CPU/request ≤ 1.2× ${peer}'s (${cpu.toFixed(2)}×): ${cpu <= 1.2 ? "met" : "MISSED"}`] : [])
      ]
      console.log(`target, ${name} against ${peer}: ${verdicts.join("; ")}`)
    }
  }
}

/** Request-log lines each logging server wrote in its round (a check that it did log). */
const logLines = (file: string) => readFileSync(file, "utf8").split("\n").filter((line) => line.includes("/courses")).length

const dropDatabase = await freshDatabase(serverUrl, database)
const logDir = mkdtempSync(join(tmpdir(), "coursekit-bench-logs-"))
try {
  // Coursekit's first start migrates the database; then it is seeded for everyone.
  const first = await startServer("coursekit", servers[0]!.script, servers[0]!.env, 4100)
  const seeder = new pg.Client({ connectionString: databaseUrl })
  await seeder.connect()
  await seeder.query(`
    INSERT INTO coursekit.courses (title, slug, content_html, thumbnail_key)
    SELECT 'Course number ' || i, 'course-number-' || i,
           repeat('<p>Lorem ipsum dolor sit amet, consectetur.</p>', 117),
           CASE WHEN i % 2 = 0 THEN 'courses/' || i || '/thumb.jpg' END
    FROM generate_series(1, ${courses}) AS i`)
  await seeder.query("VACUUM ANALYZE coursekit.courses")
  const { rows } = await seeder.query("SELECT count(*)::int AS n, avg(length(content_html))::int AS body FROM coursekit.courses")
  await seeder.end()
  await stopServer(first)
  console.log(`seeded ${rows[0].n} courses, ${rows[0].body} byte bodies; ${connections} connections, ${seconds}s per run`)
  const running: Array<Server> = []
  try {
    for (const [index, spec] of servers.entries()) running.push(await startServer(spec.name, spec.script, spec.env, 4170 + index))
    await check(running)
  } finally {
    for (const server of running) await stopServer(server)
  }
  await printStatements()

  if (layersOnly) await measureListLayers(databaseUrl, paths, rounds)
  const loaded = servers.filter((spec) => only === undefined || only.includes(spec.name))
  const samples = new Map<string, Array<Sample>>(loaded.map((server) => [server.name, []]))
  for (let round = 0; round < (checkOnly || layersOnly ? 0 : rounds); round++) {
    const order = round % 2 === 0 ? loaded : [...loaded].reverse()
    for (const spec of order) {
      const profiling = cpuProfileArgs(profileDir, spec.name, spec.name === "coursekit" || spec.name === "ck-nocache")
      const logFile = spec.logs ? join(logDir, `${spec.name}-${round + 1}.log`) : undefined
      const server = await startServer(spec.name, spec.script, spec.env, 4100 + round * 12 + servers.indexOf(spec), undefined, profiling, 30, logFile)
      await load(server.url, paths, connections, 3) // warm-up: JIT, pools, caches
      const result = await loadWithCpu(server, paths, connections, seconds)
      const memory = memoryOf(server.child.pid!)
      await stopServer(server)
      if (result.non2xx > 0 || result.errors > 0) {
        throw new Error(`${spec.name}: ${result.non2xx} non-2xx responses, ${result.errors} errors`)
      }
      if (logFile !== undefined && logLines(logFile) < result.total) {
        throw new Error(`${spec.name} logged ${logLines(logFile)} requests of ${result.total}`)
      }
      samples.get(spec.name)!.push({ ...result, ...memory })
      console.log(
        `round ${round + 1} ${spec.name.padEnd(9)} ${result.requestsPerSecond.toFixed(0).padStart(6)} req/s  ` +
          `p50 ${result.p50} ms  p99 ${result.p99} ms  rss ${memory.rssMiB.toFixed(0)} MiB  ` +
          `cpu/request server ${result.serverCpu.toFixed(0)} µs postgres ${result.postgresCpu.toFixed(0)} µs`
      )
    }
  }

  // The ratios and targets need the baselines in the run.
  if (!checkOnly && !layersOnly && samples.has("bare")) report(samples)
} finally {
  await dropDatabase()
  rmSync(logDir, { recursive: true, force: true })
}
