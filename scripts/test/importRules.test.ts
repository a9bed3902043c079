import { describe, expect, it } from "vitest"
import { readdirSync, readFileSync } from "node:fs"
import { join, relative, resolve } from "node:path"
import { checkImports, importsOf } from "../import-rules.ts"

const root = resolve(import.meta.dirname, "../..")

/** Every source file of every package, by its path from the repository root. */
const sources = (): Map<string, string> => {
  const files = new Map<string, string>()
  for (const name of readdirSync(join(root, "packages"))) {
    const src = join(root, "packages", name, "src")
    for (const entry of readdirSync(src, { recursive: true, withFileTypes: true })) {
      if (!entry.isFile() || !/\.tsx?$/.test(entry.name)) continue
      const path = join(entry.parentPath, entry.name)
      files.set(relative(root, path), readFileSync(path, "utf8"))
    }
  }
  return files
}

/** `@coursekit/<package>[/<subpath>]` → the source file its `@coursekit/source` export names. */
const sourceEntry = (specifier: string): string | undefined => {
  const [, name, subpath] = /^@coursekit\/([^/]+)(\/.*)?$/.exec(specifier) ?? []
  if (name === undefined) return undefined
  const manifest = JSON.parse(readFileSync(join(root, "packages", name, "package.json"), "utf8")) as {
    readonly exports: Record<string, string | Record<string, string>>
  }
  const entry = manifest.exports[`.${subpath ?? ""}`]
  const path = typeof entry === "string" ? entry : entry?.["@coursekit/source"]
  return path === undefined ? undefined : join("packages", name, path)
}

describe("the repository's import rules", () => {
  it("hold: no import cycle, core imports no SDK and no other package, no package imports one above its layer", () => {
    const files = sources()
    expect(files.size).toBeGreaterThan(100)
    expect(checkImports(files, sourceEntry)).toEqual([])
  })

  it("read every form of import this code base writes", () => {
    expect(importsOf([
      `import { a } from "./a.ts"`,
      `import type { B } from "effect"`,
      `export { c } from "../c.ts"`,
      `export * as D from "./d.ts"`,
      `import "./side-effect.ts"`,
      `const e = await import("openai")`,
      `import {\n  f,\n  g\n} from "@coursekit/core"`
    ].join("\n"))).toEqual(["./a.ts", "effect", "../c.ts", "./d.ts", "./side-effect.ts", "openai", "@coursekit/core"])
  })

  it("fail on a cycle, on core importing an SDK or another package, and on an import up the layers", () => {
    const files = new Map([
      ["packages/core/src/A.ts", `import { b } from "./B.ts"\nimport OpenAI from "openai"`],
      ["packages/core/src/B.ts", `import { a } from "./A.ts"\nimport { layer } from "@coursekit/http"`],
      ["packages/core/src/testing/Suite.ts", `import { it } from "@effect/vitest"`],
      ["packages/postgres/src/PgThing.ts", `import { Server } from "@coursekit/server"\nimport { Course } from "@coursekit/core"`],
      ["packages/llm-openai/src/Other.ts", `import { S3 } from "@coursekit/storage-s3"`]
    ])
    expect(checkImports(files, () => undefined)).toEqual([
      { rule: "core-imports", file: "packages/core/src/A.ts", detail: "core imports openai" },
      { rule: "layers", file: "packages/core/src/B.ts", detail: "core (layer 0) imports @coursekit/http (layer 2)" },
      { rule: "core-imports", file: "packages/core/src/B.ts", detail: "core imports @coursekit/http" },
      { rule: "layers", file: "packages/postgres/src/PgThing.ts", detail: "postgres (layer 1) imports @coursekit/server (layer 3)" },
      { rule: "layers", file: "packages/llm-openai/src/Other.ts", detail: "llm-openai (layer 1) imports @coursekit/storage-s3 (layer 1)" },
      { rule: "cycle", file: "packages/core/src/A.ts", detail: "packages/core/src/A.ts → packages/core/src/B.ts" }
    ])
  })
})
