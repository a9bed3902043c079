/**
 * A throw-away PostgreSQL cluster of the test's own (initdb in a temp directory, on a
 * free loopback port, trust authentication) that the test can freeze and thaw: SIGSTOP
 * to the postmaster and every process it started stops them all while the kernel keeps
 * their sockets open (and accepts new connections into the listen queue), as a hung
 * primary would. It never touches the shared server.
 */
import { Context, Effect, Layer } from "effect"
import { execFileSync, spawn } from "node:child_process"
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import * as net from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"

export class FreezablePostgres extends Context.Service<FreezablePostgres, {
  /** `postgres://postgres@127.0.0.1:<port>/postgres` */
  readonly url: string
  /** SIGSTOP to the cluster's processes. */
  readonly freeze: Effect.Effect<void>
  /** SIGCONT to the cluster's processes. */
  readonly thaw: Effect.Effect<void>
}>()("@coursekit/server/test/FreezablePostgres") {
  /** A fresh cluster, thawed and stopped with the layer. */
  static readonly layer: Layer.Layer<FreezablePostgres, Error> = Layer.effect(FreezablePostgres, Effect.gen(function*() {
    const bin = binDirectory()
    const port = yield* Effect.promise(freePort)
    const cluster = yield* Effect.acquireRelease(
      Effect.tryPromise({ try: () => startCluster(bin, port), catch: (cause) => new Error(`throw-away cluster: ${String(cause)}`) }),
      ({ child, directory }) =>
        Effect.promise(() => {
          const exited = new Promise<void>((done) => child.once("exit", () => done()))
          signalCluster(child.pid!, "SIGCONT")
          // Immediate shutdown: nothing in it is worth keeping.
          signal(child.pid!, "SIGQUIT")
          return exited.then(() => rmSync(directory, { recursive: true, force: true }))
        })
    )
    return FreezablePostgres.of({
      url: `postgres://postgres@127.0.0.1:${port}/postgres`,
      freeze: Effect.sync(() => signalCluster(cluster.child.pid!, "SIGSTOP")),
      thaw: Effect.sync(() => signalCluster(cluster.child.pid!, "SIGCONT"))
    })
  }))
}

/**
 * Whether this machine can run it: PostgreSQL's server binaries (Debian's layout, or
 * `pg_config`'s) and Linux's `/proc`, where the cluster's processes are found.
 */
export const freezablePostgresAvailable = (): boolean => {
  try {
    binDirectory()
    return existsSync("/proc/self/stat")
  } catch {
    return false
  }
}

const binDirectory = (): string => {
  const debian = "/usr/lib/postgresql"
  if (existsSync(debian)) {
    const versions = readdirSync(debian).filter((name) => existsSync(join(debian, name, "bin", "initdb")))
    versions.sort((a, b) => Number(b) - Number(a))
    if (versions.length > 0) return join(debian, versions[0]!, "bin")
  }
  return execFileSync("pg_config", ["--bindir"], { encoding: "utf8" }).trim()
}

const freePort = () =>
  new Promise<number>((done, fail) => {
    const server = net.createServer()
    server.on("error", fail)
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo
      server.close(() => done(port))
    })
  })

// PostgreSQL refuses to run as root: as root, the cluster belongs to the `postgres` user.
const runAs = (): { uid: number; gid: number } | undefined => {
  if (process.getuid?.() !== 0) return undefined
  const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim())
  const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim())
  return { uid, gid }
}

const signal = (pid: number, name: NodeJS.Signals) => {
  try {
    process.kill(pid, name)
  } catch {
    // Gone already.
  }
}

/** The processes the postmaster started (backends put themselves in groups of their own). */
const childrenOf = (parent: number): Array<number> =>
  readdirSync("/proc").filter((name) => /^\d+$/.test(name)).flatMap((name) => {
    try {
      // The parent pid is the 2nd field after the parenthesized command name.
      const stat = readFileSync(`/proc/${name}/stat`, "utf8")
      return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === parent ? [Number(name)] : []
    } catch {
      return []
    }
  })

// The postmaster stops first, so it starts no process between the listing and the signal;
// on the way back it resumes last.
const signalCluster = (postmaster: number, name: "SIGSTOP" | "SIGCONT") => {
  if (name === "SIGSTOP") signal(postmaster, name)
  for (const pid of childrenOf(postmaster)) signal(pid, name)
  if (name === "SIGCONT") signal(postmaster, name)
}

const startCluster = async (bin: string, port: number) => {
  // In the system temp directory: the run's scratch directory is private to this user.
  const directory = mkdtempSync(join(tmpdir(), "coursekit-frozen-pg-"))
  const user = runAs()
  if (user !== undefined) chownSync(directory, user.uid, user.gid)
  const data = join(directory, "data")
  execFileSync(join(bin, "initdb"), ["-D", data, "-U", "postgres", "-A", "trust", "--no-sync", "-E", "UTF8"], {
    stdio: ["ignore", "ignore", "pipe"],
    ...user
  })
  const child = spawn(join(bin, "postgres"), [
    "-D", data, "-p", String(port), "-c", "listen_addresses=127.0.0.1", "-c", `unix_socket_directories=${directory}`,
    "-c", "fsync=off", "-c", "full_page_writes=off"
  ], { stdio: "ignore", ...user })
  // Should this process end without releasing the layer, the cluster must not outlive it frozen.
  const onExit = () => {
    signalCluster(child.pid!, "SIGCONT")
    signal(child.pid!, "SIGQUIT")
  }
  process.once("exit", onExit)
  child.once("exit", () => process.off("exit", onExit))
  const exited = new Promise<never>((_, fail) => child.once("exit", (code) => fail(new Error(`postgres exited with ${code}`))))
  await Promise.race([waitUntilReady(bin, port), exited])
  return { child, directory }
}

// Listening is not accepting sessions yet (the server may still be starting up).
const waitUntilReady = async (bin: string, port: number) => {
  for (let attempt = 0; attempt < 200; attempt++) {
    const ready = await new Promise<boolean>((done) =>
      spawn(join(bin, "pg_isready"), ["-q", "-h", "127.0.0.1", "-p", String(port)], { stdio: "ignore" })
        .once("exit", (code) => done(code === 0))
    )
    if (ready) return
    await new Promise((done) => setTimeout(done, 50))
  }
  throw new Error(`postgres did not accept sessions on ${port}`)
}
