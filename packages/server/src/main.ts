#!/usr/bin/env node
/**
 * Entry point of the standalone service (`npm start`, `node packages/server/dist/main.js`).
 * Logs are text on a terminal, else JSON lines on standard output (`LOG_FORMAT`); SIGINT and SIGTERM shut down gracefully (stop
 * accepting, finish requests in flight, close the database) and exit 0. A failure to
 * start prints one line on standard error — what is wrong and what to do — and exits 1.
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Cause, Effect, Exit, Layer, Logger, Runtime } from "effect"
import { settings as readSettings, type ServerSettings } from "./ServerConfig.ts"
import * as DemoData from "./DemoData.ts"
import * as StandaloneServer from "./StandaloneServer.ts"
import * as StartFailure from "./StartFailure.ts"
import * as TerminalLog from "./TerminalLog.ts"

/** What the process exits with when it could not start. */
const startFailureExitCode = 1

// Started by npx (or any npm script that does not `exec` it), the server's parent is
// npm's shell, which does not pass signals on: a supervisor that signals only npm would
// leave the server behind. When the parent goes away, stop as if signalled.
if (process.env.npm_command !== undefined) {
  const parent = process.ppid
  const watch = setInterval(() => {
    if (process.ppid === parent) return
    clearInterval(watch)
    process.kill(process.pid, "SIGTERM")
  }, 500).unref()
}

// A terminal delivers Ctrl-C to npm and the server, and npm passes its copy on — sometimes
// late, after the server has begun to stop. The runtime's own listener is gone by then,
// and a signal without a listener kills the process: this one stays for the process's
// life, so only the first signal counts. If stopping cannot finish (a database that
// stopped answering), the process ends after a deadline.
const stopDeadlineMs = 30_000
let stopping = false
const onStopSignal = () => {
  if (stopping) return
  stopping = true
  setTimeout(() => {
    process.stderr.write(`coursekit: stopping did not finish within ${stopDeadlineMs / 1000} s; exiting.\n`)
    process.exit(1)
  }, stopDeadlineMs).unref()
}
process.on("SIGINT", onStopSignal)
process.on("SIGTERM", onStopSignal)

let settings: ServerSettings | undefined

const program = Effect.gen(function*() {
  settings = yield* readSettings
  // `npm start -- --demo` or DEMO=1: an empty database gets something to look at.
  if (settings.demo || process.argv.slice(2).includes("--demo")) settings = yield* DemoData.settingsOf(settings)
  // Text a person reads on a terminal; JSON lines for anything else, or with LOG_FORMAT=json.
  const logger = TerminalLog.writesText(settings.logFormat, process.stdout.isTTY === true) ? TerminalLog.logger : Logger.consoleJson
  return yield* Layer.launch(StandaloneServer.layerFrom(settings)).pipe(Effect.provide(Logger.layer([logger])))
}).pipe(
  Effect.catchCause((cause) =>
    Cause.hasInterruptsOnly(cause) ? Effect.failCause(cause) : Effect.sync(() => {
      process.stderr.write(`coursekit: ${StartFailure.describe(cause, settings)}.\n`)
      return startFailureExitCode
    })
  ),
  Effect.provide(Logger.layer([Logger.consoleJson]))
)

NodeRuntime.runMain(program, {
  teardown: (exit, onExit) => {
    // Handled above: the line is printed, only the exit code is left to set.
    if (Exit.isSuccess(exit)) return onExit(typeof exit.value === "number" ? exit.value : startFailureExitCode)
    // A signal interrupts the server: that is the normal way to stop it, not a failure.
    return Cause.hasInterruptsOnly(exit.cause) ? onExit(0) : Runtime.defaultTeardown(exit, onExit)
  }
})
