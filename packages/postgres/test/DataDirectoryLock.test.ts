import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Scope } from "effect"
import { spawnSync } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync, utimesSync, writeFileSync } from "node:fs"
import { hostname, tmpdir } from "node:os"
import { join } from "node:path"
import { DataDirectoryLock } from "../src/index.ts"

const directory = () => mkdtempSync(join(process.env.COURSEKIT_TEST_TMP ?? tmpdir(), "lock-"))
const lockFile = (dir: string) => join(dir, DataDirectoryLock.lockFileName)

/** The id of a process that has exited. */
const deadPid = () => spawnSync(process.execPath, ["-e", ""]).pid!

const holdIn = (dir: string) =>
  Effect.gen(function*() {
    const scope = yield* Scope.make()
    const exit = yield* DataDirectoryLock.acquire(dir).pipe(Scope.provide(scope), Effect.exit)
    return { exit, release: Scope.close(scope, Exit.void) }
  })

describe("DataDirectoryLock", () => {
  it.effect("held for the scope, with this process in the file (0600), and removed on release", () =>
    Effect.gen(function*() {
      const dir = directory()
      const held = yield* holdIn(dir)
      expect(Exit.isSuccess(held.exit)).toBe(true)
      const holder = JSON.parse(readFileSync(lockFile(dir), "utf8"))
      expect([holder.pid, holder.host]).toEqual([process.pid, hostname()])
      yield* held.release
      expect(existsSync(lockFile(dir))).toBe(false)
    }))

  it.effect("a second holder in the same process is refused until the first releases", () =>
    Effect.gen(function*() {
      const dir = directory()
      const first = yield* holdIn(dir)
      const second = yield* holdIn(dir)
      expect(Exit.isFailure(second.exit)).toBe(true)
      const error = yield* Effect.flip(DataDirectoryLock.acquire(dir).pipe(Effect.scoped))
      expect(error._tag).toBe("DataDirectoryInUse")
      yield* first.release
      const third = yield* holdIn(dir)
      expect(Exit.isSuccess(third.exit)).toBe(true)
      yield* third.release
    }))

  it.effect("a lock of a process that is gone is taken over", () =>
    Effect.gen(function*() {
      const dir = directory()
      writeFileSync(lockFile(dir), JSON.stringify({ pid: deadPid(), host: hostname(), since: "2026-01-01T00:00:00.000Z" }))
      const held = yield* holdIn(dir)
      expect(Exit.isSuccess(held.exit)).toBe(true)
      expect(JSON.parse(readFileSync(lockFile(dir), "utf8")).pid).toBe(process.pid)
      yield* held.release
    }))

  it.effect("a live process is never taken over, and the error names it", () =>
    Effect.gen(function*() {
      const dir = directory()
      // The test runner's parent is alive for as long as this test runs.
      writeFileSync(lockFile(dir), JSON.stringify({ pid: process.ppid, host: hostname(), since: "2026-01-01T00:00:00.000Z" }))
      const error = yield* Effect.flip(DataDirectoryLock.acquire(dir).pipe(Effect.scoped))
      expect(error._tag).toBe("DataDirectoryInUse")
      expect(error.message).toBe(`${dir} is in use by process ${process.ppid} (since 2026-01-01T00:00:00.000Z)`)
      expect(JSON.parse(readFileSync(lockFile(dir), "utf8")).pid).toBe(process.ppid)
    }))

  it.effect("a lock written on another host is not taken over", () =>
    Effect.gen(function*() {
      const dir = directory()
      writeFileSync(lockFile(dir), JSON.stringify({ pid: deadPid(), host: "elsewhere.example", since: "2026-01-01T00:00:00.000Z" }))
      const error = yield* Effect.flip(DataDirectoryLock.acquire(dir).pipe(Effect.scoped))
      expect(error.message).toContain("on host elsewhere.example")
    }))

  it.effect("a lock file left empty is taken over once it is older than a few seconds, not before", () =>
    Effect.gen(function*() {
      const dir = directory()
      writeFileSync(lockFile(dir), "")
      const fresh = yield* Effect.flip(DataDirectoryLock.acquire(dir).pipe(Effect.scoped))
      expect(fresh._tag).toBe("DataDirectoryInUse")
      const old = new Date(Date.now() - 60_000)
      utimesSync(lockFile(dir), old, old)
      const held = yield* holdIn(dir)
      expect(Exit.isSuccess(held.exit)).toBe(true)
      yield* held.release
    }))
})
