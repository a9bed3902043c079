/**
 * A small pool of worker processes for CPU-bound tasks that must not run on the event
 * loop, with the three bounds a hostile input needs: a bounded queue (a task past it is
 * refused at once, never held in memory), a time budget per task that starts when a
 * worker takes it (past it the worker is killed: synchronous work cannot be stopped any
 * other way), and a heap limit per worker. Idle workers end after `idleMs`, so the
 * memory a large task took is returned. A task whose caller gave up (its signal aborted)
 * leaves the queue, or ends its worker if it was running.
 *
 * Processes, not threads: a worker thread's memory stays in the server process after the
 * thread ends (glibc keeps the thread's malloc arenas; Node never trims them), measured
 * at +170 MiB kept after the probe's documents; a process that exits returns all of it.
 * Written here rather than taken from a pool library because the budget must count from
 * the start of the work, not from the call: a task waiting behind others is not a task
 * that took too long.
 */
import { type ChildProcess, fork } from "node:child_process"

/** The queue is full. */
export class PoolFull extends Error {}

/** The task ran past its budget; its worker was terminated. */
export class BudgetExceeded extends Error {}

/** The worker ran out of heap (`maxHeapMb`); it ended. */
export class OutOfMemory extends Error {}

/** The task's caller gave up. */
export class Abandoned extends Error {}

/** The worker failed in a way the task did not answer (a bug, a crash). */
export class WorkerFailed extends Error {}

export interface WorkerPoolOptions {
  /** The worker's module: it gets `workerData` as its first message, then tasks. */
  readonly file: URL
  readonly workerData: unknown
  /** Most workers at once. */
  readonly workers: number
  readonly maxQueue: number
  readonly budgetMs: number
  readonly idleMs: number
  /** Heap (old generation) one worker may fill, in MiB. */
  readonly maxHeapMb: number
}

/** `--inspect`, `--inspect-brk=…`, `--inspect-port`, `--debug…`. */
const debuggerFlag = /^--(inspect|debug)/
const loaderFlag = /^--(import|require|loader|experimental-loader)$/
const tsxModule = /^tsx(\/|$)/

/**
 * A worker's Node flags: this process's (export conditions, a host's `--require`), so that
 * the worker resolves its module as this one does — but not a debugger's, whose port this
 * process holds, and not tsx: Node ≥ 22.18 strips the types of the sources itself, and
 * tsx's hooks made the workers a third slower (measured).
 */
const workerFlags = (flags: ReadonlyArray<string>): Array<string> => {
  const native = (process.features as { readonly typescript?: string | false }).typescript !== undefined &&
    (process.features as { readonly typescript?: string | false }).typescript !== false
  const kept: Array<string> = []
  for (let index = 0; index < flags.length; index++) {
    const flag = flags[index]!
    if (debuggerFlag.test(flag)) continue
    const [name, inline] = flag.split("=", 2) as [string, string | undefined]
    if (native && loaderFlag.test(name)) {
      const value = inline ?? flags[index + 1]
      if (value !== undefined && tsxModule.test(value)) {
        if (inline === undefined) index++
        continue
      }
    }
    kept.push(flag)
  }
  return kept
}

interface Job {
  readonly task: unknown
  readonly resolve: (value: unknown) => void
  readonly reject: (error: Error) => void
  readonly signal: AbortSignal
  onAbort?: () => void
}

interface Slot {
  readonly worker: ChildProcess
  ready: boolean
  job: Job | undefined
  timer: ReturnType<typeof setTimeout> | undefined
  idleTimer: ReturnType<typeof setTimeout> | undefined
}

export class WorkerPool {
  private readonly options: WorkerPoolOptions
  private readonly slots = new Set<Slot>()
  private readonly queue: Array<Job> = []
  private nextId = 0
  private closed = false

  constructor(options: WorkerPoolOptions) {
    this.options = options
  }

  /** Runs `task` on a worker; rejects with one of the errors above. */
  run(task: unknown, signal: AbortSignal): Promise<unknown> {
    return new Promise((resolve, reject) => {
      if (this.closed) return reject(new Abandoned("the pool is closed"))
      if (signal.aborted) return reject(new Abandoned("the caller gave up"))
      const job: Job = { task, resolve, reject, signal }
      const slot = this.idleSlot()
      if (slot !== undefined) return this.start(slot, job)
      // Tasks a starting worker will take do not count against the queue.
      const spawning = this.slots.size < this.options.workers && this.loading() <= this.queue.length
      if (!spawning && this.queue.length - this.loading() >= this.options.maxQueue) return reject(new PoolFull("the queue is full"))
      this.queue.push(job)
      job.onAbort = () => {
        const index = this.queue.indexOf(job)
        if (index !== -1) this.queue.splice(index, 1)
        reject(new Abandoned("the caller gave up"))
      }
      signal.addEventListener("abort", job.onAbort, { once: true })
      // A new worker takes a queued task once it has loaded (the budget starts then).
      if (spawning) this.spawn()
    })
  }

  /** Workers alive now (for tests and the idle check). */
  get size(): number {
    return this.slots.size
  }

  /** Ends every worker; queued and running tasks are refused. */
  async close(): Promise<void> {
    this.closed = true
    for (const job of this.queue.splice(0)) this.settle(job, new Abandoned("the pool is closed"))
    await Promise.all([...this.slots].map((slot) => this.remove(slot, new Abandoned("the pool is closed"))))
  }

  private idleSlot(): Slot | undefined {
    for (const slot of this.slots) if (slot.ready && slot.job === undefined) return slot
    return undefined
  }

  private loading(): number {
    let count = 0
    for (const slot of this.slots) if (!slot.ready) count++
    return count
  }

  private spawn(): void {
    // Structured clone on the channel, as between threads.
    const worker = fork(this.options.file, [], {
      execArgv: [...workerFlags(process.execArgv), `--max-old-space-size=${this.options.maxHeapMb}`],
      serialization: "advanced",
      stdio: ["ignore", "inherit", "inherit", "ipc"]
    })
    const slot: Slot = { worker, ready: false, job: undefined, timer: undefined, idleTimer: undefined }
    this.slots.add(slot)
    worker.send({ workerData: this.options.workerData })
    worker.on("message", (message: { readonly ready?: true; readonly id?: number; readonly result?: unknown; readonly failure?: string }) => {
      if (message.ready === true) {
        slot.ready = true
        return this.next(slot)
      }
      const job = slot.job
      if (job === undefined) return
      clearTimeout(slot.timer)
      slot.job = undefined
      if (message.failure !== undefined) this.settle(job, new WorkerFailed(message.failure))
      else this.settle(job, undefined, message.result)
      this.next(slot)
    })
    worker.on("error", (error) => {
      void this.remove(slot, new WorkerFailed(error.message))
    })
    // V8 aborts a process whose heap is full (SIGABRT); anything else is a crash.
    worker.on("exit", (code, signal) => {
      void this.remove(slot, signal === "SIGABRT" || code === 134 ? new OutOfMemory("the worker's heap was full") : new WorkerFailed(`the worker exited (${signal ?? code})`))
    })
  }

  /** Gives `slot` the next queued task, or lets it idle (and end after `idleMs`). */
  private next(slot: Slot): void {
    const job = this.queue.shift()
    if (job !== undefined) {
      if (job.onAbort !== undefined) job.signal.removeEventListener("abort", job.onAbort)
      return this.start(slot, job)
    }
    clearTimeout(slot.idleTimer)
    slot.idleTimer = setTimeout(() => {
      if (slot.job === undefined) void this.remove(slot, new Abandoned("idle"))
    }, this.options.idleMs)
    slot.idleTimer.unref()
  }

  private start(slot: Slot, job: Job): void {
    clearTimeout(slot.idleTimer)
    slot.job = job
    slot.timer = setTimeout(() => {
      void this.remove(slot, new BudgetExceeded(`the task took longer than ${this.options.budgetMs} ms`))
    }, this.options.budgetMs)
    job.onAbort = () => void this.remove(slot, new Abandoned("the caller gave up"))
    job.signal.addEventListener("abort", job.onAbort, { once: true })
    slot.worker.send({ id: this.nextId++, task: job.task })
  }

  private settle(job: Job, error: Error | undefined, value?: unknown): void {
    if (job.onAbort !== undefined) job.signal.removeEventListener("abort", job.onAbort)
    if (error === undefined) job.resolve(value)
    else job.reject(error)
  }

  /**
   * Ends `slot`'s worker; its task (if any) fails with `error`; a queued task gets a new
   * worker — unless this one ended before it was ready: one that cannot start (its module
   * missing, a bad flag) would not start on the next try either, so the tasks waiting for
   * it fail now rather than wait while workers are started in a loop; the next task tries
   * again.
   */
  private async remove(slot: Slot, error: Error): Promise<void> {
    if (!this.slots.delete(slot)) return
    clearTimeout(slot.timer)
    clearTimeout(slot.idleTimer)
    const job = slot.job
    slot.job = undefined
    if (job !== undefined) this.settle(job, error)
    if (!slot.ready && !this.closed) {
      let ready = false
      for (const other of this.slots) ready ||= other.ready
      if (!ready) for (const waiting of this.queue.splice(0)) this.settle(waiting, new WorkerFailed(`no worker could start: ${error.message}`))
    } else if (!this.closed && this.slots.size < this.options.workers && this.loading() < this.queue.length) this.spawn()
    if (slot.worker.exitCode !== null || slot.worker.signalCode !== null) return
    const exited = new Promise<void>((resolve) => slot.worker.once("exit", () => resolve()))
    slot.worker.kill("SIGKILL")
    await exited
  }
}
