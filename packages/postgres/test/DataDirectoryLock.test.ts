import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Scope } from "effect"
import { spawn, spawnSync } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync, statSync, utimesSync, writeFileSync } from "node:fs"
import { hostname, tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { DataDirectoryLock } from "../src/index.ts"

const directory = () => mkdtempSync(join(process.env.COURSEKIT_TEST_TMP ?? tmpdir(), "lock-"))
const lockFile = (dir: string) => join(dir, DataDirectoryLock.lockFileName)

/** The id of a process that has exited. */
const deadPid = () => spawnSync(process.execPath, ["-e", ""]).pid!
const startTime = (pid: number) => {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19]!
}
/** A lock file naming `holder`, last refreshed `ageMs` ago. */
const writeLock = (dir: string, holder: Record<string, unknown> | string, ageMs: number) => {
  writeFileSync(lockFile(dir), typeof holder === "string" ? holder : JSON.stringify({ since: "2026-01-01T00:00:00.000Z", ...holder }))
  const when = new Date(Date.now() - ageMs)
  utimesSync(lockFile(dir), when, when)
}

const holdIn = (dir: string) =>
  Effect.gen(function*() {
    const scope = yield* Scope.make()
    const exit = yield* DataDirectoryLock.acquire(dir).pipe(Scope.provide(scope), Effect.exit)
    return { exit, release: Scope.close(scope, Exit.void) }
  })
const refusal = (dir: string) => Effect.flip(DataDirectoryLock.acquire(dir).pipe(Effect.scoped))
const holderOf = (dir: string) => JSON.parse(readFileSync(lockFile(dir), "utf8"))

describe("DataDirectoryLock", () => {
  it.effect("held for the scope, naming this process in a 0600 file refreshed every second, and removed on release", () =>
    Effect.gen(function*() {
      const dir = directory()
      const held = yield* holdIn(dir)
      expect(held.exit).toStrictEqual(Exit.void)
      expect(holderOf(dir)).toMatchObject({ pid: process.pid, host: hostname(), started: startTime(process.pid) })
      expect(statSync(lockFile(dir)).mode & 0o777).toBe(0o600)
      const first = statSync(lockFile(dir)).mtimeMs
      yield* Effect.promise(() => new Promise((done) => setTimeout(done, 2_500)))
      expect(statSync(lockFile(dir)).mtimeMs).toBeGreaterThan(first)
      yield* held.release
      expect(existsSync(lockFile(dir))).toBe(false)
    }), 10_000)

  it.effect("a second holder in the same process is refused until the first releases", () =>
    Effect.gen(function*() {
      const dir = directory()
      const first = yield* holdIn(dir)
      expect((yield* refusal(dir))._tag).toBe("DataDirectoryInUse")
      yield* first.release
      const third = yield* holdIn(dir)
      expect(third.exit).toStrictEqual(Exit.void)
      yield* third.release
    }))

  it.effect("a lock naming this very process (another copy of the module, a worker) is live; one naming a reused id is not", () =>
    Effect.gen(function*() {
      const dir = directory()
      writeLock(dir, { pid: process.pid, host: hostname(), started: startTime(process.pid) }, 60_000)
      expect((yield* refusal(dir)).message).toBe(`${dir} is in use by process ${process.pid} (since 2026-01-01T00:00:00.000Z)`)
      // The same id, started at another instant: a process that is gone, whose id came back.
      writeLock(dir, { pid: process.pid, host: hostname(), started: "1" }, 60_000)
      const held = yield* holdIn(dir)
      expect(held.exit).toStrictEqual(Exit.void)
      yield* held.release
    }))

  it.effect("a lock of a process that is gone is taken over once its heartbeat has stopped", () =>
    Effect.gen(function*() {
      const dir = directory()
      writeLock(dir, { pid: deadPid(), host: hostname() }, DataDirectoryLock.staleAfterMillis + 1_000)
      const held = yield* holdIn(dir)
      expect(held.exit).toStrictEqual(Exit.void)
      expect(holderOf(dir).pid).toBe(process.pid)
      yield* held.release
    }))

  it.effect("a live process is never taken over, and the error names it", () =>
    Effect.gen(function*() {
      const dir = directory()
      // The test runner's parent lives as long as this test; its lock is a minute old.
      writeLock(dir, { pid: process.ppid, host: hostname() }, 60_000)
      const error = yield* refusal(dir)
      expect(error.message).toBe(`${dir} is in use by process ${process.ppid} (since 2026-01-01T00:00:00.000Z)`)
      expect(holderOf(dir).pid).toBe(process.ppid)
    }))

  it.effect("another host's lock (or another container's) is taken over only when its heartbeat has stopped", () =>
    Effect.gen(function*() {
      const dir = directory()
      writeLock(dir, { pid: 1, host: "elsewhere.example" }, 0)
      // Its holder keeps refreshing it.
      const heartbeat = setInterval(() => utimesSync(lockFile(dir), new Date(), new Date()), 500)
      const error = yield* refusal(dir).pipe(Effect.ensuring(Effect.sync(() => clearInterval(heartbeat))))
      expect(error.message).toBe(`${dir} is in use by process 1 on host elsewhere.example (since 2026-01-01T00:00:00.000Z)`)
      // Stopped: taken over.
      writeLock(dir, { pid: 1, host: "elsewhere.example" }, DataDirectoryLock.staleAfterMillis + 1_000)
      const held = yield* holdIn(dir)
      expect(held.exit).toStrictEqual(Exit.void)
      yield* held.release
    }), 20_000)

  it.effect("a lock file left empty or unreadable is taken over once it has not been touched for a while", () =>
    Effect.gen(function*() {
      const dir = directory()
      writeLock(dir, "", DataDirectoryLock.staleAfterMillis + 1_000)
      const held = yield* holdIn(dir)
      expect(held.exit).toStrictEqual(Exit.void)
      yield* held.release
    }))

  it("processes racing for a stale lock: exactly one takes it", async () => {
    const dir = directory()
    writeLock(dir, { pid: deadPid(), host: hostname() }, 60_000)
    const script = resolve(import.meta.dirname, "LockContender.ts")
    // The winner holds the lock until all have answered, however slowly each one started.
    const contenders = Array.from({ length: 6 }, () => {
      const child = spawn(process.execPath, ["--conditions=@coursekit/source", "--import", "tsx", script, dir], {
        stdio: ["pipe", "pipe", "inherit"]
      })
      const exited = new Promise<void>((done) => child.on("exit", () => done()))
      const answer = new Promise<string>((done) => {
        let output = ""
        child.stdout.on("data", (chunk: Buffer) => {
          output += chunk.toString()
          if (output.includes("\n")) done(output.trim())
        })
        void exited.then(() => done(output.trim()))
      })
      return { child, answer, exited }
    })
    const outcomes = await Promise.all(contenders.map((contender) => contender.answer))
    for (const { child } of contenders) child.stdin.end()
    await Promise.all(contenders.map((contender) => contender.exited))
    expect(outcomes.filter((outcome) => outcome === "acquired")).toHaveLength(1)
    expect(outcomes.filter((outcome) => outcome === "DataDirectoryInUse")).toHaveLength(5)
  }, 60_000)
})
