/**
 * `npm start`'s Studio step (scripts/studio-build-if-stale.mjs) on a repository of its
 * own in a temporary directory, whose Studio "builds" with a tiny script that counts its
 * runs: it builds when the build is missing or older than an input, prints one line when
 * it does, never builds an up-to-date Studio, and fails with the build.
 */
import { describe, expect, it } from "vitest"
import { spawnSync } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, readFileSync, utimesSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join, resolve } from "node:path"
import { buildIfStale, staleness } from "../studio-build-if-stale.mjs"

const script = resolve(import.meta.dirname, "../studio-build-if-stale.mjs")

const write = (path: string, text: string) => {
  mkdirSync(dirname(path), { recursive: true })
  writeFileSync(path, text)
}

/** Every file of the fake repository but the build's output, by path from its root. */
const files: Record<string, string> = {
  "package.json": JSON.stringify({ name: "fake", private: true, workspaces: ["packages/*"] }),
  "packages/studio/package.json": JSON.stringify({
    name: "@coursekit/studio",
    private: true,
    scripts: { build: "node build.mjs" },
    dependencies: { "@coursekit/client": "0.1.0", react: "^19.0.0" },
    devDependencies: { "@coursekit/server": "0.1.0" }
  }),
  // Counts its runs in builds.log; fails with 3 when `fail` exists.
  "packages/studio/build.mjs": [
    `import { appendFileSync, existsSync, mkdirSync, writeFileSync } from "node:fs"`,
    `if (existsSync("fail")) { console.error("vite: cannot resolve ./missing"); process.exit(3) }`,
    `appendFileSync("builds.log", "built\\n")`,
    `mkdirSync("dist/assets", { recursive: true })`,
    `writeFileSync("dist/assets/app-abc123.js", "")`,
    `writeFileSync("dist/index.html", "<!doctype html>")`
  ].join("\n"),
  "packages/studio/index.html": "<!doctype html>",
  "packages/studio/vite.config.ts": "export default {}",
  "packages/studio/src/main.tsx": "export {}",
  "packages/studio/src/features/editor/Editor.tsx": "export {}",
  "packages/studio/public/favicon.ico": "",
  "packages/client/package.json": JSON.stringify({ name: "@coursekit/client", dependencies: { "@coursekit/core": "0.1.0" } }),
  "packages/client/src/index.ts": "export {}",
  "packages/core/package.json": JSON.stringify({ name: "@coursekit/core" }),
  "packages/core/src/index.ts": "export {}",
  "packages/server/package.json": JSON.stringify({ name: "@coursekit/server" }),
  "packages/server/src/index.ts": "export {}",
  "packages/other/package.json": JSON.stringify({ name: "@coursekit/other" }),
  "packages/other/src/index.ts": "export {}"
}

const minute = 60_000
/** Every input written a minute ago: older than any build the test makes. */
const fakeRepository = () => {
  const root = mkdtempSync(join(process.env.COURSEKIT_TEST_TMP ?? tmpdir(), "studio-stale-"))
  const past = new Date(Date.now() - minute)
  for (const [path, text] of Object.entries(files)) {
    write(join(root, path), text)
    utimesSync(join(root, path), past, past)
  }
  return root
}

/** `path` under `root` modified `offset` ms from now. */
const touch = (root: string, path: string, offset: number) => {
  const at = new Date(Date.now() + offset)
  utimesSync(join(root, path), at, at)
}

const runScript = (root: string, env: Record<string, string> = {}) =>
  spawnSync(process.execPath, [script, root], { encoding: "utf8", env: { ...process.env, ...env } })

const builds = (root: string) =>
  existsSync(join(root, "packages/studio/builds.log")) ? readFileSync(join(root, "packages/studio/builds.log"), "utf8").split("\n").filter(Boolean).length : 0

describe("scripts/studio-build-if-stale.mjs", () => {
  it("builds a missing Studio with one line on stderr, then does nothing while it is up to date", () => {
    const root = fakeRepository()
    expect(staleness(root)).toBe("packages/studio/dist/index.html is missing")
    const first = runScript(root)
    expect(first.status).toBe(0)
    expect(first.stdout).toBe("")
    expect(first.stderr).toBe(
      "coursekit: building Coursekit Studio (packages/studio/dist/index.html is missing): npm run build --workspace @coursekit/studio\n"
    )
    expect(builds(root)).toBe(1)
    expect(existsSync(join(root, "packages/studio/dist/index.html"))).toBe(true)
    expect(staleness(root)).toBeUndefined()
    for (let run = 0; run < 2; run++) {
      const again = runScript(root)
      expect([again.status, again.stdout, again.stderr]).toEqual([0, "", ""])
    }
    expect(builds(root)).toBe(1)
  })

  it("is stale when any input is newer than the build: the Studio's sources, page, config, manifest and public files, and the sources of the workspace packages it bundles", () => {
    const root = fakeRepository()
    expect(runScript(root).status).toBe(0)
    const inputs = [
      "packages/studio/src/features/editor/Editor.tsx",
      "packages/studio/index.html",
      "packages/studio/vite.config.ts",
      "packages/studio/package.json",
      "packages/studio/public/favicon.ico",
      "packages/client/src/index.ts",
      "packages/client/package.json",
      // A dependency of a dependency.
      "packages/core/src/index.ts"
    ]
    for (const input of inputs) {
      touch(root, input, minute)
      expect(staleness(root), input).toBe(`${input} changed since the last build`)
      touch(root, input, -minute)
      expect(staleness(root), input).toBeUndefined()
    }
    // Not in the bundle: a devDependency, a package the Studio does not use, its own build script.
    for (const other of ["packages/server/src/index.ts", "packages/other/src/index.ts", "packages/studio/build.mjs"]) {
      touch(root, other, minute)
      expect(staleness(root), other).toBeUndefined()
    }
    touch(root, "packages/client/src/index.ts", 0)
    const rebuilt = runScript(root)
    expect(rebuilt.stderr).toBe(
      "coursekit: building Coursekit Studio (packages/client/src/index.ts changed since the last build): npm run build --workspace @coursekit/studio\n"
    )
    expect(builds(root)).toBe(2)
    expect(runScript(root).stderr).toBe("")
    expect(builds(root)).toBe(2)
  })

  it("builds nothing when the server will not serve the Studio (STUDIO_ENABLED false, as the server reads it)", () => {
    const root = fakeRepository()
    for (const value of ["false", "no", "off", "0", "n"]) {
      expect(buildIfStale(root, { STUDIO_ENABLED: value }, () => expect.fail("no line"))).toEqual({ built: false })
    }
    expect(runScript(root, { STUDIO_ENABLED: "false" }).stderr).toBe("")
    expect(builds(root)).toBe(0)
    expect(runScript(root, { STUDIO_ENABLED: "true" }).status).toBe(0)
    expect(builds(root)).toBe(1)
  })

  it("a failed build prints its output and how to start without the Studio, and exits with its status", () => {
    const root = fakeRepository()
    write(join(root, "packages/studio/fail"), "")
    const failed = runScript(root)
    expect(failed.status).toBe(3)
    expect(failed.stderr).toContain("vite: cannot resolve ./missing")
    expect(failed.stderr.trimEnd().split("\n").at(-1)).toBe(
      "coursekit: the Studio's build failed (exit 3); fix it, or run the server without the Studio: STUDIO_ENABLED=false npm start"
    )
    expect(builds(root)).toBe(0)
  })
})
