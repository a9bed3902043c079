/**
 * The README's quick start, run as a user runs it: the `sh server` block starts the
 * service (its exports, then `npm start` as a process), and every `sh try-it` block runs,
 * in order, in one bash session: the README's, then those of the guides that continue
 * its session ({@link continuedIn}). The commands come from the files themselves; the only
 * rewrites are the port (`localhost:3000` → the port the server bound) and the data
 * directory (`data/` → the test's own). curl runs as the reader's does: a comment that
 * starts with a status asserts the status the command printed (`-w`'s code at the end of
 * a line, or `curl -i`'s status line), which the reader sees too; a fallback (`|| echo
 * hidden`) must have run when that status is an error; `"field":value` fragments in a
 * comment must appear in the command's output.
 */
import { describe, expect, it } from "@effect/vitest"
import { spawn, spawnSync } from "node:child_process"
import { mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"

const root = resolve(import.meta.dirname, "../..")

interface Block {
  readonly kind: string
  readonly lines: ReadonlyArray<string>
}

/** The README's fenced blocks whose info string is `sh <kind>`. */
const blocksOf = (markdown: string): Array<Block> =>
  [...markdown.matchAll(/^```sh (\S+)\n([\s\S]*?)^```$/gm)].map((match) => ({
    kind: match[1]!,
    lines: match[2]!.split("\n").filter((line) => line.trim() !== "")
  }))

interface Command {
  readonly text: string
  /** The trailing comment of its last line, without `#`. */
  readonly comment: string
}

/** Lines joined at trailing backslashes; the comment is what follows `  #` on the last line. */
const commandsOf = (lines: ReadonlyArray<string>): Array<Command> => {
  const commands: Array<Command> = []
  let pending = ""
  for (const line of lines) {
    if (line.endsWith("\\")) {
      pending += `${line}\n`
      continue
    }
    const full = pending + line
    pending = ""
    const comment = /\s{2,}#\s?(.*)$/.exec(line)?.[1] ?? ""
    commands.push({ text: full, comment })
  }
  return commands
}

/** Guides whose `sh try-it` blocks continue the README's session (its `TOKEN`), in this order. */
const continuedIn = ["docs/editing.md", "docs/progress.md"]

const listening = /listening on http:\/\/[^:]+:(\d+);/

const startServer = (block: Block, dataDir: string) => {
  const exports: Record<string, string> = {}
  const commands = commandsOf(block.lines)
  for (const { text } of commands.slice(0, -1)) {
    const match = /^export (\w+)=(\S+)$/.exec(text)
    if (match === null) throw new Error(`the server block may only export variables before npm start: ${text}`)
    exports[match[1]!] = match[2]!
  }
  expect(commands.at(-1)!.text).toBe("npm start")
  // npm itself, not a shell: the test's SIGTERM reaches npm only, as a supervisor's would.
  const child = spawn("npm", ["start"], {
    cwd: root,
    env: { ...process.env, ...exports, PORT: "0", HOST: "127.0.0.1", DATA_DIR: dataDir },
    stdio: ["ignore", "pipe", "pipe"]
  })
  const output: Array<string> = []
  const exit = new Promise<number | null>((done) => child.on("exit", (code) => done(code)))
  const port = new Promise<number>((done, fail) => {
    let buffered = ""
    child.stdout!.on("data", (chunk: Buffer) => {
      buffered += chunk.toString()
      const match = listening.exec(buffered)
      if (match) done(Number(match[1]))
    })
    child.stderr!.on("data", (chunk: Buffer) => output.push(chunk.toString()))
    void exit.then(() => fail(new Error(`npm start exited before listening:\n${buffered}\n${output.join("")}`)))
  })
  return { child, port, exit, exports }
}

/** The HTTP statuses a command printed, in order: `curl -i`'s status lines, else `-w '%{http_code}'` at a line's end. */
const printedStatuses = (stdout: string) => {
  const statusLines = [...stdout.matchAll(/^HTTP\/[\d.]+ (\d{3})\b/gim)]
  const codes = statusLines.length > 0 ? statusLines : [...stdout.matchAll(/(?:^| )(\d{3})$/gm)]
  return codes.map((match) => Number(match[1]))
}

/** What a command printed before `-w`'s status. */
const bodyOf = (stdout: string) => stdout.replace(/ \d{3}\s*$/, "")

/** Runs the commands in one bash session; each command's output, in order. */
const runCommands = (commands: ReadonlyArray<Command>, env: Record<string, string>, rewrite: (text: string) => string) => {
  const marker = (index: number) => `printf '\\n@@command ${index}\\n'; printf '@@command ${index}\\n' >&2`
  const script = [
    "set -euo pipefail",
    ...commands.flatMap((command, index) => [marker(index), rewrite(command.text)]),
    marker(commands.length)
  ].join("\n")
  const result = spawnSync("bash", ["-c", script], { cwd: root, env: { ...process.env, ...env }, encoding: "utf8", timeout: 120_000 })
  const split = (text: string) => {
    const parts = text.split(/^@@command (\d+)$/m)
    const byIndex = new Map<number, string>()
    for (let i = 1; i < parts.length; i += 2) byIndex.set(Number(parts[i]), parts[i + 1] ?? "")
    return byIndex
  }
  return { status: result.status, stdout: split(result.stdout), stderr: split(result.stderr), raw: result }
}

describe("the README's quick start", () => {
  it("runs as written, in order, against npm start; then SIGTERM to npm stops the server with exit 0", async () => {
    const readme = readFileSync(join(root, "README.md"), "utf8")
    const blocks = blocksOf(readme)
    const server = blocks.filter((block) => block.kind === "server")
    const tryIt = blocks.filter((block) => block.kind === "try-it")
    expect(server).toHaveLength(1)
    expect(tryIt.length).toBeGreaterThanOrEqual(4)
    for (const guide of continuedIn) {
      const guided = blocksOf(readFileSync(join(root, guide), "utf8")).filter((block) => block.kind === "try-it")
      expect(guided.length, guide).toBeGreaterThan(0)
      tryIt.push(...guided)
    }

    const dataDir = mkdtempSync(join(process.env.COURSEKIT_TEST_TMP ?? tmpdir(), "readme-"))
    const started = startServer(server[0]!, dataDir)
    try {
      const port = await started.port
      const commands = tryIt.flatMap((block) => commandsOf(block.lines))
      const rewrite = (text: string) =>
        text.replaceAll("localhost:3000", `127.0.0.1:${port}`).replaceAll("cat data/", `cat ${dataDir}/`)
      const run = runCommands(commands, {}, rewrite)
      const failed = run.status !== 0
        ? `exit ${run.status}\nstdout:\n${run.raw.stdout}\nstderr:\n${run.raw.stderr}`
        : ""
      expect(failed).toBe("")

      commands.forEach((command, index) => {
        const stdout = run.stdout.get(index) ?? ""
        const context = `${command.text}\n→ ${stdout}`
        const status = /^(\d{3})\b/.exec(command.comment)
        if (status !== null) {
          expect(printedStatuses(stdout).at(-1), context).toBe(Number(status[1]))
          const fallback = /\|\|\s*echo\s+(.+?)\s*$/.exec(command.text.replace(/\s{2,}#.*$/, ""))
          if (fallback !== null && Number(status[1]) >= 400) expect(stdout.split("\n"), context).toContain(fallback[1])
        }
        for (const fragment of command.comment.matchAll(/"\w+":(?:null|true|false|\d+)/g)) {
          expect(stdout, context).toContain(fragment[0])
        }
        if (command.comment.includes(`rel="next"`)) expect(stdout.toLowerCase(), context).toMatch(/^link: <[^>]+>; rel="next"/m)
      })

      // What the public course comments promise, read from the answers themselves.
      const publicReads = commands.flatMap((command, index) =>
        command.text.includes("/public/courses/") ? [{ command, body: JSON.parse(bodyOf(run.stdout.get(index)!)) }] : []
      )
      expect(publicReads.map(({ body }) => body.purchased)).toEqual([false, false, true])
      for (const { body } of publicReads.slice(0, 2)) {
        const locked = body.lessons.filter((lesson: { access: string }) => lesson.access === "locked")
        expect(locked.map((lesson: { title: string; content_html: null }) => [lesson.title, lesson.content_html])).toEqual([
          ["The recipe", null]
        ])
        expect(JSON.stringify(body)).not.toContain("<p>Paid</p>")
        expect(JSON.stringify(body)).not.toContain("private/media/")
      }
      expect(publicReads[2]!.body.lessons.map((lesson: { content_html: string }) => lesson.content_html)).toEqual([
        "<p>Free</p>",
        "<p>Paid</p>"
      ])
      // The buyer's video URL is signed, and it plays.
      const paidVideo = publicReads[2]!.body.lessons[1].video_url as string
      expect(paidVideo).toMatch(/\/files\/private\/media\/[0-9a-f-]{36}\.png\?expires=\d+&signature=[0-9a-f]{64}$/)
      expect((await fetch(paidVideo)).status).toBe(200)
      // The DELETE at the end removed the course.
      const gone = await fetch(`http://127.0.0.1:${port}/courses/${publicReads[0]!.body.id}`)
      expect(gone.status).toBe(404)
    } finally {
      started.child.kill("SIGTERM")
    }
    expect(await started.exit).toBe(0)
    // No server left behind serving as an orphan.
    const port = await started.port
    await expect(fetch(`http://127.0.0.1:${port}/`)).rejects.toThrow()
  }, 180_000)
})
