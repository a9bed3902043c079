/**
 * Shared pieces of the benchmarks: servers as child processes, a load run with
 * autocannon, and memory read from /proc.
 */
import autocannon from "autocannon"
import { type ChildProcess, spawn } from "node:child_process"
import { closeSync, openSync, readdirSync, readFileSync } from "node:fs"
import { resolve } from "node:path"
import pg from "pg"

export const root = resolve(import.meta.dirname, "..")

/** A pseudo-random generator in [0, 1) from `seed`: the same data and requests on every run. */
export const seededRandom = (seed: number) => () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31

/** The words the benchmarks' course texts are made of. */
export const benchWords = (
  "bread dough starter flour water salt crumb crust proof fold shape bake oven steam score hydration rye wheat " +
  "levain autolyse ferment yeast temperature loaf banneton kneading gluten texture flavour sour rise rest time " +
  "morning evening recipe method practice student lesson technique mistake result the a of and to in with for " +
  "is it that this on your you we our as at by from"
).split(" ")

/**
 * Seeded text for the benchmarks' data: `random` itself, `pick` of a list, and a
 * `sentence` of `length` words of {@link benchWords} (8–19 when not given), capitalized,
 * with a full stop. All draw from the one generator, so a run's data is the same each time.
 */
export const seededText = (seed: number) => {
  const random = seededRandom(seed)
  const pick = <A>(items: ReadonlyArray<A>) => items[Math.floor(random() * items.length)]!
  const sentence = (length = 8 + Math.floor(random() * 12)) => {
    const text = Array.from({ length }, () => pick(benchWords)).join(" ")
    return text[0]!.toUpperCase() + text.slice(1) + "."
  }
  return { random, pick, sentence }
}

/**
 * Creates the database `name` on the PostgreSQL server at `serverUrl`, empty (a copy a
 * crashed run left is dropped first); answers the function that drops it again.
 */
export const freshDatabase = async (serverUrl: string, name: string): Promise<() => Promise<void>> => {
  const admin = new pg.Client({ connectionString: serverUrl })
  await admin.connect()
  await admin.query(`DROP DATABASE IF EXISTS ${name}`)
  await admin.query(`CREATE DATABASE ${name}`)
  return async () => {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
    await admin.end()
  }
}

/** `url` (a PostgreSQL server's) naming the database `name` instead. */
export const withDatabase = (url: string, name: string) => {
  const parsed = new URL(url)
  parsed.pathname = `/${name}`
  return parsed.toString()
}

/**
 * The standalone server's environment in the benchmarks: on PostgreSQL at `databaseUrl`
 * with a pool of 10, an admin token (auth wired), files under a CDN URL, one log line per
 * request at `Info`, loopback only.
 */
export const coursekitOn = (databaseUrl: string) => ({
  DATABASE_URL: databaseUrl,
  DATABASE_POOL_SIZE: "10",
  ADMIN_TOKENS: "bench-admin-token",
  CDN_URL: "http://localhost/files",
  LOG_LEVEL: "Info",
  HOST: "127.0.0.1"
})

export interface Server {
  readonly name: string
  readonly url: string
  readonly child: ChildProcess
}

/**
 * Starts `script` with node (built JavaScript: no transpiler in the measured process)
 * and waits until `readyPath` answers 200.
 * Its standard output goes to /dev/null, as it would to a log shipper, so the load
 * generator in this process does not pay for reading it, or to the file `logFile` (the
 * request log's cost measured as a deployment pays it). `nodeArgs` go before the script
 * (e.g. `--cpu-prof`).
 */
export const startServer = async (
  name: string,
  script: string,
  env: Record<string, string>,
  port: number,
  readyPath = "/courses?limit=1",
  nodeArgs: ReadonlyArray<string> = [],
  readyWithinSeconds = 30,
  logFile = "/dev/null"
): Promise<Server> => {
  const output = openSync(logFile, "a")
  const child = spawn(process.execPath, [...nodeArgs, script], {
    cwd: root,
    env: { ...process.env, ...env, PORT: String(port) },
    stdio: ["ignore", output, "inherit"]
  })
  closeSync(output) // the child has its own copy
  let exited = false
  child.on("exit", () => (exited = true))
  const url = `http://127.0.0.1:${port}`
  for (let attempt = 0; attempt < readyWithinSeconds * 10; attempt++) {
    if (exited) throw new Error(`${name} exited before it was ready`)
    // A deadline per probe: a connection accepted while the server is still starting may
    // never be answered, and the next probe must still get its turn.
    const ok = await fetch(url + readyPath, { signal: AbortSignal.timeout(2000) }).then((response) => response.ok, () => false)
    if (ok) return { name, url, child }
    await new Promise((done) => setTimeout(done, 100))
  }
  child.kill("SIGKILL")
  throw new Error(`${name} was not ready after ${readyWithinSeconds} s`)
}

/**
 * Node's arguments that profile a server into `<dir>/<name>` (`--cpu-prof`), or none
 * without `dir`. Each server gets its own directory, so a baseline's time can be set
 * beside Coursekit's. Node writes a profile only on a clean exit: a server that does not
 * exit on SIGTERM by itself (`exitsOnSigterm` false: the plain baselines) is made to.
 */
export const cpuProfileArgs = (dir: string | undefined, name: string, exitsOnSigterm: boolean): ReadonlyArray<string> =>
  dir === undefined ? [] : [
    "--cpu-prof",
    `--cpu-prof-dir=${dir}/${name}`,
    ...(exitsOnSigterm ? [] : [`--import=data:text/javascript,process.on("SIGTERM",()=>process.exit(0))`])
  ]

export const stopServer = (server: Server) =>
  new Promise<void>((done) => {
    server.child.removeAllListeners("exit")
    server.child.on("exit", () => done())
    server.child.kill("SIGTERM")
  })

/** The median of `values` (the mean of the middle two for an even count). */
export const median = (values: ReadonlyArray<number>) => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}

/** Resident memory of a process now and at its peak, in MiB. */
export const memoryOf = (pid: number) => {
  const status = readFileSync(`/proc/${pid}/status`, "utf8")
  const kib = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0)
  return { rssMiB: kib("VmRSS") / 1024, peakMiB: kib("VmHWM") / 1024 }
}

/** The processes whose parent is `pid`, and theirs, alive now (from /proc). */
export const descendantsOf = (pid: number): Array<number> => {
  const children = new Map<number, Array<number>>()
  for (const entry of readdirSync("/proc")) {
    if (!/^[0-9]+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8")
      // After the command's closing parenthesis: state, then the parent's pid.
      const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1])
      children.set(parent, [...(children.get(parent) ?? []), Number(entry)])
    } catch {
      // The process ended between the listing and the read.
    }
  }
  const found: Array<number> = []
  for (let queue = [pid]; queue.length > 0;) {
    const next = children.get(queue.shift()!) ?? []
    found.push(...next)
    queue.push(...next)
  }
  return found
}

/** Clock ticks per second of /proc's CPU times (`getconf CLK_TCK`, 100 on Linux). */
const ticksPerSecond = 100

/** CPU time (user + system) process `pid` has used, in µs; 0 once it has gone. */
export const cpuMicrosOf = (pid: number) => {
  let stat: string
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8")
  } catch {
    return 0
  }
  // After the command's closing parenthesis: state is the first field, utime the 12th, stime the 13th.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  return (Number(fields[11]) + Number(fields[12])) * 1_000_000 / ticksPerSecond
}

/**
 * CPU time of every PostgreSQL process on this machine, in µs: its backends serve the
 * servers measured here, so a difference over a run is what the run's queries cost. A
 * backend that ends during the run takes its time with it (the servers' pools keep
 * theirs open, so this undercounts little).
 */
const postgresCpuMicros = () => {
  let total = 0
  for (const entry of readdirSync("/proc")) {
    if (!/^[0-9]+$/.test(entry)) continue
    try {
      if (readFileSync(`/proc/${entry}/comm`, "utf8").trim() === "postgres") total += cpuMicrosOf(Number(entry))
    } catch {
      // The process ended between the listing and the read.
    }
  }
  return total
}

export interface LoadResult {
  readonly requestsPerSecond: number
  /** Requests answered in the run. */
  readonly total: number
  readonly p50: number
  readonly p99: number
  readonly non2xx: number
  readonly errors: number
}

/** Runs `connections` concurrent clients for `seconds` against `paths` in turn, each request with `headers`. */
export const load = (
  url: string,
  paths: ReadonlyArray<string>,
  connections: number,
  seconds: number,
  headers: Record<string, string> = {}
) =>
  new Promise<LoadResult>((done, fail) => {
    let next = 0
    autocannon({
      url,
      connections,
      duration: seconds,
      headers,
      requests: [{
        setupRequest: (request) => {
          request.path = paths[next++ % paths.length]!
          return request
        }
      }]
    }, (error: Error | null, result: any) => (error ? fail(error) : done(loadResultOf(result))))
  })

/** What the benchmarks read of an autocannon result. */
const loadResultOf = (result: autocannon.Result): LoadResult => ({
  requestsPerSecond: result.requests.average,
  total: result.requests.total,
  p50: result.latency.p50,
  p99: result.latency.p99,
  non2xx: result.non2xx,
  errors: result.errors
})

/**
 * `connections` concurrent clients for `seconds`, each sending its own requests:
 * `requestsOf(i)` answers the autocannon requests of the i-th connection (0 … connections − 1,
 * in the order autocannon opens them), e.g. one user's token and writes per connection.
 * A request's `setupRequest` is called once for each request sent, in order.
 */
export const loadPerConnection = (
  url: string,
  connections: number,
  seconds: number,
  requestsOf: (connection: number) => Array<autocannon.Request>
) =>
  new Promise<LoadResult>((done, fail) => {
    let next = 0
    autocannon({
      url,
      connections,
      duration: seconds,
      setupClient: (client) => client.setRequests(requestsOf(next++))
    }, (error: Error | null, result: any) => (error ? fail(error) : done(loadResultOf(result))))
  })

/** CPU time per request answered, in µs: the server process's, and PostgreSQL's. */
export interface CpuPerRequest {
  readonly serverCpu: number
  readonly postgresCpu: number
}

/** {@link load} against `server`, with the CPU time per request answered of the server and of PostgreSQL. */
export const loadWithCpu = (
  server: Server,
  paths: ReadonlyArray<string>,
  connections: number,
  seconds: number,
  headers: Record<string, string> = {}
): Promise<LoadResult & CpuPerRequest> => withCpu(server, () => load(server.url, paths, connections, seconds, headers))

/** `run` (a load on `server`), with the CPU time per request answered of the server and of PostgreSQL. */
export const withCpu = async (server: Server, run: () => Promise<LoadResult>): Promise<LoadResult & CpuPerRequest> => {
  const pid = server.child.pid!
  const before = { server: cpuMicrosOf(pid), postgres: postgresCpuMicros() }
  const result = await run()
  return {
    ...result,
    serverCpu: (cpuMicrosOf(pid) - before.server) / result.total,
    postgresCpu: (postgresCpuMicros() - before.postgres) / result.total
  }
}
