/**
 * The packages as they would be published (issue #37): `scripts/pack-packages.mjs` packs
 * every publishable package; the tarballs go into an empty project — no workspace, no
 * TypeScript, no tsx — with `effect` and `express`; the plain JavaScript app of
 * docs/embedding.md ("Installing the packages", the ```js server.js block, as written)
 * runs there under `node`, and a course is created through it and read back. Each package
 * has its README, and its exports' types resolve in a strict TypeScript project there.
 */
import { describe, expect, it } from "@effect/vitest"
import { execFileSync, spawn } from "node:child_process"
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { freePort } from "./FreePort.ts"

const root = resolve(import.meta.dirname, "../..")

/** The packages `scripts/pack-packages.mjs` packs: every one but the Studio. */
const publishable = ["client", "core", "http", "llm-gemini", "llm-openai", "postgres", "server", "storage-local", "storage-s3"]

/** The one ```js server.js block of docs/embedding.md. */
const documentedApp = () => {
  const blocks = [...readFileSync(join(root, "docs/embedding.md"), "utf8").matchAll(/^```js server\.js\n([\s\S]*?)^```$/gm)]
  expect(blocks).toHaveLength(1)
  return blocks[0]![1]!
}

/**
 * Each installed package has its README, and every subpath it exports has types that a
 * strict TypeScript project holding only the tarballs resolves: one without a declaration
 * file is error TS7016 there, one not exported TS2307.
 */
const expectReadmesAndTypes = (app: string, names: ReadonlyArray<string>) => {
  const specifiers = names.flatMap((name) => {
    const directory = join(app, "node_modules", name)
    expect(existsSync(join(directory, "README.md")), `${name} has a README`).toBe(true)
    const manifest = JSON.parse(readFileSync(join(directory, "package.json"), "utf8")) as { exports: Record<string, unknown> }
    return Object.keys(manifest.exports).map((subpath) => `${name}${subpath.slice(1)}`)
  })
  expect(specifiers).toContain("@coursekit/http/express")
  writeFileSync(join(app, "types.ts"), specifiers.map((specifier, i) => `import * as m${i} from "${specifier}"\n`).join("") +
    `export const modules = [${specifiers.map((_, i) => `m${i}`).join(", ")}]\n`)
  writeFileSync(join(app, "tsconfig.json"), JSON.stringify({
    compilerOptions: { strict: true, module: "nodenext", moduleResolution: "nodenext", target: "es2022", noEmit: true, skipLibCheck: true, types: [] },
    files: ["types.ts"]
  }))
  try {
    execFileSync(process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "-p", app], { cwd: app, stdio: "pipe", timeout: 120_000 })
  } catch (error) {
    throw new Error(`tsc in the empty project:\n${String((error as { stdout?: Buffer }).stdout ?? error)}`)
  }
}

describe("the packed packages", () => {
  it("install into an empty project from their tarballs, and the documented plain JavaScript app runs there", async () => {
    const work = mkdtempSync(join(process.env.COURSEKIT_TEST_TMP ?? tmpdir(), "packed-"))
    try {
      const tarballs = join(work, "tarballs")
      execFileSync(process.execPath, [join(root, "scripts/pack-packages.mjs"), tarballs], { cwd: root, stdio: "pipe" })
      const packed = readdirSync(tarballs).sort()
      expect(packed).toEqual(publishable.map((name) => `coursekit-${name}-0.1.0.tgz`))
      // Each names the others by version, not by workspace link.
      const app = join(work, "app")
      execFileSync("mkdir", [app])
      writeFileSync(join(app, "package.json"), JSON.stringify({ name: "host-app", private: true, type: "module" }))
      execFileSync("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error", ...packed.map((name) => join(tarballs, name)), "effect", "express"], {
        cwd: app,
        stdio: "pipe",
        timeout: 240_000
      })
      const installed = JSON.parse(readFileSync(join(app, "node_modules/@coursekit/server/package.json"), "utf8")) as { dependencies: Record<string, string> }
      expect(installed.dependencies["@coursekit/http"]).toBe("0.1.0")
      expectReadmesAndTypes(app, publishable.map((name) => `@coursekit/${name}`))
      writeFileSync(join(app, "server.js"), documentedApp())

      const port = await freePort()
      const child = spawn(process.execPath, ["server.js"], { cwd: app, env: { ...process.env, PORT: String(port) }, stdio: ["ignore", "pipe", "pipe"] })
      let output = ""
      child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()))
      child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()))
      const exit = new Promise<number | null>((done) => child.on("exit", done))
      try {
        await new Promise<void>((ready, fail) => {
          const timer = setTimeout(() => fail(new Error(`not listening after 60 s:\n${output}`)), 60_000)
          child.stdout.on("data", () => output.includes("listening on") && (clearTimeout(timer), ready()))
          void exit.then(() => (clearTimeout(timer), fail(new Error(`exited:\n${output}`))))
        })
        const base = `http://localhost:${port}/api/coursekit`
        const created = await fetch(`${base}/courses`, {
          method: "POST",
          headers: { "x-demo-user": "admin", "content-type": "application/json" },
          body: JSON.stringify({ title: "From the tarballs", content_html: "<p>Hi<script>x()</script></p>" })
        })
        expect(created.status).toBe(201)
        const course = (await created.json()) as { id: number; content_html: string }
        expect(course.content_html).toBe("<p>Hi</p>")
        const listed = (await (await fetch(`${base}/courses`)).json()) as Array<{ id: number; title: string }>
        expect(listed.map(({ id, title }) => [id, title])).toEqual([[course.id, "From the tarballs"]])
        // Not an admin: refused.
        expect((await fetch(`${base}/courses`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" })).status).toBe(401)
      } finally {
        child.kill("SIGTERM")
        expect(await exit).toBe(0)
      }
    } finally {
      rmSync(work, { recursive: true, force: true })
    }
  }, 360_000)
})
