import { defaultAllowList, HtmlSanitizer } from "@coursekit/core"
import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Exit, Fiber, Layer } from "effect"
import { monitorEventLoopDelay } from "node:perf_hooks"
import { BudgetExceeded, PoolFull, WorkerFailed, WorkerPool } from "../src/internal/WorkerPool.ts"
import * as WorkerHtmlSanitizer from "../src/WorkerHtmlSanitizer.ts"

/** Documents whose sanitized form the in-process pipelines know: the workers must give the same. */
const documents = [
  "",
  "<h2>Ownership</h2><p onclick=\"x()\">Each value has <b>one</b> owner.</p><script>alert(1)</script>",
  "<table><tr><td>1</td></tr></table><details open><summary>Why</summary><p>Because.</p></details>",
  "<p class=\"text-center evil\"><a href=\"javascript:alert(1)\" target=\"_blank\">x</a><a href=\"https://example.com\" target=\"_blank\">y</a></p>",
  "<iframe src=\"https://www.youtube.com/embed/dQw4w9WgXcQ?start=30&si=x\" width=\"560\"></iframe><svg><g></g></svg>",
  "Sure! Here it is:\n```html\n<p>a &amp; b</p>\n```\nLet me know!"
]

/** A document that keeps a worker busy for a few hundred milliseconds. */
const slowDocument = "<b><p>x".repeat(40_000)

/** Limits far past `slowDocument`, so that only time (or memory) refuses it. */
const roomyLimits = { maxElements: 10_000_000, maxLength: 100_000_000 }

describe("WorkerHtmlSanitizer", () => {
  it.effect("sanitizes in worker processes exactly as the in-process pipelines do, authored, model output and streamed", () =>
    Effect.gen(function*() {
      const local = yield* Effect.provide(Effect.gen(function*() {
        return yield* HtmlSanitizer
      }), HtmlSanitizer.layer)
      const workers = yield* HtmlSanitizer
      for (const html of documents) {
        assert.strictEqual(yield* workers.sanitizeAuthored(html), yield* local.sanitizeAuthored(html), html)
        assert.strictEqual(yield* workers.sanitizeModelOutput(html), yield* local.sanitizeModelOutput(html), html)
      }
      const answer = documents.slice(1).join("\n")
      const blocks = workers.modelOutputBlocks()
      const sent: Array<string> = []
      for (let at = 0; at < answer.length; at += 7) sent.push(...yield* blocks.push(answer.slice(at, at + 7)))
      const end = yield* blocks.end()
      assert.isFalse(end.diverged)
      assert.strictEqual([...sent, ...end.blocks].join(""), yield* local.sanitizeModelOutput(answer))
      assert.isAbove(sent.length, 0)
    }).pipe(Effect.provide(WorkerHtmlSanitizer.layer())))

  it.effect("the element and length limits hold on the workers too", () =>
    Effect.gen(function*() {
      const workers = yield* HtmlSanitizer
      const many = yield* Effect.flip(workers.sanitizeAuthored("<p>x</p>".repeat(11)))
      assert.deepInclude(many, { _tag: "HtmlTooComplex", reason: "elements" })
      const long = yield* Effect.flip(workers.sanitizeAuthored("&".repeat(61)))
      assert.deepInclude(long, { _tag: "HtmlTooLong", limit: 300 })
    }).pipe(Effect.provide(WorkerHtmlSanitizer.layer({ limits: { maxElements: 10, maxLength: 300 } }))))

  it.effect("a document past the time budget is refused as too complex, its worker replaced: the next one is sanitized", () =>
    Effect.gen(function*() {
      const workers = yield* HtmlSanitizer
      const refused = yield* Effect.flip(workers.sanitizeAuthored(slowDocument))
      assert.deepInclude(refused, { _tag: "HtmlTooComplex", reason: "time" })
      assert.strictEqual(refused.message, "Sanitizing the HTML took longer than 80ms; it is too complex.")
      assert.strictEqual(yield* workers.sanitizeAuthored("<p>after</p>"), "<p>after</p>")
    }).pipe(Effect.provide(WorkerHtmlSanitizer.layer({
      // Well under the document's few hundred milliseconds, and time for the next answer to
      // come back on a loaded machine.
      timeBudget: Duration.millis(80),
      limits: roomyLimits
    }))))

  it.effect("a document that fills a worker's heap is refused as too complex, and the pool goes on", () =>
    Effect.gen(function*() {
      const workers = yield* HtmlSanitizer
      const refused = yield* Effect.flip(workers.sanitizeAuthored("<b><p>x".repeat(400_000)))
      assert.deepInclude(refused, { _tag: "HtmlTooComplex", reason: "memory" })
      assert.strictEqual(yield* workers.sanitizeAuthored("<p>after</p>"), "<p>after</p>")
    }).pipe(Effect.provide(WorkerHtmlSanitizer.layer({
      maxHeapMb: 16,
      timeBudget: Duration.seconds(30),
      limits: { maxElements: 100_000_000, maxLength: 1_000_000_000 }
    }))), 60_000)

  it.live("a full queue is refused at once (SanitizerOverloaded) while the queued work still finishes", () =>
    Effect.gen(function*() {
      const workers = yield* HtmlSanitizer
      const busy = yield* Effect.forkChild(workers.sanitizeAuthored(slowDocument))
      const queued = yield* Effect.forkChild(workers.sanitizeAuthored("<p>queued</p>"))
      yield* Effect.sleep(Duration.millis(50))
      const refused = yield* Effect.flip(workers.sanitizeAuthored("<p>one too many</p>"))
      assert.strictEqual(refused._tag, "SanitizerOverloaded")
      assert.isTrue(Exit.isSuccess(yield* Fiber.await(busy)))
      assert.strictEqual(yield* Fiber.join(queued), "<p>queued</p>")
    }).pipe(Effect.provide(WorkerHtmlSanitizer.layer({ workers: 1, maxQueue: 1, limits: roomyLimits }))))

  it.effect("while a worker sanitizes a slow document, this thread spends little CPU on it and its event loop keeps turning", () =>
    Effect.gen(function*() {
      const local = yield* Effect.provide(Effect.gen(function*() {
        return yield* HtmlSanitizer
      }), HtmlSanitizer.layerWith(defaultAllowList, roomyLimits))
      const workers = yield* HtmlSanitizer
      // Warm both so that start-up is not measured.
      yield* local.sanitizeAuthored("<p>warm</p>")
      yield* workers.sanitizeAuthored("<p>warm</p>")
      const cpuHere = process.threadCpuUsage()
      yield* local.sanitizeAuthored(slowDocument)
      const costHere = cpuMillisSince(cpuHere)

      const delay = monitorEventLoopDelay({ resolution: 5 })
      delay.enable()
      const started = performance.now()
      const cpu = process.threadCpuUsage()
      yield* workers.sanitizeAuthored(slowDocument)
      const cost = cpuMillisSince(cpu)
      const took = performance.now() - started
      delay.disable()
      // CPU time is this thread's own, which other processes' load does not add to: sending
      // the document and reading the answer, a small share of sanitizing it here.
      assert.isAbove(costHere, 50)
      assert.isBelow(cost, costHere / 4, `${cost} ms of this thread's CPU, ${costHere} ms sanitizing here`)
      // Waiting on the worker synchronously would cost no CPU but hold the loop for nearly
      // the whole call; a loaded machine's stalls are shorter than most of it.
      assert.isBelow(delay.max / 1e6, took * 0.75, `longest loop delay ${delay.max / 1e6} ms of ${took} ms`)
    }).pipe(Effect.provide(WorkerHtmlSanitizer.layer({
      // The loop is what is measured: a machine loaded by other suites may take the document past the default 2 s.
      timeBudget: Duration.seconds(30),
      limits: roomyLimits
    }))))
})

/** Milliseconds of this thread's CPU time, user and system, since `start`. */
const cpuMillisSince = (start: NodeJS.CpuUsage): number => {
  const { user, system } = process.threadCpuUsage(start)
  return (user + system) / 1000
}

describe("WorkerPool", () => {
  const echoWorker = new URL("./fixtures/busyWorker.mjs", import.meta.url)
  const pool = (overrides: Partial<ConstructorParameters<typeof WorkerPool>[0]> = {}) =>
    new WorkerPool({ file: echoWorker, workerData: null, workers: 1, maxQueue: 1, budgetMs: 1_000, idleMs: 100, maxHeapMb: 64, ...overrides })

  it("the budget counts from when a worker takes the task, not from the call: a task queued behind a long one is not refused", async () => {
    // 400 ms to spare for each answer to come back, as a loaded machine may need; counted
    // from the call, the second task would be 1000 ms old.
    const workers = pool({ budgetMs: 900 })
    const never = new AbortController().signal
    const first = workers.run({ ms: 500 }, never)
    const second = workers.run({ ms: 500 }, never)
    assert.deepStrictEqual(await Promise.all([first, second]), [500, 500])
    const late = await workers.run({ ms: 1_500 }, never).catch((error) => error)
    assert.instanceOf(late, BudgetExceeded)
    await workers.close()
  })

  it("a queued task whose caller gives up leaves the queue; one more than the queue holds is refused", async () => {
    const workers = pool()
    const never = new AbortController().signal
    const running = workers.run({ ms: 200 }, never)
    const giveUp = new AbortController()
    const abandoned = workers.run({ ms: 10 }, giveUp.signal).catch((error) => error)
    const refused = await workers.run({ ms: 10 }, never).catch((error) => error)
    assert.instanceOf(refused, PoolFull)
    giveUp.abort()
    assert.strictEqual(((await abandoned) as Error).message, "the caller gave up")
    // Its place is free again.
    assert.strictEqual(await workers.run({ ms: 10 }, never), 10)
    assert.strictEqual(await running, 200)
    await workers.close()
  })

  it("a worker that cannot start fails the tasks waiting for it at once, instead of being started again and again", async () => {
    const workers = pool({ file: new URL("./fixtures/exitingWorker.mjs", import.meta.url), workers: 2, maxQueue: 4 })
    const never = new AbortController().signal
    const started = performance.now()
    const outcomes = await Promise.all([1, 2, 3].map((ms) => workers.run({ ms }, never).catch((error) => error)))
    for (const outcome of outcomes) {
      assert.instanceOf(outcome, WorkerFailed)
      assert.match((outcome as Error).message, /^no worker could start: the worker exited \(1\)$/)
    }
    assert.isBelow(performance.now() - started, 5_000)
    // Nothing is left starting in a loop.
    await new Promise((resolve) => setTimeout(resolve, 300))
    assert.strictEqual(workers.size, 0)
    await workers.close()
  })

  it("an idle worker ends after idleMs, and a new one starts for the next task", async () => {
    const workers = pool({ idleMs: 50 })
    const never = new AbortController().signal
    assert.strictEqual(await workers.run({ ms: 1 }, never), 1)
    assert.strictEqual(workers.size, 1)
    await new Promise((resolve) => setTimeout(resolve, 300))
    assert.strictEqual(workers.size, 0)
    assert.strictEqual(await workers.run({ ms: 1 }, never), 1)
    await workers.close()
  })
})

// The allow-list crosses to the workers by structured clone: its regular expressions too.
it.effect("WorkerHtmlSanitizer: a merged allow-list's embed provider (regular expressions) reaches the workers", () =>
  Effect.gen(function*() {
    const workers = yield* HtmlSanitizer
    assert.strictEqual(
      yield* workers.sanitizeAuthored("<iframe src=\"https://videos.example.org/player/intro?t=5&x=1\"></iframe>"),
      "<iframe src=\"https://videos.example.org/player/intro?t=5\" sandbox=\"allow-scripts\" allow=\"fullscreen\" allowfullscreen=\"\" referrerpolicy=\"strict-origin-when-cross-origin\" loading=\"lazy\"></iframe>"
    )
  }).pipe(Effect.provide(Layer.fresh(WorkerHtmlSanitizer.layer({
    allowList: {
      ...defaultAllowList,
      embeds: {
        lessons: { reason: "Ours.", hosts: ["videos.example.org"], path: /\/player\/[a-z]{1,20}/, query: { t: /[0-9]{1,5}/ }, sandbox: ["allow-scripts"], allow: ["fullscreen"] }
      }
    }
  })))))
