/**
 * Runs the server as its own process, the way a user runs it, and keeps every line it
 * prints (stdout and stderr) for the test to read.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import { existsSync, readdirSync, statSync } from "node:fs"
import { join, resolve } from "node:path"

export const root = resolve(import.meta.dirname, "../../..")

export interface StartedProcess {
  readonly child: ChildProcess
  readonly url: string
  /** Every line printed so far, stdout and stderr. */
  readonly output: Array<string>
  readonly exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
}

/**
 * Runs `command` in the repository on 127.0.0.1:<free port> with `env` added to this
 * process's environment, and settles once the server says where it listens. `detached`
 * gives it a process group of its own, as a terminal's foreground job has.
 */
export const startProcess = (
  command: string,
  args: ReadonlyArray<string>,
  env: Readonly<Record<string, string>>,
  options: { readonly detached?: boolean } = {}
): Promise<StartedProcess> =>
  new Promise((resolveStart, reject) => {
    const child = spawn(command, args, {
      cwd: root,
      env: { ...process.env, PORT: "0", HOST: "127.0.0.1", ...env },
      stdio: ["ignore", "pipe", "pipe"],
      detached: options.detached ?? false
    })
    const output: Array<string> = []
    const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) =>
      child.on("exit", (code, signal) => done({ code, signal }))
    )
    let buffered = ""
    child.stdout!.on("data", (chunk: Buffer) => {
      buffered += chunk.toString()
      const lines = buffered.split("\n")
      buffered = lines.pop()!
      for (const line of lines) {
        output.push(line)
        const match = /listening on (http:\/\/[^;]+);/.exec(line)
        if (match) resolveStart({ child, url: match[1]!, output, exit })
      }
    })
    child.stderr!.on("data", (chunk: Buffer) => output.push(chunk.toString()))
    void exit.then(() => reject(new Error(`server exited before listening:\n${output.join("\n")}`)))
  })

/** `npm start`'s entry point from sources (this Node, tsx) with `env`. */
export const startServerProcess = (env: Readonly<Record<string, string>>): Promise<StartedProcess> =>
  startProcess(process.execPath, ["--conditions=@coursekit/source", "--import", "tsx", "packages/server/src/main.ts"], env)

/** The newest modification time of the files under `directory`. */
const newestUnder = (directory: string): number =>
  Math.max(0, ...readdirSync(directory, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => statSync(join(entry.parentPath, entry.name)).mtimeMs))

/**
 * Builds the packages when a built entry point (a library's `index.js`, the Studio's
 * `index.html`) is missing or older than any source, so a test of the built server never
 * runs yesterday's build. CI builds first; this costs nothing then.
 */
export const ensureBuilt = () => {
  const packages = readdirSync(join(root, "packages"))
  const stale = packages.some((name) => {
    const dist = join(root, "packages", name, "dist")
    const built = ["index.js", "index.html"].map((file) => join(dist, file)).find(existsSync)
    return built === undefined || newestUnder(join(root, "packages", name, "src")) > statSync(built).mtimeMs
  })
  if (stale) execFileSync("npm", ["run", "build"], { cwd: root, stdio: "ignore" })
}
