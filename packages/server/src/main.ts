/**
 * Entry point of the standalone service (`npm start`). Logs are JSON lines on standard
 * output; SIGINT and SIGTERM shut down gracefully (stop accepting, finish requests in
 * flight, close the database).
 */
import { NodeRuntime } from "@effect/platform-node"
import { Effect, Layer, Logger } from "effect"
import * as StandaloneServer from "./StandaloneServer.ts"

Layer.launch(StandaloneServer.layer).pipe(
  Effect.provide(Logger.layer([Logger.consoleJson])),
  NodeRuntime.runMain
)
