/**
 * The benchmarks' baselines still answer what Coursekit answers. Each benchmark checks
 * its peers (bare `node:http`, Fastify, Fastify as deployed, the Effect probes) against
 * Coursekit's bytes and headers before it measures; run in CI with only those checks
 * (`BENCH_CHECK_ONLY=1`), so a change to Coursekit's answers (a `Vary` header, a field)
 * shows here rather than in the next benchmark run, where it once went unseen.
 */
import { describe, expect, it } from "@effect/vitest"
import { spawnSync } from "node:child_process"
import { resolve } from "node:path"
import { ensureBuilt } from "../../packages/server/test/ServerProcess.ts"

const root = resolve(import.meta.dirname, "../..")
const databaseUrl = process.env.TEST_DATABASE_URL

/** Runs `bench/<name>.ts` with only its checks; what it printed. */
const checksOf = (name: string) => {
  const run = spawnSync(process.execPath, ["--import", "tsx", `bench/${name}.ts`], {
    cwd: root,
    env: { ...process.env, BENCH_CHECK_ONLY: "1", BENCH_DATABASE_URL: databaseUrl },
    encoding: "utf8",
    timeout: 240_000
  })
  expect(run.status, run.stdout + run.stderr).toBe(0)
  return run.stdout
}

if (databaseUrl !== undefined) {
  describe("the benchmarks' baselines", () => {
    it("the course list: every peer's pages equal Coursekit's, bytes and headers", () => {
      ensureBuilt()
      expect(checksOf("catalogue-list")).toMatch(/^checked: 5 pages on every server: the same bytes, Link, ETag, Cache-Control and Vary/m)
    }, 300_000)

    it("the public course: every peer's answer to each caller equals Coursekit's, locked bodies absent", () => {
      ensureBuilt()
      expect(checksOf("public-course")).toMatch(/^checked: 4 courses × 3 callers on every server: the same bytes, ETag, Cache-Control and Vary/m)
    }, 300_000)

    it("learner progress: every peer answers the same requests alike", () => {
      ensureBuilt()
      expect(checksOf("learner-progress")).toMatch(/^checked on every server: \d+ requests answered alike/m)
    }, 300_000)
  })
} else if (process.env.COURSEKIT_REQUIRE_POSTGRES === "1") {
  describe("the benchmarks' baselines", () => {
    it("run in CI", () => {
      expect.fail("TEST_DATABASE_URL is not set: CI must run the PostgreSQL suites")
    })
  })
}
