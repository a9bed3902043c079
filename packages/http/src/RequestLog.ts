/**
 * Request ids and the one structured log line written per request.
 *
 * @since 0.1.0
 */
import { Context, Layer } from "effect"

/** What is logged of each request. */
export interface RequestLogEntry {
  readonly requestId: string
  readonly method: string
  readonly path: string
  readonly status: number
  readonly durationMs: number
}

/** The id of the request being handled (an incoming `x-request-id`, else a new UUID). */
export const RequestId = Context.Reference<string>("@coursekit/http/RequestId", { defaultValue: () => "" })

/** Where request log lines go. */
export class RequestLogger extends Context.Service<RequestLogger, {
  log(entry: RequestLogEntry): void
}>()("@coursekit/http/RequestLogger") {
  /**
   * One JSON object per line to `write` (standard output by default), shaped like
   * Effect's `Logger.consoleJson` lines so one parser reads both:
   * `{"message":"GET /courses 200","level":"INFO","timestamp":…,"annotations":{requestId,…}}`.
   * Written directly rather than through Effect's logger: the per-request logger
   * pipeline costs a large share of a fast route's throughput.
   */
  static readonly layerJsonLines = (
    write: (line: string) => void = (line) => process.stdout.write(line)
  ): Layer.Layer<RequestLogger> =>
    Layer.succeed(RequestLogger, RequestLogger.of({
      log: (entry) =>
        write(
          `{"message":${JSON.stringify(`${entry.method} ${entry.path} ${entry.status}`)},` +
            `"level":"${entry.status >= 500 ? "ERROR" : "INFO"}","timestamp":"${new Date().toISOString()}",` +
            `"annotations":{"requestId":${JSON.stringify(entry.requestId)},"method":${JSON.stringify(entry.method)},` +
            `"path":${JSON.stringify(entry.path)},"status":${entry.status},"durationMs":${entry.durationMs}}}\n`
        )
    }))

  /** Discards request log lines. */
  static readonly layerSilent: Layer.Layer<RequestLogger> = Layer.succeed(RequestLogger, RequestLogger.of({ log: () => {} }))
}
