#!/usr/bin/env node
/**
 * Entry point of the standalone service (`npm start`). Logs are JSON lines on standard
 * output; SIGINT and SIGTERM shut down gracefully (stop accepting, finish requests in
 * flight, close the database) and exit 0.
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Cause, Effect, Exit, Layer, Logger, Runtime } from "effect"
import * as StandaloneServer from "./StandaloneServer.ts"

Layer.launch(StandaloneServer.layer).pipe(
  Effect.provide(Logger.layer([Logger.consoleJson])),
  NodeRuntime.runMain({
    // A signal interrupts the server: that is the normal way to stop it, not a failure.
    teardown: (exit, onExit) =>
      Exit.isFailure(exit) && Cause.hasInterruptsOnly(exit.cause) ? onExit(0) : Runtime.defaultTeardown(exit, onExit)
  })
)
