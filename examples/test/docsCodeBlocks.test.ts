/**
 * Every ```ts / ```typescript block of the READMEs (the root's, each package's and the
 * examples') and of docs/*.md compiles against the real API: the blocks become modules of
 * one TypeScript program, with the repository's compiler options and its resolution
 * (`@coursekit/*` imports reach the sources through the "@coursekit/source" condition),
 * and each diagnostic is reported at its line in the Markdown file. A block whose info
 * string says `fragment` (```ts fragment) is deliberately incomplete and skipped; keep
 * those rare.
 */
import { describe, expect, it } from "@effect/vitest"
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { join, relative, resolve } from "node:path"
import ts from "typescript"

const root = resolve(import.meta.dirname, "../..")

/** Fewer checked blocks than this means the extraction broke, not that the docs shrank. */
const minimumChecked = 22
/** Blocks marked `fragment` are the exception. */
const maximumFragments = 2

/** The Markdown files whose TypeScript blocks must compile. */
const markdownFiles = (): Array<string> => {
  const packages = readdirSync(join(root, "packages"))
    .map((name) => join("packages", name, "README.md"))
    .filter((path) => existsSync(join(root, path)))
  const docs = readdirSync(join(root, "docs")).filter((name) => name.endsWith(".md")).map((name) => join("docs", name))
  return ["README.md", join("examples", "README.md"), ...packages, ...docs].sort()
}

interface Block {
  /** The Markdown file, relative to the repository root. */
  readonly markdown: string
  /** The 1-based line of the block's first code line in the Markdown file. */
  readonly line: number
  readonly code: string
  readonly fragment: boolean
}

/** The ```ts and ```typescript blocks of `markdown` (fences may be indented, as in lists). */
const typeScriptBlocks = (markdown: string, text: string): Array<Block> => {
  const lines = text.split("\n")
  const blocks: Array<Block> = []
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,}|~{3,})\s*(\S*)(.*)$/.exec(lines[i]!)
    if (open === null) continue
    const [indent, fence, language, rest] = [open[1]!, open[2]!, open[3]!, open[4]!]
    const close = lines.findIndex((line, j) => j > i && line.trim().startsWith(fence) && line.trim().replaceAll(fence[0]!, "") === "")
    const end = close === -1 ? lines.length : close
    if (language === "ts" || language === "typescript") {
      const code = lines.slice(i + 1, end).map((line) => line.startsWith(indent) ? line.slice(indent.length) : line.trimStart())
      blocks.push({ markdown, line: i + 2, code: code.join("\n"), fragment: rest.split(/\s+/).includes("fragment") })
    }
    i = end
  }
  return blocks
}

/** Where each block lives in the program: beside the examples, so that imports resolve as theirs do. */
const virtualPath = (block: Block) =>
  join(root, "examples", ".docs-code-blocks", `${block.markdown.replace(/[\\/.]/g, "_")}_${block.line}.ts`)

/** The repository's compiler options, for blocks: no output, and each block a module of its own. */
const compilerOptions = (): ts.CompilerOptions => {
  const configPath = join(root, "tsconfig.json")
  const config = ts.readConfigFile(configPath, (path) => ts.sys.readFile(path))
  if (config.error !== undefined) throw new Error(ts.flattenDiagnosticMessageText(config.error.messageText, "\n"))
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, root, undefined, configPath)
  return {
    ...parsed.options,
    noEmit: true,
    // A block without imports would otherwise be a script sharing one global scope with the others.
    moduleDetection: ts.ModuleDetectionKind.Force,
    // A block may show a value without using it.
    noUnusedLocals: false
  }
}

/** Compiles `blocks` as one program; each diagnostic as `file.md:line:column TScode message`. */
const compile = (blocks: ReadonlyArray<Block>): Array<string> => {
  const options = compilerOptions()
  const byPath = new Map(blocks.map((block) => [virtualPath(block), block]))
  const host = ts.createCompilerHost(options, true)
  const { fileExists, readFile, getSourceFile } = host
  host.fileExists = (path) => byPath.has(path) || fileExists.call(host, path)
  host.readFile = (path) => byPath.get(path)?.code ?? readFile.call(host, path)
  host.getSourceFile = (path, languageVersion, onError, shouldCreate) => {
    const block = byPath.get(path)
    return block === undefined
      ? getSourceFile.call(host, path, languageVersion, onError, shouldCreate)
      : ts.createSourceFile(path, block.code, languageVersion, true)
  }
  const program = ts.createProgram({ rootNames: [...byPath.keys()], options, host })
  const diagnostics = [
    ...program.getOptionsDiagnostics(),
    ...program.getGlobalDiagnostics(),
    ...[...byPath.keys()].flatMap((path) => {
      const file = program.getSourceFile(path)!
      return [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)]
    })
  ]
  return diagnostics.map((diagnostic) => {
    const message = `TS${diagnostic.code} ${ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n")}`
    if (diagnostic.file === undefined || diagnostic.start === undefined) return message
    const { line, character } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start)
    const block = byPath.get(diagnostic.file.fileName)
    return block === undefined
      ? `${relative(root, diagnostic.file.fileName)}:${line + 1}:${character + 1} ${message}`
      : `${block.markdown}:${block.line + line}:${character + 1} ${message}`
  })
}

describe("the TypeScript blocks of the READMEs and docs", () => {
  it("compile against the sources, in one program; only blocks marked `fragment` are left out", { timeout: 180_000 }, () => {
    const blocks = markdownFiles().flatMap((markdown) => typeScriptBlocks(markdown, readFileSync(join(root, markdown), "utf8")))
    const checked = blocks.filter((block) => !block.fragment)
    const fragments = blocks.filter((block) => block.fragment).map((block) => `${block.markdown}:${block.line}`)
    expect(checked.length, "TypeScript blocks checked").toBeGreaterThanOrEqual(minimumChecked)
    expect(fragments.length, `fragments: ${fragments.join(", ")}`).toBeLessThanOrEqual(maximumFragments)
    expect(compile(checked)).toEqual([])
  })

  it("finds blocks by their fences: ts and typescript, indented ones, not other languages, fragments marked", () => {
    const markdown = [
      "```ts", "const a = 1", "```",
      "```sh", "echo 'not TypeScript'", "```",
      "1. In a list:", "   ```typescript", "   const b: number = a", "   ```",
      "```ts fragment", "b.c", "```",
      "````md", "```ts", "inside another block", "```", "````"
    ].join("\n")
    expect(typeScriptBlocks("x.md", markdown)).toEqual([
      { markdown: "x.md", line: 2, code: "const a = 1", fragment: false },
      { markdown: "x.md", line: 9, code: "const b: number = a", fragment: false },
      { markdown: "x.md", line: 12, code: "b.c", fragment: true }
    ])
  })
})
