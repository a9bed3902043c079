/**
 * The names every package entry point exports, values and types alike, read by the
 * TypeScript checker from the sources. `scripts/test/exportedNames.test.ts` compares them
 * with `scripts/exported-names.json`, so moving or renaming a file cannot drop or rename
 * a public export unnoticed. After a deliberate change to the public surface, rewrite the
 * list: `sh scripts/node24.sh node --import tsx scripts/exported-names.ts --write`.
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join, resolve } from "node:path"
import ts from "typescript"

const root = resolve(import.meta.dirname, "..")
export const pinnedFile = join(root, "scripts", "exported-names.json")

/** `@coursekit/<package>[/<subpath>]` → its `@coursekit/source` file, for every export of every package. */
export const entryPoints = (): Map<string, string> => {
  const entries = new Map<string, string>()
  for (const name of readdirSync(join(root, "packages")).sort()) {
    const manifest = JSON.parse(readFileSync(join(root, "packages", name, "package.json"), "utf8")) as {
      readonly name: string
      readonly exports?: Record<string, string | Record<string, string>>
    }
    // A private app (the Studio) has no entry points: nothing of it is public.
    for (const [subpath, target] of Object.entries(manifest.exports ?? {})) {
      const source = typeof target === "string" ? undefined : target["@coursekit/source"]
      if (source === undefined) continue
      entries.set(`${manifest.name}${subpath.slice(1)}`, join(root, "packages", name, source))
    }
  }
  return entries
}

/** Each entry point's exported names, sorted; a namespace export (`export * as Slug`) lists its members as `Slug.member`. */
export const exportedNames = (): Record<string, ReadonlyArray<string>> => {
  const entries = entryPoints()
  const config = ts.getParsedCommandLineOfConfigFile(join(root, "tsconfig.json"), {}, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
      throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n"))
    }
  })!
  const program = ts.createProgram([...entries.values()], { ...config.options, noEmit: true })
  const checker = program.getTypeChecker()
  const names: Record<string, ReadonlyArray<string>> = {}
  for (const [specifier, file] of entries) {
    const source = program.getSourceFile(file)
    const module = source === undefined ? undefined : checker.getSymbolAtLocation(source)
    if (module === undefined) throw new Error(`${specifier}: ${file} is not a module`)
    const listed: Array<string> = []
    for (const symbol of checker.getExportsOfModule(module)) {
      listed.push(symbol.name)
      const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol
      // `export * as Slug from "./Slug.ts"`: the namespace's members are public names too.
      if (target.flags & ts.SymbolFlags.ValueModule && target.valueDeclaration !== undefined && ts.isSourceFile(target.valueDeclaration)) {
        for (const member of checker.getExportsOfModule(target)) listed.push(`${symbol.name}.${member.name}`)
      }
    }
    names[specifier] = listed.sort()
  }
  return names
}

if (process.argv.includes("--write")) {
  writeFileSync(pinnedFile, `${JSON.stringify(exportedNames(), null, 2)}\n`)
  console.log(`wrote ${pinnedFile}`)
}
