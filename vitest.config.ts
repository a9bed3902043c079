import { existsSync } from "node:fs"
import { availableParallelism } from "node:os"
import { defaultServerConditions } from "vite"
import { defineConfig } from "vitest/config"

// Workspace packages are imported through the "@coursekit/source" export condition, so
// tests run on the TypeScript sources without a build.
const source = "@coursekit/source"
// Without "module": Node (which vitest hands these conditions) would load bundler-only
// builds such as @aws-sdk/checksums' dist-es, whose extensionless imports fail.
const ssr = { resolve: { conditions: [source, ...defaultServerConditions.filter((c) => c !== "module")], externalConditions: [source] } }

// Suites that need a PostgreSQL server (`*.postgres.test.ts`) run when TEST_DATABASE_URL
// names one, and always in CI, where a missing server must fail the run. This is the one
// definition: test files read COURSEKIT_REQUIRE_POSTGRES.
const ci = process.env.CI === "true" || process.env.CI === "1"
const postgresSuites = process.env.TEST_DATABASE_URL !== undefined || ci
// Browser suites (`*.browser.test.ts`) run with Debian's chromium: always in CI, and
// wherever CHROMIUM_PATH (default /usr/bin/chromium) exists.
const browserSuites = ci || existsSync(process.env.CHROMIUM_PATH ?? "/usr/bin/chromium")
const exclude = [
  ...(postgresSuites ? [] : ["test/**/*.postgres.test.ts"]),
  ...(browserSuites ? [] : ["test/**/*.browser.test.ts"])
]

// CI asks for a JSON report as well, to prove no suite was skipped (.ci/run reads it).
const report = process.env.COURSEKIT_TEST_REPORT
const reporters: Array<string | [string, { outputFile: string }]> = report === undefined
  ? ["default"]
  : ["default", ["json", { outputFile: report }]]

// Vitest's default is one file at a time on two cores (cores − 1). The suites mostly wait —
// on servers they start, browsers, databases, loopback fakes — so two at a time there
// halves the wall time without starving either.
const maxWorkers = Math.max(2, availableParallelism() - 1)

export default defineConfig({
  test: {
    reporters,
    maxWorkers,
    projects: ["packages/core", "packages/postgres", "packages/storage-s3", "packages/storage-local", "packages/llm-openai", "packages/llm-gemini", "packages/http", "packages/client", "packages/server", "packages/studio", "examples", "scripts"].map((root) => ({
      ssr,
      test: {
        name: root.replace("packages/", ""),
        root,
        include: ["test/**/*.test.ts"],
        exclude,
        globalSetup: [`${import.meta.dirname}/scripts/vitest-global-setup.ts`],
        env: { COURSEKIT_REQUIRE_POSTGRES: ci ? "1" : "", COURSEKIT_REQUIRE_BROWSER: ci ? "1" : "" },
        testTimeout: 30_000,
        hookTimeout: 60_000,
        // expect.poll gives up after 1 s by default: on a loaded CI machine one round trip
        // (a write and the re-read it announces) can take that long. A poll ends when it holds.
        expect: { poll: { timeout: 10_000 } }
      }
    }))
  }
})
