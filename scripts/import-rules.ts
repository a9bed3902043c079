/**
 * The repository's import rules, checked by `npm test` (scripts/test/importRules.test.ts):
 *
 * 1. No import cycle among the packages' source files (relative imports, and
 *    `@coursekit/<package>` imports, which resolve to that package's sources).
 * 2. Core imports no SDK and no other package: only its own files and the libraries its
 *    domain is written with (`coreLibraries`), plus test tools in its `testing/` entry.
 * 3. No import up the layers: core ← adapters (postgres, storage-*, llm-*) ← http ←
 *    client and server. A package imports only packages of a lower layer.
 *
 * Imports are read from the text (`import … from`, `export … from`, `import(…)`), which
 * is exact for this code base: every import names its module as a string literal.
 */
import { posix } from "node:path"

/** What a package's sources may import besides themselves. */
export const layers: Readonly<Record<string, number>> = {
  core: 0,
  postgres: 1,
  "storage-local": 1,
  "storage-s3": 1,
  "llm-openai": 1,
  "llm-gemini": 1,
  http: 2,
  // The typed client is written against http's contract (`@coursekit/http/api`).
  client: 3,
  server: 3
}

/** The libraries core's domain is written with: no SDK, no platform. */
export const coreLibraries: ReadonlyArray<string> = [
  "effect",
  "parse5",
  "unified",
  "entities",
  "hast",
  "hast-util-from-parse5",
  "hast-util-sanitize",
  "hast-util-to-html",
  "property-information",
  "comma-separated-tokens",
  "space-separated-tokens"
]

/** What core's `testing/` entry (the conformance suites) may import besides. */
export const coreTestingLibraries: ReadonlyArray<string> = ["@effect/vitest", "vitest", "fast-check"]

/** One broken rule. */
export interface Violation {
  readonly rule: "cycle" | "core-imports" | "layers"
  readonly file: string
  readonly detail: string
}

const importPattern = /(?:^|[\s;])(?:import|export)\s[^'"`;]*?from\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)|^\s*import\s*["']([^"']+)["']/gm

/** The module specifiers `source` imports. */
export const importsOf = (source: string): Array<string> => {
  const found: Array<string> = []
  for (const match of source.matchAll(importPattern)) found.push((match[1] ?? match[2] ?? match[3])!)
  return found
}

/** `packages/<name>/src/…` → `<name>`. */
const packageOf = (file: string): string | undefined => /^packages\/([^/]+)\/src\//.exec(file)?.[1]

/** The bare package a specifier names (`@scope/name` or `name`), or undefined for a relative one. */
const bareOf = (specifier: string): string | undefined => {
  if (specifier.startsWith(".") || specifier.startsWith("/")) return undefined
  const parts = specifier.split("/")
  return specifier.startsWith("@") ? `${parts[0]}/${parts[1]}` : parts[0]
}

/**
 * The rules over `files` (repository-relative path → source text). `entries` resolves
 * `@coursekit/<package>[/<subpath>]` to the source file it names (for cycles).
 */
export const checkImports = (
  files: ReadonlyMap<string, string>,
  entries: (specifier: string) => string | undefined
): Array<Violation> => {
  const violations: Array<Violation> = []
  const graph = new Map<string, Array<string>>()
  for (const [file, source] of files) {
    const owner = packageOf(file)
    const edges: Array<string> = []
    for (const specifier of importsOf(source)) {
      const bare = bareOf(specifier)
      if (bare === undefined) {
        edges.push(posix.normalize(posix.join(posix.dirname(file), specifier)))
        continue
      }
      if (bare.startsWith("@coursekit/")) {
        const target = bare.slice("@coursekit/".length)
        const resolved = entries(specifier)
        if (resolved !== undefined) edges.push(resolved)
        if (owner !== undefined && layers[owner] !== undefined && layers[target] !== undefined && layers[target]! >= layers[owner]!) {
          violations.push({ rule: "layers", file, detail: `${owner} (layer ${layers[owner]}) imports ${specifier} (layer ${layers[target]})` })
        }
      }
      if (owner === "core") {
        const testing = file.startsWith("packages/core/src/testing/")
        const allowed = coreLibraries.includes(bare) || (testing && coreTestingLibraries.includes(bare))
        if (!allowed) violations.push({ rule: "core-imports", file, detail: `core imports ${specifier}` })
      }
    }
    graph.set(file, edges)
  }
  for (const cycle of cyclesOf(graph)) violations.push({ rule: "cycle", file: cycle[0]!, detail: cycle.join(" → ") })
  return violations
}

/** The import cycles of `graph` (Tarjan's strongly connected components of two or more files, or a file importing itself). */
const cyclesOf = (graph: ReadonlyMap<string, ReadonlyArray<string>>): Array<Array<string>> => {
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: Array<string> = []
  const onStack = new Set<string>()
  const cycles: Array<Array<string>> = []
  let next = 0
  const visit = (file: string): void => {
    index.set(file, next)
    low.set(file, next)
    next++
    stack.push(file)
    onStack.add(file)
    for (const target of graph.get(file) ?? []) {
      if (!graph.has(target)) continue
      if (!index.has(target)) {
        visit(target)
        low.set(file, Math.min(low.get(file)!, low.get(target)!))
      } else if (onStack.has(target)) low.set(file, Math.min(low.get(file)!, index.get(target)!))
    }
    if (low.get(file) !== index.get(file)) return
    const component: Array<string> = []
    let member: string
    do {
      member = stack.pop()!
      onStack.delete(member)
      component.push(member)
    } while (member !== file)
    if (component.length > 1 || (graph.get(file) ?? []).includes(file)) cycles.push(component.reverse())
  }
  for (const file of graph.keys()) if (!index.has(file)) visit(file)
  return cycles
}
