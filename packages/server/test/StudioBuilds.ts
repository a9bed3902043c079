/**
 * Studio builds for the Studio's tests: a small fake one written into a temporary
 * directory (`index.html` and two hashed assets, a file beside them, and the things a
 * path guard must not follow), and the real one, built from packages/studio by its own
 * Vite into the test run's scratch directory (never into packages/studio/dist, which
 * `npm start` and developers use), once per run.
 */
import { execFile } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { dirname, join, resolve } from "node:path"
import { promisify } from "node:util"

const scratch = () => mkdtempSync(join(process.env.COURSEKIT_TEST_TMP ?? tmpdir(), "studio-"))

/** What the fake build holds. */
export const fakeStudio = {
  indexHtml:
    `<!doctype html>\n<html lang="en">\n  <head>\n    <meta charset="utf-8" />\n    <title>Coursekit Studio</title>\n` +
    `    <script type="module" crossorigin src="./assets/app-abc123.js"></script>\n` +
    `    <link rel="stylesheet" crossorigin href="./assets/app-abc123.css">\n  </head>\n  <body><div id="root"></div></body>\n</html>\n`,
  script: "console.log(\"Coursekit Studio\")\n",
  style: "body { margin: 0 }\n",
  icon: new Uint8Array([0, 0, 1, 0, 1, 0, 16, 16]),
  /** In the temporary directory, beside the build: never to be served. */
  secret: "TOP-SECRET: outside the Studio's build\n"
}

/**
 * A fake build in a fresh directory: `<dir>/dist` holds `index.html`, `assets/app-abc123.js`,
 * `assets/app-abc123.css` and `favicon.ico`, plus a link to a file outside it
 * (`assets/outside.js` → `../../secret.txt`) and a linked directory (`up` → `..`);
 * `<dir>/secret.txt` sits beside it. Answers the build's directory.
 */
export const writeFakeStudio = (): string => {
  const dir = scratch()
  const dist = join(dir, "dist")
  mkdirSync(join(dist, "assets"), { recursive: true })
  writeFileSync(join(dir, "secret.txt"), fakeStudio.secret)
  writeFileSync(join(dist, "index.html"), fakeStudio.indexHtml)
  writeFileSync(join(dist, "assets", "app-abc123.js"), fakeStudio.script)
  writeFileSync(join(dist, "assets", "app-abc123.css"), fakeStudio.style)
  writeFileSync(join(dist, "favicon.ico"), fakeStudio.icon)
  symlinkSync(join("..", "..", "secret.txt"), join(dist, "assets", "outside.js"))
  symlinkSync("..", join(dist, "up"))
  return dist
}

/** An empty directory: a Studio never built. */
export const emptyStudioDir = (): string => scratch()

const root = resolve(import.meta.dirname, "../../..")
const studioPackage = join(root, "packages", "studio")

/**
 * Builds the real Studio (packages/studio, with its vite.config.ts) with the Vite the
 * Studio depends on, once per test run: the first test file to ask builds it into the
 * run's scratch directory, the others (in other workers) wait for that build. Answers
 * the build's directory.
 */
export const buildRealStudio = async (): Promise<string> => {
  const shared = join(process.env.COURSEKIT_TEST_TMP ?? scratch(), "real-studio")
  const outDir = join(shared, "dist")
  const done = join(shared, "built")
  try {
    // Whoever makes the directory builds; mkdir is atomic.
    mkdirSync(shared)
  } catch {
    for (let waited = 0; !existsSync(done); waited += 200) {
      if (waited > 170_000) throw new Error(`the Studio's build in ${shared} did not finish`)
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
    return readFileSync(done, "utf8") === "ok" ? outDir : Promise.reject(new Error(readFileSync(done, "utf8")))
  }
  const vite = createRequire(join(studioPackage, "package.json")).resolve("vite/package.json")
  const bin = join(dirname(vite), JSON.parse(readFileSync(vite, "utf8")).bin.vite)
  try {
    await promisify(execFile)(process.execPath, [bin, "build", "--outDir", outDir, "--emptyOutDir", "--logLevel", "warn"], {
      cwd: studioPackage,
      maxBuffer: 16 * 1024 * 1024
    })
    writeFileSync(done, "ok")
  } catch (error) {
    writeFileSync(done, `the Studio's build failed: ${String(error)}`)
    throw error
  }
  return outDir
}
