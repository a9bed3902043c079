import { defineConfig } from "vitest/config"

// Workspace sources are imported through the "@coursekit/source" export condition, so
// tests run on the TypeScript sources without a build.
const resolve = { conditions: ["@coursekit/source"] }

export default defineConfig({
  resolve,
  test: {
    projects: ["core", "postgres", "http", "server"].map((name) => ({
      resolve,
      test: {
        name,
        root: `packages/${name}`,
        include: ["test/**/*.test.ts"],
        testTimeout: 30_000,
        hookTimeout: 60_000
      }
    }))
  }
})
