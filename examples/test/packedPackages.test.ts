/**
 * The packages as they would be published (issue #37): `scripts/pack-packages.mjs` packs
 * every publishable package; the tarballs go into an empty project — no workspace, no
 * TypeScript, no tsx — with `effect` and `express`; the plain JavaScript app of
 * docs/embedding.md ("Installing the packages", the ```js server.js block, as written)
 * runs there under `node`, and a course is created through it and read back.
 */
import { describe, expect, it } from "@effect/vitest"
import { execFileSync, spawn } from "node:child_process"
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { freePort } from "./FreePort.ts"

const root = resolve(import.meta.dirname, "../..")

/** The one ```js server.js block of docs/embedding.md. */
const documentedApp = () => {
  const blocks = [...readFileSync(join(root, "docs/embedding.md"), "utf8").matchAll(/^```js server\.js\n([\s\S]*?)^```$/gm)]
  expect(blocks).toHaveLength(1)
  return blocks[0]![1]!
}

describe("the packed packages", () => {
  it("install into an empty project from their tarballs, and the documented plain JavaScript app runs there", async () => {
    const work = mkdtempSync(join(process.env.COURSEKIT_TEST_TMP ?? tmpdir(), "packed-"))
    try {
      const tarballs = join(work, "tarballs")
      execFileSync(process.execPath, [join(root, "scripts/pack-packages.mjs"), tarballs], { cwd: root, stdio: "pipe" })
      const packed = readdirSync(tarballs).sort()
      expect(packed).toEqual([
        "client", "core", "http", "llm-gemini", "llm-openai", "postgres", "server", "storage-local", "storage-s3"
      ].map((name) => `coursekit-${name}-0.1.0.tgz`))
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
