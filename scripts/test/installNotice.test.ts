/**
 * `npm ci` on the machine's Node 20 is quiet and honest (issue #37): npm's warnings are
 * off in this repository (`.npmrc`), and the one line `preinstall` prints says that the
 * scripts fetch Node 24; on a Node the scripts run on, nothing.
 */
import { describe, expect, it } from "@effect/vitest"
import { spawnSync } from "node:child_process"
import { readFileSync } from "node:fs"
import { join, resolve } from "node:path"

const root = resolve(import.meta.dirname, "../..")
const notice = join(root, "scripts/install-notice.mjs")

/** What the notice prints to standard error when run by `node` at `executable`. */
const printedBy = (executable: string) => {
  const result = spawnSync(executable, [notice], { encoding: "utf8" })
  expect(result.status).toBe(0)
  expect(result.stdout).toBe("")
  return result.stderr
}

describe("npm ci's notice", () => {
  it("is one line on a Node older than 22.19, naming the Node 24 the scripts fetch; none on this Node 24", () => {
    expect(printedBy(process.execPath)).toBe("")
    const systemNode = spawnSync("sh", ["-c", "command -v node"], { encoding: "utf8", env: { PATH: "/usr/local/bin:/usr/bin:/bin" } }).stdout.trim()
    const version = spawnSync(systemNode, ["--version"], { encoding: "utf8" }).stdout.trim()
    const [major, minor] = version.slice(1).split(".").map(Number) as [number, number]
    const old = major < 22 || (major === 22 && minor < 19)
    const printed = printedBy(systemNode)
    if (old) expect(printed).toBe(`coursekit: this npm runs on Node ${version}; npm start and npm test fetch Node 24 into .toolchain/ on first use (scripts/node24.sh).\n`)
    else expect(printed).toBe("")
  })

  it("runs before npm ci installs anything, and npm's warnings are off in this repository", () => {
    const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { scripts: Record<string, string> }
    expect(manifest.scripts.preinstall).toBe("node scripts/install-notice.mjs")
    const npmrc = readFileSync(join(root, ".npmrc"), "utf8").split("\n").filter((line) => line.trim() !== "" && !line.startsWith("#"))
    expect(npmrc).toEqual(["loglevel=error"])
  })
})
