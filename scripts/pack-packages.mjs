// Packs every publishable package of the workspace (those not marked private) as `npm
// publish` would upload it, into `dist-packages/` or the directory named by the first
// argument; prints the tarballs' names. The packages must be built (`npm run build`).
import { execFileSync } from "node:child_process"
import { mkdirSync, readdirSync, readFileSync } from "node:fs"
import { join, resolve } from "node:path"

const root = resolve(import.meta.dirname, "..")
const destination = resolve(process.argv[2] ?? join(root, "dist-packages"))
const publishable = readdirSync(join(root, "packages")).filter((name) => {
  const manifest = JSON.parse(readFileSync(join(root, "packages", name, "package.json"), "utf8"))
  return manifest.private !== true
})
mkdirSync(destination, { recursive: true })
execFileSync("npm", ["pack", ...publishable.flatMap((name) => ["--workspace", `packages/${name}`]), "--pack-destination", destination, "--loglevel=error"], {
  cwd: root,
  stdio: ["ignore", "inherit", "inherit"]
})
