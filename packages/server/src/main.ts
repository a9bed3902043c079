#!/usr/bin/env node
/**
 * Entry point of the standalone service (`npm start`, `node packages/server/dist/main.js`).
 * Logs are JSON lines on standard output; SIGINT and SIGTERM shut down gracefully (stop
 * accepting, finish requests in flight, close the database) and exit 0. A failure to
 * start prints one line on standard error — what is wrong and what to do — and exits 1.
 */
import { NodeRuntime } from "@effect/platform-node"
import { Cause, Effect, Exit, Layer, Logger, Runtime } from "effect"
import { settings as readSettings, type ServerSettings } from "./ServerConfig.ts"
import * as StandaloneServer from "./StandaloneServer.ts"
import * as StartFailure from "./StartFailure.ts"

/** What the process exits with when it could not start. */
const startFailureExitCode = 1

// Files the service creates (the embedded database, uploads, secrets) are its own alone.
process.umask(0o077)

// Started by npm or npx (`npm_command` is set), the server's parent is npm's shell, which
// does not pass signals on: a supervisor that signals only npm leaves the server behind.
// When the parent goes away, stop as if signalled.
if (process.env.npm_command !== undefined) {
  const parent = process.ppid
  const watch = setInterval(() => {
    if (process.ppid === parent) return
    clearInterval(watch)
    process.kill(process.pid, "SIGTERM")
  }, 500).unref()
}

let settings: ServerSettings | undefined

const program = Effect.gen(function*() {
  settings = yield* readSettings
  return yield* Layer.launch(StandaloneServer.layerFrom(settings))
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
