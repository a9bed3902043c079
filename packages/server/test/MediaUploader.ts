/**
 * Runs the uploader script (`MediaUploaderProcess.ts`) as a process of its own, with this
 * Node and the tsx loader as the tests' other processes run, and reads what it prints.
 */
import { spawn } from "node:child_process"
import { join } from "node:path"
import { Effect, type Scope } from "effect"
import { root } from "./ServerProcess.ts"
import { adminToken } from "./TestServer.ts"

/** A line the uploader printed: an answered API call, an answered part PUT, the media record, or its failure. */
export type UploaderLine =
  | { readonly request: string; readonly status: number }
  | { readonly put: number; readonly status: number }
  | { readonly media: { readonly file_key: string; readonly size_bytes: number; readonly [field: string]: unknown } }
  | { readonly error: string; readonly problem?: unknown }

export interface UploaderExit {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  /** What it wrote to stderr, for a failure's message. */
  readonly stderr: string
}

/** A running uploader. */
export interface Uploader {
  /** What it printed so far. */
  readonly lines: ReadonlyArray<UploaderLine>
  /** Succeeds once `done` holds for the lines printed so far; dies if the process ends before. */
  readonly until: (done: (lines: ReadonlyArray<UploaderLine>) => boolean) => Effect.Effect<void>
  /** Kills it with SIGKILL, as a crash or `kill -9` would; how it ended. */
  readonly kill: Effect.Effect<UploaderExit>
  /** How it ended, once it has. */
  readonly exit: Effect.Effect<UploaderExit>
}

/** The part numbers of the part PUTs in `lines` that storage answered with `status`. */
export const partsPut = (lines: ReadonlyArray<UploaderLine>, status = 200): Array<number> =>
  lines.flatMap((line) => "put" in line && line.status === status ? [line.put] : [])

/** The API calls in `lines`, as `"<status> <method> <path>"`. */
export const apiCalls = (lines: ReadonlyArray<UploaderLine>): Array<string> =>
  lines.flatMap((line) => "request" in line ? [`${line.status} ${line.request}`] : [])

/**
 * Starts the uploader of the file at `file` for the server at `baseUrl`, remembering its
 * open upload in `statePath`; killed when the scope closes if still running.
 */
export const startUploader = (baseUrl: string, file: string, statePath: string): Effect.Effect<Uploader, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const child = spawn(
        process.execPath,
        ["--conditions=@coursekit/source", "--import", "tsx", join(import.meta.dirname, "MediaUploaderProcess.ts"), baseUrl, file, statePath],
        { cwd: root, env: { ...process.env, COURSEKIT_ADMIN_TOKEN: adminToken }, stdio: ["ignore", "pipe", "pipe"] }
      )
      const lines: Array<UploaderLine> = []
      const stderr: Array<string> = []
      const watchers = new Set<() => void>()
      let buffered = ""
      child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
        buffered += chunk
        const complete = buffered.split("\n")
        buffered = complete.pop()!
        for (const line of complete) lines.push(JSON.parse(line) as UploaderLine)
        for (const watcher of watchers) watcher()
      })
      child.stderr.setEncoding("utf8").on("data", (chunk: string) => stderr.push(chunk))
      // "close": its output is all read by then.
      const exited = new Promise<UploaderExit>((resolve) => child.once("close", (code, signal) => resolve({ code, signal, stderr: stderr.join("") })))
      const exit = Effect.promise(() => exited)
      const until = (done: (lines: ReadonlyArray<UploaderLine>) => boolean) =>
        Effect.callback<void>((resume) => {
          const check = () => {
            if (!done(lines)) return
            watchers.delete(check)
            resume(Effect.void)
          }
          watchers.add(check)
          void exited.then((how) => {
            if (!watchers.delete(check)) return
            const printed = lines.map((line) => JSON.stringify(line)).join("\n")
            resume(Effect.die(new Error(`the uploader ended first (code ${how.code}, signal ${how.signal}):\n${printed}\n${how.stderr}`)))
          })
          check()
          return Effect.sync(() => void watchers.delete(check))
        })
      const kill = Effect.flatMap(Effect.sync(() => child.kill("SIGKILL")), () => exit)
      return { child, uploader: { lines, until, kill, exit } satisfies Uploader }
    }),
    ({ child }) => child.exitCode === null && child.signalCode === null ? Effect.asVoid(Effect.sync(() => child.kill("SIGKILL"))) : Effect.void
  ).pipe(Effect.map(({ uploader }) => uploader))
