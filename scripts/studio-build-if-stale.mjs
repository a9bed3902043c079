/**
 * `npm start`'s first step: builds Coursekit Studio (packages/studio) when its build is
 * missing or older than anything it is built from, so that `npm ci && npm start` serves
 * the Studio on a fresh clone and after a pull, and costs nothing when it is up to date.
 * It prints one line when it builds (on standard error: standard output is the server's
 * JSON log); a build that fails prints the build's output and exits with its status.
 *
 *   node scripts/studio-build-if-stale.mjs [repository root]
 *
 * Plain JavaScript: it runs before tsx is in the picture.
 */
import { spawnSync } from "node:child_process"
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs"
import { join, relative, resolve } from "node:path"
import { fileURLToPath } from "node:url"

/** What a workspace package's part of the build is made from, beside the Studio's own `index.html`, `vite.config.ts` and `public/`. */
const packageInputs = ["src", "package.json"]
const studioInputs = [...packageInputs, "index.html", "vite.config.ts", "public"]

/** The workspace packages under `root`, by name: their directories. */
const workspacePackages = (root) => {
  const packages = new Map()
  for (const name of readdirSync(join(root, "packages"))) {
    const manifest = join(root, "packages", name, "package.json")
    if (existsSync(manifest)) packages.set(JSON.parse(readFileSync(manifest, "utf8")).name, join(root, "packages", name))
  }
  return packages
}

/**
 * The directories whose sources go into the Studio's bundle: the Studio's, and those of the
 * workspace packages it depends on (`dependencies`, transitively), which Vite reads from
 * their sources (the "@coursekit/source" condition).
 */
const bundledPackages = (root, studioDir) => {
  const packages = workspacePackages(root)
  const found = [studioDir]
  for (let index = 0; index < found.length; index++) {
    const manifest = JSON.parse(readFileSync(join(found[index], "package.json"), "utf8"))
    for (const name of Object.keys(manifest.dependencies ?? {})) {
      const dir = packages.get(name)
      if (dir !== undefined && !found.includes(dir)) found.push(dir)
    }
  }
  return found
}

/** The newest file at `path` (a file, or every file under a directory), or undefined when there is none. */
const newestFile = (path) => {
  if (!existsSync(path)) return undefined
  const stat = statSync(path)
  if (!stat.isDirectory()) return { path, mtimeMs: stat.mtimeMs }
  let newest
  for (const entry of readdirSync(path, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue
    const file = join(entry.parentPath, entry.name)
    const mtimeMs = statSync(file).mtimeMs
    if (newest === undefined || mtimeMs > newest.mtimeMs) newest = { path: file, mtimeMs }
  }
  return newest
}

/**
 * Why the Studio's build under `root` must be made again, or undefined when it is up to
 * date: its `dist/index.html` (written by every build) is missing, or a file it is built
 * from is newer.
 */
export const staleness = (root) => {
  const studioDir = join(root, "packages", "studio")
  const built = join(studioDir, "dist", "index.html")
  if (!existsSync(built)) return `${relative(root, built)} is missing`
  const builtAt = statSync(built).mtimeMs
  for (const dir of bundledPackages(root, studioDir)) {
    for (const input of dir === studioDir ? studioInputs : packageInputs) {
      const newest = newestFile(join(dir, input))
      if (newest !== undefined && newest.mtimeMs > builtAt) return `${relative(root, newest.path)} changed since the last build`
    }
  }
  return undefined
}

/** The values the server reads as false (Effect's `Config.Boolean`). */
const falseValues = ["false", "no", "off", "0", "n"]

/**
 * Builds the Studio under `root` with its own build script when it is stale and the
 * server will serve it (`env.STUDIO_ENABLED` is not false); answers whether it built.
 * `say` prints the one line.
 */
export const buildIfStale = (root, env = process.env, say = (line) => process.stderr.write(`${line}\n`)) => {
  if (falseValues.includes(env.STUDIO_ENABLED ?? "")) return { built: false }
  const reason = staleness(root)
  if (reason === undefined) return { built: false }
  say(`coursekit: building Coursekit Studio (${reason}): npm run build --workspace @coursekit/studio`)
  const build = spawnSync("npm", ["run", "build", "--workspace", "@coursekit/studio"], { cwd: root, encoding: "utf8" })
  return { built: true, status: build.status ?? 1, output: `${build.stdout ?? ""}${build.stderr ?? ""}${build.error?.message ?? ""}` }
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = resolve(process.argv[2] ?? join(fileURLToPath(import.meta.url), "..", ".."))
  const result = buildIfStale(root)
  if (result.built && result.status !== 0) {
    process.stderr.write(result.output)
    process.stderr.write(`coursekit: the Studio's build failed (exit ${result.status}); fix it, or run the server without the Studio: STUDIO_ENABLED=false npm start\n`)
    process.exit(result.status)
  }
}
