/**
 * The server as a process: the production command (the built `dist/main.js`, no tsx,
 * with the Studio's build found beside it), one warning at start-up when the Studio is
 * not built, one line and exit 1 for every start-up failure, one process per data directory (also
 * after a `kill -9`), and a data directory private to the service's user whatever the
 * umask.
 */
import { describe, expect, it } from "@effect/vitest"
import { spawn } from "node:child_process"
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { ensureBuilt, root, startProcess, startServerProcess } from "./ServerProcess.ts"

const token = "startup-test-admin-token"
const scratch = (name: string) => mkdtempSync(join(process.env.COURSEKIT_TEST_TMP ?? tmpdir(), `${name}-`))

interface Finished {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** Runs the server from sources with `env` until it exits on its own (within 30 s). */
const runToExit = (env: Readonly<Record<string, string>>): Promise<Finished> =>
  new Promise((done) => {
    const child = spawn(process.execPath, ["--conditions=@coursekit/source", "--import", "tsx", "packages/server/src/main.ts"], {
      cwd: root,
      env: { ...process.env, PORT: "0", HOST: "127.0.0.1", ADMIN_TOKENS: token, ...env },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()))
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
    const timer = setTimeout(() => child.kill("SIGKILL"), 30_000)
    child.on("exit", (code) => {
      clearTimeout(timer)
      done({ code, stdout, stderr })
    })
  })

/** Exit 1 and exactly one line on stderr, which starts with `coursekit: ` and matches `pattern`. */
const expectOneLine = (finished: Finished, pattern: RegExp) => {
  expect(finished.code).toBe(1)
  const lines = finished.stderr.split("\n").filter((line) => line !== "")
  expect(lines, finished.stderr).toHaveLength(1)
  expect(lines[0]).toMatch(/^coursekit: /)
  expect(lines[0]).toMatch(pattern)
  // No stack trace anywhere.
  expect(finished.stdout + finished.stderr).not.toMatch(/^\s+at /m)
}

const createCourse = (url: string, title: string) =>
  fetch(`${url}/courses`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ title, content_html: "<p>Paid lesson text</p>" })
  })

describe("the production start command", () => {
  it("node packages/server/dist/main.js starts, serves, and exits 0 on SIGTERM", async () => {
    ensureBuilt()
    const server = await startProcess(process.execPath, ["packages/server/dist/main.js"], {
      DATA_DIR: scratch("production"),
      ADMIN_TOKENS: token
    })
    const { child, url } = server
    // The built server runs on its own code: no tsx loader in the process.
    expect(child.spawnargs.join(" ")).not.toContain("tsx")
    const created = await createCourse(url, "Served by the built server")
    expect(created.status).toBe(201)
    // The Studio that `npm run build` built, found from dist/ as from src/.
    expect(server.output.join("\n")).toContain(`, Studio ${url}/studio/`)
    const studio = await fetch(`${url}/studio/`)
    expect(studio.status).toBe(200)
    const page = await studio.text()
    expect(page).toBe(readFileSync(join(root, "packages/studio/dist/index.html"), "utf8").replace("<head>", `<head><base href="./">`))
    const script = /src="\.\/(assets\/[^"]+\.js)"/.exec(page)![1]!
    const asset = await fetch(`${url}/studio/${script}`)
    expect([asset.status, asset.headers.get("cache-control")]).toEqual([200, "public, max-age=31536000, immutable"])
    expect(await asset.text()).toBe(readFileSync(join(root, "packages/studio/dist", script), "utf8"))
    child.kill("SIGTERM")
    expect((await server.exit).code).toBe(0)
  }, 120_000)
})

describe("Coursekit Studio at start-up", () => {
  it("not built: one warning naming the missing page and what to run; /studio/ answers 503 and the API serves", async () => {
    const studioDir = scratch("studio-missing")
    const server = await startServerProcess({ DATA_DIR: scratch("studio-missing-data"), ADMIN_TOKENS: token, STUDIO_DIR: studioDir })
    const warnings = server.output.filter((line) => line.includes("Coursekit Studio is not built"))
    expect(warnings, server.output.join("\n")).toHaveLength(1)
    expect(JSON.parse(warnings[0]!)).toMatchObject({
      level: "WARN",
      message: `Coursekit Studio is not built: ${join(studioDir, "index.html")} is missing, so /studio/ answers 503 until \`npm run build\` builds it.`
    })
    expect((await fetch(`${server.url}/studio/`)).status).toBe(503)
    expect((await fetch(`${server.url}/studio/courses/1`)).status).toBe(503)
    expect((await createCourse(server.url, "The API without the Studio")).status).toBe(201)
    expect(server.output.filter((line) => line.includes("Coursekit Studio is not built"))).toHaveLength(1)
    server.child.kill("SIGTERM")
    expect((await server.exit).code).toBe(0)
  }, 60_000)

  it("STUDIO_ENABLED=false: no warning, no Studio in the start-up line, /studio/ a 404", async () => {
    const server = await startServerProcess({ DATA_DIR: scratch("studio-off"), ADMIN_TOKENS: token, STUDIO_ENABLED: "false", STUDIO_DIR: scratch("studio-off-dir") })
    expect(server.output.join("\n")).not.toContain("Studio")
    expect((await fetch(`${server.url}/studio/`)).status).toBe(404)
    server.child.kill("SIGTERM")
    expect((await server.exit).code).toBe(0)
  }, 60_000)
})

describe("npm start", () => {
  it("Ctrl-C (SIGINT to the terminal's whole process group: npm and the server) ends with exit 0, the server gone", async () => {
    const { child, exit, output, url } = await startProcess("npm", ["start"], { DATA_DIR: scratch("ctrl-c"), ADMIN_TOKENS: token }, {
      detached: true
    })
    expect((await createCourse(url, "Before Ctrl-C")).status).toBe(201)
    // A terminal signals the whole group, and npm passes its copy on to the server.
    process.kill(-child.pid!, "SIGINT")
    const ended = await exit
    expect(ended, output.join("\n")).toEqual({ code: 0, signal: null })
    await expect(fetch(`${url}/`)).rejects.toThrow()
  }, 60_000)
})

describe("npx coursekit", () => {
  it("runs the built server; SIGTERM to npx alone stops it (npm's shell does not pass the signal on)", async () => {
    ensureBuilt()
    const dataDir = scratch("npx")
    const { child, url } = await startProcess("npx", ["coursekit"], { DATA_DIR: dataDir, ADMIN_TOKENS: token })
    expect((await fetch(`${url}/`)).status).toBe(200)
    child.kill("SIGTERM")
    // The server notices that npm is gone, shuts down, and its port closes.
    const deadline = Date.now() + 15_000
    let closed = false
    while (!closed && Date.now() < deadline) {
      closed = await fetch(`${url}/`).then(() => false, () => true)
      if (!closed) await new Promise((done) => setTimeout(done, 200))
    }
    expect(closed).toBe(true)
    // It stopped cleanly: the database closed and the data directory's lock released.
    let released = false
    while (!released && Date.now() < deadline) {
      released = !existsSync(join(dataDir, "pglite", "coursekit.lock"))
      if (!released) await new Promise((done) => setTimeout(done, 200))
    }
    expect(released).toBe(true)
  }, 120_000)
})

describe("start-up failures print one line and exit 1", () => {
  /** The built server on a terminal (`script` gives it one), until it has said where its data is; what the terminal showed. */
  const onTerminal = (env: Readonly<Record<string, string>>) =>
    new Promise<string>((done, fail) => {
      ensureBuilt()
      const child = spawn("script", ["-qec", `exec ${process.execPath} packages/server/dist/main.js`, "/dev/null"], {
        cwd: root,
        env: { ...process.env, PORT: "0", HOST: "127.0.0.1", ...env },
        stdio: ["ignore", "pipe", "pipe"],
        detached: true
      })
      let shown = ""
      let seen = false
      // The group may be gone already (it exits on its own after SIGTERM); that is fine.
      const signal = (name: NodeJS.Signals) => {
        try {
          process.kill(-child.pid!, name)
        } catch {}
      }
      const timer = setTimeout(() => (signal("SIGKILL"), fail(new Error(`no data directory line within 60 s:\n${shown}`))), 60_000)
      child.on("exit", () => {
        clearTimeout(timer)
        if (seen) done(shown.replaceAll("\r\n", "\n"))
        else fail(new Error(`exited before the data directory line:\n${shown}`))
      })
      child.stdout.on("data", (chunk: Buffer) => {
        shown += chunk.toString()
        if (seen || !/Data directory/.test(shown)) return
        seen = true
        signal("SIGTERM")
      })
    })

  it("on a terminal: a short banner to read, the admin token of the first start on a line of its own, and not on the second", async () => {
    const dataDir = scratch("terminal")
    const shown = await onTerminal({ DATA_DIR: dataDir })
    const generated = readFileSync(join(dataDir, "admin-token"), "utf8").trim()
    const lines = shown.split("\n").filter((line) => line.trim() !== "")
    expect(lines.filter((line) => line.trimStart().startsWith("{")), shown).toEqual([])
    expect(lines).toContain(`  Admin token: ${generated}`)
    expect(lines.some((line) => /^Coursekit is listening on http:\/\/127\.0\.0\.1:\d+; .*API docs http:\/\/127\.0\.0\.1:\d+\/docs, OpenAPI .*, Studio http:\/\/127\.0\.0\.1:\d+\/studio\/$/.test(line)), shown).toBe(true)
    expect(lines).toContain(`Data directory: ${dataDir}`)
    // Short: the banner, the token, at most a warning or two (a Studio not built, say).
    expect(lines.length, shown).toBeLessThanOrEqual(8)
    // The second start reads the token: it is not shown again.
    const again = await onTerminal({ DATA_DIR: dataDir })
    expect(again).not.toContain(generated)
    expect(again).toContain(`Admin token: read it from ${join(dataDir, "admin-token")}.`)
  }, 150_000)

  it("on a terminal with LOG_FORMAT=json: JSON lines, the admin token among their annotations", async () => {
    const json = await onTerminal({ DATA_DIR: scratch("terminal-json"), LOG_FORMAT: "json" })
    const entries = json.split("\n").filter((line) => line.startsWith("{")).map((line) => JSON.parse(line) as { message: unknown; annotations: Record<string, unknown> })
    expect(entries.some((entry) => typeof entry.annotations["adminToken"] === "string")).toBe(true)
    expect(entries.some((entry) => String(entry.message).startsWith("Data directory: "))).toBe(true)
  }, 90_000)

  it("a variable that is not valid names it", async () => {
    expectOneLine(await runToExit({ DATA_DIR: scratch("bad-variable"), PORT: "eighty" }), /^coursekit: PORT is not valid: .*Fix or unset PORT/)
  })

  it("a port in use says so and how to pick another", async () => {
    const blocker = createServer()
    await new Promise<void>((done) => blocker.listen(0, "127.0.0.1", done))
    const port = (blocker.address() as { port: number }).port
    try {
      expectOneLine(
        await runToExit({ DATA_DIR: scratch("port-in-use"), PORT: String(port) }),
        new RegExp(`^coursekit: Port ${port} is already in use .*set PORT to a free port`)
      )
    } finally {
      blocker.close()
    }
  })

  it("an unreachable DATABASE_URL names the server, never the password", async () => {
    const finished = await runToExit({ DATA_DIR: scratch("no-database"), DATABASE_URL: "postgres://coursekit:s3cret-pw@127.0.0.1:1/coursekit" })
    expectOneLine(finished, /^coursekit: Cannot connect to the database at DATABASE_URL \(postgres:\/\/coursekit@127\.0\.0\.1:1\/coursekit\): connection refused/)
    expect(finished.stdout + finished.stderr).not.toContain("s3cret-pw")
  })

  it("a SESSION_SECRET too short to sign with says how long it must be, never the value", async () => {
    const finished = await runToExit({ DATA_DIR: scratch("short-session-secret"), SESSION_SECRET: "short-Secret-0123" })
    expectOneLine(finished, /^coursekit: The session secret has 17 characters; it needs at least 32\. Set SESSION_SECRET to 32 or more random characters/)
    expect(finished.stdout + finished.stderr).not.toContain("short-Secret-0123")
  })
})

describe("one process per data directory", () => {
  it("a second process refuses to start, naming the first; after kill -9 of the first, the next one takes over", async () => {
    const dataDir = scratch("locked")
    const first = await startServerProcess({ DATA_DIR: dataDir, ADMIN_TOKENS: token })
    expect((await createCourse(first.url, "Written by the first process")).status).toBe(201)

    const second = await runToExit({ DATA_DIR: dataDir })
    expectOneLine(second, new RegExp(`^coursekit: DATA_DIR ${dataDir} is in use by process ${first.child.pid} .*Stop that process first`))

    first.child.kill("SIGKILL")
    expect((await first.exit).signal).toBe("SIGKILL")
    // The lock it left is stale: the next process takes it over and finds the data.
    const third = await startServerProcess({ DATA_DIR: dataDir, ADMIN_TOKENS: token })
    const listed = await fetch(`${third.url}/courses`).then((response) => response.json())
    expect(listed.map((course: { title: string }) => course.title)).toEqual(["Written by the first process"])
    const fourth = await runToExit({ DATA_DIR: dataDir })
    expectOneLine(fourth, new RegExp(`is in use by process ${third.child.pid} `))
    third.child.kill("SIGTERM")
    expect((await third.exit).code).toBe(0)
    // Released on a clean exit.
    expect(existsSync(join(dataDir, "pglite", "coursekit.lock"))).toBe(false)
  }, 90_000)
})

/** Every path under `directory` with its permission bits. */
const modesUnder = (directory: string): Array<[string, string, number]> =>
  readdirSync(directory, { withFileTypes: true, recursive: true }).map((entry) => {
    const path = join(entry.parentPath, entry.name)
    const stats = statSync(path)
    return [path.slice(directory.length), stats.isDirectory() ? "dir" : "file", stats.mode & 0o777]
  })

/** The standalone server from sources under umask 000, so that only the service's own modes count. */
const startUnderOpenUmask = (env: Readonly<Record<string, string>>) =>
  startProcess("sh", ["-c", `umask 000; exec "${process.execPath}" --conditions=@coursekit/source --import tsx packages/server/src/main.ts`], env)

/** Creates a course and PUTs a thumbnail (not finalized), so that the store holds files too. */
const writeSome = async (url: string, dataDir: string) => {
  const admin = { authorization: `Bearer ${readFileSync(join(dataDir, "admin-token"), "utf8").trim()}` }
  const course = await fetch(`${url}/courses`, {
    method: "POST",
    headers: { ...admin, "content-type": "application/json" },
    body: JSON.stringify({ title: "Private", content_html: "<p>Paid lesson text</p>" })
  }).then((response) => response.json())
  const upload = await fetch(`${url}/courses/${course.id}/upload-url`, {
    method: "POST",
    headers: { ...admin, "content-type": "application/json" },
    body: JSON.stringify({ file_name: "cover.png", content_type: "image/png" })
  }).then((response) => response.json())
  expect((await fetch(upload.upload_url, { method: "PUT", headers: upload.headers, body: new Uint8Array(64) })).status).toBe(200)
}

/** Paths under `directory` whose mode is not 0700 (directories) or 0600 (files). */
const openModes = (directory: string) =>
  modesUnder(directory).filter(([, kind, mode]) => mode !== (kind === "dir" ? 0o700 : 0o600))

describe("the data directory is private", () => {
  it("under umask 000, every directory under DATA_DIR is 0700 and every file 0600; a directory left open by an earlier version is tightened at start", async () => {
    const dataDir = join(scratch("private"), "data")
    const first = await startUnderOpenUmask({ DATA_DIR: dataDir })
    await writeSome(first.url, dataDir)
    first.child.kill("SIGTERM")
    expect((await first.exit).code).toBe(0)

    expect(statSync(dataDir).mode & 0o777).toBe(0o700)
    const modes = modesUnder(dataDir)
    expect(modes.map(([path]) => path)).toContainEqual(expect.stringContaining("/pglite/base/"))
    expect(modes.map(([path]) => path)).toContainEqual(expect.stringMatching(/^\/storage\/courses\/1\/[0-9a-f-]{36}\.png$/))
    expect(openModes(dataDir)).toEqual([])

    // What an earlier version left: 0755 directories and 0666 database files.
    chmodSync(dataDir, 0o755)
    for (const [path, kind] of modes) {
      if (path.startsWith("/pglite")) chmodSync(join(dataDir, path), kind === "dir" ? 0o755 : 0o666)
    }
    expect(openModes(dataDir).length).toBeGreaterThan(10)
    const second = await startUnderOpenUmask({ DATA_DIR: dataDir })
    second.child.kill("SIGTERM")
    expect((await second.exit).code).toBe(0)
    expect(openModes(dataDir)).toEqual([])
  }, 60_000)

  it("a DATA_DIR owned by another user (a shared volume) keeps its mode, with a warning, and the service starts", async () => {
    const dataDir = join(scratch("shared-volume"), "data")
    mkdirSync(dataDir, { mode: 0o770 })
    chmodSync(dataDir, 0o770)
    // nobody's uid; the test runs as root, so the service can still write there.
    chownSync(dataDir, 65534, 65534)
    const server = await startUnderOpenUmask({ DATA_DIR: dataDir, ADMIN_TOKENS: token })
    expect((await createCourse(server.url, "On a shared volume")).status).toBe(201)
    server.child.kill("SIGTERM")
    expect((await server.exit).code).toBe(0)
    expect(statSync(dataDir).mode & 0o777).toBe(0o770)
    expect(server.output.join("\n")).toContain(`${dataDir} belongs to another user and is open to others (mode 770)`)
  }, 60_000)
})
