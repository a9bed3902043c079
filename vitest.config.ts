import { defaultServerConditions } from "vite"
import { defineConfig } from "vitest/config"

// Workspace packages are imported through the "@coursekit/source" export condition, so
// tests run on the TypeScript sources without a build.
const source = "@coursekit/source"
const ssr = { resolve: { conditions: [source, ...defaultServerConditions], externalConditions: [source] } }

// Suites that need a PostgreSQL server (`*.postgres.test.ts`) run when TEST_DATABASE_URL
// names one, and always in CI, where a missing server must fail the run.
const postgresSuites = process.env.TEST_DATABASE_URL !== undefined || process.env.CI !== undefined
const exclude = postgresSuites ? [] : ["test/**/*.postgres.test.ts"]

// CI asks for a JSON report as well, to prove no suite was skipped (.ci/run reads it).
const report = process.env.COURSEKIT_TEST_REPORT
const reporters: Array<string | [string, { outputFile: string }]> = report === undefined
  ? ["default"]
  : ["default", ["json", { outputFile: report }]]

export default defineConfig({
  test: {
    reporters,
    projects: ["packages/core", "packages/postgres", "packages/http", "packages/server", "examples"].map((root) => ({
      ssr,
      test: {
        name: root.replace("packages/", ""),
        root,
        include: ["test/**/*.test.ts"],
        exclude,
        testTimeout: 30_000,
        hookTimeout: 60_000
      }
    }))
  }
})
