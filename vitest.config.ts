import { defaultServerConditions } from "vite"
import { defineConfig } from "vitest/config"

// Workspace packages are imported through the "@coursekit/source" export condition, so
// tests run on the TypeScript sources without a build.
const source = "@coursekit/source"
const ssr = { resolve: { conditions: [source, ...defaultServerConditions], externalConditions: [source] } }

export default defineConfig({
  test: {
    projects: ["core", "postgres", "http", "server"].map((name) => ({
      ssr,
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
