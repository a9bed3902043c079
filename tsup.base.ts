import { defineConfig } from "tsup"

/**
 * The build every package shares: ESM for Node 22+, declarations, source maps.
 * Declarations are built against the published `dist/` of sibling packages, so the
 * source export condition is switched off for them.
 */
export const packageBuild = (entry: ReadonlyArray<string>) =>
  defineConfig({
    entry: [...entry],
    format: ["esm"],
    dts: { compilerOptions: { customConditions: [] } },
    sourcemap: true,
    clean: true,
    target: "node22",
    tsconfig: "tsconfig.json"
  })
