/**
 * GET /courses?cursor=…&limit=10 over 10,000 courses (5 KB bodies) on PostgreSQL,
 * 50 connections, for
 *   (a) Coursekit's standalone server as shipped: production middleware on (admin auth
 *       wired, request ids, one JSON log line per request, problem errors) and its list
 *       cache (exact across instances: keyed on the catalogue version) on,
 *   (a') the same with the list cache off (LIST_CACHE_ENTRIES=0), to show the uncached path,
 *   (b) bare node:http + pg serving the same query and output (the baseline),
 *   (c) Fastify + the same pg client.
 * Prints req/s, p50, p99, memory, and the ratios to (b). Coursekit runs from its build
 * (`npm run bench` builds first), the others are plain JavaScript: no process under
 * measurement carries a transpiler. Each server runs in its own
 * process; rounds alternate the order so no server always runs on a warmer machine.
 */
import pg from "pg"
import { freshDatabase, load, type LoadResult, memoryOf, seededRandom, startServer, stopServer, withDatabase } from "./measure.ts"

const serverUrl = process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres"
const seconds = Number(process.env.BENCH_SECONDS ?? 10)
const rounds = Number(process.env.BENCH_ROUNDS ?? 2)
const connections = 50
const courses = 10_000

const database = `coursekit_bench_${process.pid}`
const databaseUrl = withDatabase(serverUrl, database)

// The same pseudo-random cursors for every server.
const random = seededRandom(42)
const paths = Array.from({ length: 5000 }, () => `/courses?cursor=${1 + Math.floor(random() * courses)}&limit=10`)

const coursekitEnv = {
  DATABASE_URL: databaseUrl,
  DATABASE_POOL_SIZE: "10",
  ADMIN_TOKENS: "bench-admin-token",
  CDN_URL: "http://localhost/files",
  LOG_LEVEL: "Info",
  HOST: "127.0.0.1"
}
const baselineEnv = { DATABASE_URL: databaseUrl, POOL_SIZE: "10" }

const servers = [
  { name: "coursekit", script: "packages/server/dist/main.js", env: coursekitEnv },
  { name: "ck-nocache", script: "packages/server/dist/main.js", env: { ...coursekitEnv, LIST_CACHE_ENTRIES: "0" } },
  { name: "bare", script: "bench/servers/bare-node.mjs", env: baselineEnv },
  { name: "fastify", script: "bench/servers/fastify.mjs", env: baselineEnv }
] as const

interface Sample extends LoadResult {
  readonly rssMiB: number
  readonly peakMiB: number
}

const dropDatabase = await freshDatabase(serverUrl, database)
try {
  // Coursekit's first start migrates the database; then it is seeded for everyone.
  const first = await startServer("coursekit", servers[0].script, servers[0].env, 4100)
  const seeder = new pg.Client({ connectionString: databaseUrl })
  await seeder.connect()
  await seeder.query(`
    INSERT INTO courses (title, slug, content_html, thumbnail_key)
    SELECT 'Course number ' || i, 'course-number-' || i,
           repeat('<p>Lorem ipsum dolor sit amet, consectetur.</p>', 117),
           CASE WHEN i % 2 = 0 THEN 'courses/' || i || '/thumb.jpg' END
    FROM generate_series(1, ${courses}) AS i`)
  await seeder.query("VACUUM ANALYZE courses")
  const { rows } = await seeder.query("SELECT count(*)::int AS n, avg(length(content_html))::int AS body FROM courses")
  await seeder.end()
  await stopServer(first)
  console.log(`seeded ${rows[0].n} courses, ${rows[0].body} byte bodies; ${connections} connections, ${seconds}s per run`)

  const samples = new Map<string, Array<Sample>>(servers.map((server) => [server.name, []]))
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? servers : [...servers].reverse()
    for (const spec of order) {
      const server = await startServer(spec.name, spec.script, spec.env, 4100 + round * 10 + servers.indexOf(spec))
      await load(server.url, paths, connections, 3) // warm-up: JIT, pools, caches
      const result = await load(server.url, paths, connections, seconds)
      const memory = memoryOf(server.child.pid!)
      await stopServer(server)
      if (result.non2xx > 0 || result.errors > 0) {
        throw new Error(`${spec.name}: ${result.non2xx} non-2xx responses, ${result.errors} errors`)
      }
      samples.get(spec.name)!.push({ ...result, ...memory })
      console.log(
        `round ${round + 1} ${spec.name.padEnd(9)} ${result.requestsPerSecond.toFixed(0).padStart(6)} req/s  ` +
          `p50 ${result.p50} ms  p99 ${result.p99} ms  rss ${memory.rssMiB.toFixed(0)} MiB`
      )
    }
  }

  const mean = (values: ReadonlyArray<number>) => values.reduce((sum, value) => sum + value, 0) / values.length
  const summary = new Map([...samples].map(([name, list]) => [name, {
    rps: mean(list.map((sample) => sample.requestsPerSecond)),
    p50: mean(list.map((sample) => sample.p50)),
    p99: mean(list.map((sample) => sample.p99)),
    rss: mean(list.map((sample) => sample.rssMiB)),
    peak: Math.max(...list.map((sample) => sample.peakMiB))
  }]))
  const bare = summary.get("bare")!
  console.log("\nserver       req/s    p50 ms  p99 ms  rss MiB  peak MiB  req/s ÷ bare  p99 ÷ bare")
  for (const [name, row] of summary) {
    console.log(
      `${name.padEnd(10)} ${row.rps.toFixed(0).padStart(7)} ${row.p50.toFixed(1).padStart(8)} ${row.p99.toFixed(1).padStart(7)} ` +
        `${row.rss.toFixed(0).padStart(8)} ${row.peak.toFixed(0).padStart(9)} ${(row.rps / bare.rps).toFixed(3).padStart(13)} ` +
        `${(row.p99 / bare.p99).toFixed(2).padStart(11)}`
    )
  }
  const coursekit = summary.get("coursekit")!
  const fastify = summary.get("fastify")!
  const throughputOk = coursekit.rps / bare.rps >= fastify.rps / bare.rps
  const latencyOk = coursekit.p99 <= 1.5 * bare.p99
  console.log(
    `\ntarget: coursekit ratio ≥ fastify ratio (${(coursekit.rps / bare.rps).toFixed(3)} vs ${(fastify.rps / bare.rps).toFixed(3)}): ` +
      `${throughputOk ? "met" : "MISSED"}; p99 ≤ 1.5× bare (${(coursekit.p99 / bare.p99).toFixed(2)}×): ${latencyOk ? "met" : "MISSED"}`
  )
} finally {
  await dropDatabase()
}
