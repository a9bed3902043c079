/**
 * The framework examples (Express, Fastify, Hono, Next.js), each started the way its npm
 * script does (one command, its own process) and driven over HTTP as a user would: the host's login decides who is an
 * admin and who is a student; Coursekit answers under /api/coursekit, Coursekit Studio
 * under /api/coursekit/studio/ (the repository's build); SIGTERM stops it.
 * Express, Fastify and Hono take the defaults (PGlite, local disk in a fresh DATA_DIR):
 * a thumbnail goes up through the host and is served back, and a restart keeps it.
 */
import { beforeAll, describe, expect, it } from "@effect/vitest"
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { freePort } from "./FreePort.ts"

const root = resolve(import.meta.dirname, "../..")


/**
 * Next.js loads Coursekit as published (`dist/`), as any Next app would: build the two
 * packages it uses when a fresh checkout has not built them yet.
 */
const ensureBuiltForNext = () => {
  const missing = ["core", "http"].filter((name) => !existsSync(resolve(root, `packages/${name}/dist/index.js`)))
  if (missing.length > 0) {
    execFileSync("npm", ["run", "build", ...missing.flatMap((name) => ["--workspace", `@coursekit/${name}`])], { cwd: root, stdio: "ignore" })
  }
}

/** Starts `examples/<name>` as its own process, the way its npm script does. */
const startExample = async (name: string, dataDir: string) => {
  if (name === "nextjs") ensureBuiltForNext()
  // Next.js is its own dev server; the others are our TypeScript entry points.
  const port = name === "nextjs" ? await freePort() : 0
  const [args, ready] = name === "nextjs"
    ? [[resolve(root, "node_modules/next/dist/bin/next"), "dev", "examples/nextjs", "--port", String(port), "--hostname", "127.0.0.1"], /Ready in/]
    : [["--conditions=@coursekit/source", "--import", "tsx", `examples/${name}/server.ts`], /listening on (http:\/\/\S+?);/]
  return new Promise<{ child: ChildProcess; url: string; exit: Promise<number | null> }>((done, fail) => {
    const child = spawn(process.execPath, args, {
      cwd: root,
      env: { ...process.env, PORT: String(port), DATA_DIR: dataDir, NEXT_TELEMETRY_DISABLED: "1" },
      stdio: ["ignore", "pipe", "pipe"]
    })
    const exit = new Promise<number | null>((settle) => child.on("exit", (code) => settle(code)))
    let output = ""
    const read = (chunk: Buffer) => {
      output += chunk.toString()
      const match = ready.exec(output)
      if (match) done({ child, url: match[1] ?? `http://127.0.0.1:${port}`, exit })
    }
    child.stdout!.on("data", read)
    child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()))
    void exit.then(() => fail(new Error(`${name} exited before listening:\n${output}`)))
  })
}

const login = async (url: string, user: string) => {
  const response = await fetch(`${url}/login`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ user }) })
  expect(response.status).toBe(200)
  return /sid=[\w-]+/.exec(response.headers.get("set-cookie") ?? "")![0]
}

/** The examples that take the defaults (Next.js keeps its own in-memory layers). */
const takesDefaults = (name: string) => name !== "nextjs"

const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, ...Array.from({ length: 200 }, (_, i) => i)])

const api = (url: string) => async (path: string, init: { method?: string; cookie?: string; body?: unknown } = {}) => {
  const response = await fetch(`${url}/api/coursekit${path}`, {
    method: init.method ?? "GET",
    headers: { "content-type": "application/json", ...(init.cookie === undefined ? {} : { cookie: init.cookie }) },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) })
  })
  const text = await response.text()
  return { status: response.status, headers: response.headers, text, body: text.startsWith("{") || text.startsWith("[") ? JSON.parse(text) : text }
}

describe.each(["express", "fastify", "hono", "nextjs"])("examples/%s", (name) => {
  // The Studio each example serves is the repository's build: made as `npm start` makes it, when missing or stale.
  beforeAll(() => {
    execFileSync(process.execPath, ["scripts/studio-build-if-stale.mjs"], { cwd: root, stdio: "ignore" })
  }, 120_000)

  it("serves Coursekit and its Studio under /api/coursekit with the host's login (and, on the defaults, uploads that survive a restart); stops on SIGTERM", async () => {
    const dataDir = mkdtempSync(join(process.env.COURSEKIT_TEST_TMP ?? tmpdir(), `example-${name}-`))
    const { child, url, exit } = await startExample(name, dataDir)
    let thumbnail: { readonly id: number; readonly url: string } | undefined
    try {
      expect((await fetch(url)).status).toBe(200)
      const admin = await login(url, "admin")
      const alice = await login(url, "alice")
      const call = api(url)

      const course = await call("/courses", { method: "POST", cookie: admin, body: { title: `${name} course`, content_html: "<h2>Welcome</h2>" } })
      expect(course.status).toBe(201)
      expect(course.headers.get("location")).toBe(`/api/coursekit/courses/${course.body.id}`)
      expect((await call("/courses", { method: "POST", cookie: alice, body: { title: "x", content_html: "" } })).status).toBe(403)
      expect((await call("/courses", { method: "POST", body: { title: "x", content_html: "" } })).status).toBe(401)

      const lesson = await call(`/courses/${course.body.id}/lessons`, {
        method: "POST",
        cookie: admin,
        body: { title: "Deep dive", content_html: "<p>Secret chapter text</p>", is_preview: false }
      })
      expect(lesson.status).toBe(201)
      const before = await call(`/public/courses/${course.body.slug}`, { cookie: alice })
      expect(before.body.lessons[0].access).toBe("locked")
      expect(before.text).not.toContain("Secret chapter text")
      expect((await call(`/admin/courses/${course.body.id}/purchases/alice`, { method: "PUT", cookie: admin })).status).toBe(200)
      const after = await call(`/public/courses/${course.body.slug}`, { cookie: alice })
      expect(after.body.lessons[0].content_html).toBe("<p>Secret chapter text</p>")
      const anonymous = await call(`/public/courses/${course.body.slug}`)
      expect(anonymous.text).not.toContain("Secret chapter text")
      expect((await call("/openapi.json")).status).toBe(200)

      // Coursekit Studio under the prefix: /studio redirects to studio/, whose page is the build's.
      const studio = await fetch(`${url}/api/coursekit/studio`)
      expect([studio.status, studio.redirected, studio.url]).toEqual([200, true, `${url}/api/coursekit/studio/`])
      const built = readFileSync(resolve(root, "packages/studio/dist/index.html"), "utf8")
      expect(await studio.text()).toBe(built.replace("<head>", `<head><base href="./">`))
      // Its policy lets the page show files from where the defaults serve them: the host's origin.
      expect(studio.headers.get("content-security-policy")).toContain(takesDefaults(name) ? `img-src 'self' data: blob: ${new URL(url).origin};` : "img-src 'self' data: blob:;")
      expect((await fetch(`${url}/api/coursekit/studio/courses/12`)).status).toBe(200)

      if (takesDefaults(name)) {
        // The three-step upload through the host: the signed URL is under its prefix.
        const issued = await call(`/courses/${course.body.id}/upload-url`, { method: "POST", cookie: admin, body: { file_name: "cover.png", content_type: "image/png" } })
        expect(issued.status).toBe(200)
        expect(issued.body.upload_url.split("?")[0]).toBe(`${url}/api/coursekit/storage/${issued.body.file_key}`)
        const put = await fetch(issued.body.upload_url, { method: "PUT", headers: issued.body.headers, body: png })
        expect(put.status).toBe(200)
        const finalized = await call(`/courses/${course.body.id}/finalize-upload`, { method: "POST", cookie: admin, body: { file_key: issued.body.file_key } })
        expect(finalized.status).toBe(200)
        const served = await fetch(finalized.body.thumbnail_url)
        expect(served.headers.get("content-type")).toBe("image/png")
        expect(new Uint8Array(await served.arrayBuffer())).toEqual(png)
        thumbnail = { id: course.body.id, url: finalized.body.thumbnail_url }
      }
    } finally {
      child.kill("SIGTERM")
    }
    expect(await exit).toBe(0)
    if (thumbnail === undefined) return
    // PGlite and the files are in DATA_DIR: a second run of the app has them.
    const restarted = await startExample(name, dataDir)
    try {
      const read = await api(restarted.url)(`/courses/${thumbnail.id}`)
      expect(read.status).toBe(200)
      const served = await fetch(read.body.thumbnail_url)
      expect(new Uint8Array(await served.arrayBuffer())).toEqual(png)
    } finally {
      restarted.child.kill("SIGTERM")
    }
    expect(await restarted.exit).toBe(0)
  }, 120_000)
})
