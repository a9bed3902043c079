import { defineConfig } from "tsup"

export default defineConfig({
  entry: ["src/index.ts", "src/testing/index.ts"],
  format: ["esm"],
  dts: { compilerOptions: { customConditions: [] } },
  sourcemap: true,
  clean: true,
  target: "node22",
  tsconfig: "tsconfig.json"
})
