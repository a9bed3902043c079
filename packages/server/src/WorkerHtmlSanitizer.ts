/**
 * The HTML sanitizer on worker processes: the same pipelines as `HtmlSanitizer.layer`
 * (`@coursekit/core/html-pipelines`), run off the event loop that serves requests, so
 * a hostile document — a model's answer after a prompt injection, an admin body of an
 * embedding app's user — costs a worker, never the server's availability.
 *
 * - A few workers (`workers`) and a bounded queue (`maxQueue`): past it a request is
 *   refused at once with `SanitizerOverloaded` (503 with `Retry-After`), never held.
 * - A time budget per sanitization (`timeBudget`), counted from when a worker takes the
 *   task: past it the worker is killed and the document refused as `HtmlTooComplex`
 *   (422 for an admin write; a failed attempt for generation). So is a document that
 *   fills a worker's heap (`maxHeapMb`).
 * - Idle workers end after `idleTimeout`, returning all the memory a large document
 *   took (a process's memory goes with it; a thread's stays in the server).
 * - The core's limits hold inside: at most `limits.maxElements` elements, and sanitized
 *   HTML no longer than `limits.maxLength`.
 *
 * @since 0.2.0
 */
import {
  defaultAllowList,
  defaultHtmlLimits,
  type HtmlAllowList,
  type HtmlLimits,
  type HtmlRefused,
  HtmlSanitizer,
  type HtmlTaskResult,
  type HtmlTaskRunner,
  HtmlTooComplex,
  refusalOf,
  SanitizerOverloaded
} from "@coursekit/core"
import { Duration, Effect, Layer } from "effect"
import { availableParallelism } from "node:os"
import { BudgetExceeded, OutOfMemory, PoolFull, WorkerPool } from "./internal/WorkerPool.ts"

/** Options of {@link layer}. */
export interface Options {
  /** What stage 3 keeps. Default: Coursekit's {@link defaultAllowList}. */
  readonly allowList?: HtmlAllowList | undefined
  /** Elements and sanitized length a document may have. Default: {@link defaultHtmlLimits}. */
  readonly limits?: HtmlLimits | undefined
  /** Worker processes. Default {@link defaultWorkers}. */
  readonly workers?: number | undefined
  /** Sanitizations that may wait for a worker; one more is a 503. Default 64. */
  readonly maxQueue?: number | undefined
  /** Longest one sanitization may run once a worker has it. Default 2 seconds. */
  readonly timeBudget?: Duration.Input | undefined
  /** How long an idle worker lives. Default 10 seconds. */
  readonly idleTimeout?: Duration.Input | undefined
  /** Heap (old generation) one worker may fill, in MiB. Default 512. */
  readonly maxHeapMb?: number | undefined
}

/**
 * One worker per core but one, from one to four: the core left over serves requests, so
 * a burst of hostile documents slows no request. On two quiet cores one worker sanitizes
 * 1.04× sanitize-html's documents per second and two 1.87× (both cores); a server that
 * sanitizes a lot sets `SANITIZER_WORKERS` higher and shares the cores.
 */
export const defaultWorkers = (): number => Math.max(1, Math.min(4, availableParallelism() - 1))

/** Where the worker's module is: beside this one, as TypeScript in the sources and JavaScript once built. */
const workerFile = new URL(import.meta.url.endsWith(".ts") ? "./htmlSanitizerWorker.ts" : "./htmlSanitizerWorker.js", import.meta.url)

/** The sanitizer on a pool of worker processes, ended with the layer's scope. */
export const layer = (options: Options = {}): Layer.Layer<HtmlSanitizer> =>
  Layer.effect(
    HtmlSanitizer,
    Effect.gen(function*() {
      const allowList = options.allowList ?? defaultAllowList
      const limits = options.limits ?? defaultHtmlLimits
      const budget = Duration.fromInputUnsafe(options.timeBudget ?? Duration.seconds(2))
      const pool = yield* Effect.acquireRelease(
        Effect.sync(() =>
          new WorkerPool({
            file: workerFile,
            workerData: { allowList, limits },
            workers: options.workers ?? defaultWorkers(),
            maxQueue: options.maxQueue ?? 64,
            budgetMs: Duration.toMillis(budget),
            idleMs: Duration.toMillis(Duration.fromInputUnsafe(options.idleTimeout ?? Duration.seconds(10))),
            maxHeapMb: options.maxHeapMb ?? 512
          })
        ),
        (pool) => Effect.promise(() => pool.close())
      )
      const run: HtmlTaskRunner<HtmlRefused> = (task) =>
        Effect.tryPromise({ try: (signal) => pool.run(task, signal), catch: (error) => error }).pipe(
          Effect.catch((error): Effect.Effect<never, HtmlRefused> =>
            error instanceof PoolFull ? Effect.fail(new SanitizerOverloaded())
            : error instanceof BudgetExceeded
              ? Effect.fail(new HtmlTooComplex({ reason: "time", detail: `Sanitizing the HTML took longer than ${Duration.format(budget)}; it is too complex.` }))
            : error instanceof OutOfMemory
              ? Effect.fail(new HtmlTooComplex({ reason: "memory", detail: "Sanitizing the HTML took more memory than a sanitizer may use; it is too complex." }))
            // A worker's bug or crash (or a task abandoned by an interrupted caller): a defect.
            : Effect.die(error)
          ),
          Effect.flatMap((answer) => {
            const result = answer as HtmlTaskResult<typeof task.op>
            return result.ok ? Effect.succeed(result.value) : Effect.fail<HtmlRefused>(refusalOf(result.refused))
          })
        )
      return HtmlSanitizer.make(allowList, limits, run)
    })
  )
