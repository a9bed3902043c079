/**
 * What the "Generate with AI" panel shows of one generation, folded from the server's
 * events: the sanitized blocks as they arrive (`html`), each model's try (`attempt`), who
 * wrote the answer (`done`), and how it ended — done, stopped by the author, or failed
 * with the `error` event's message, the blocks that arrived kept in every case.
 */
import type { GenerationEvent } from "@coursekit/client"

/** One model's try, as the `attempt` event and `done` carry it. */
export type Attempt = Extract<GenerationEvent, { readonly event: "attempt" }>["data"]

export type GenerationPhase = "idle" | "generating" | "done" | "stopped" | "failed"

export interface GenerationView {
  readonly phase: GenerationPhase
  /** The `html` events' blocks, in order: together, the answer so far. */
  readonly blocks: ReadonlyArray<string>
  readonly attempts: ReadonlyArray<Attempt>
  /** The model that wrote the answer (from `done`). */
  readonly writer: { readonly provider: string; readonly model: string } | undefined
  /** The failure's message (the `error` event's problem detail). */
  readonly error: string | undefined
}

export const idle: GenerationView = { phase: "idle", blocks: [], attempts: [], writer: undefined, error: undefined }

export const generating: GenerationView = { ...idle, phase: "generating" }

/** The view after one more event. */
export const withEvent = (view: GenerationView, event: GenerationEvent): GenerationView => {
  switch (event.event) {
    case "html":
      return { ...view, blocks: [...view.blocks, event.data.html] }
    case "attempt":
      return { ...view, attempts: [...view.attempts, event.data] }
    case "done":
      // `done` lists every attempt; its html is the blocks joined, which the view has.
      return {
        ...view,
        phase: "done",
        attempts: event.data.attempts,
        writer: { provider: event.data.provider, model: event.data.model }
      }
  }
}

/** The author pressed Stop: what arrived stays. */
export const stopped = (view: GenerationView): GenerationView => view.phase === "generating" ? { ...view, phase: "stopped" } : view

/** The generation failed with `message`; `attempts`, when the problem lists them, replace the ones seen. */
export const failed = (view: GenerationView, message: string, attempts?: ReadonlyArray<Attempt>): GenerationView => ({
  ...view,
  phase: "failed",
  error: message,
  attempts: attempts ?? view.attempts
})

/** The answer so far, as one HTML fragment. */
export const htmlOf = (view: GenerationView): string => view.blocks.join("")

/** What the attempts cost in all, in US dollars; undefined when none was priced. */
export const costOf = (attempts: ReadonlyArray<Attempt>): number | undefined => {
  const priced = attempts.flatMap((attempt) => attempt.cost_usd === null ? [] : [attempt.cost_usd])
  return priced.length === 0 ? undefined : priced.reduce((sum, cost) => sum + cost, 0)
}

const dollars = new Intl.NumberFormat("en-US", { style: "currency", currency: "USD", maximumSignificantDigits: 3 })

/** "$0.0000075"; "not priced" when no attempt had a price. */
export const costText = (attempts: ReadonlyArray<Attempt>): string => {
  const cost = costOf(attempts)
  return cost === undefined ? "not priced" : dollars.format(cost)
}

/** One attempt in words: "openai gpt-4o-mini: server error, the provider answered HTTP 500 (212 ms, $0.0000075)". */
export const attemptText = (attempt: Attempt): string => {
  const outcome = attempt.outcome.replaceAll("_", " ")
  const detail = attempt.detail === undefined || attempt.detail === "" ? "" : `, ${attempt.detail}`
  const cost = attempt.cost_usd === null ? "" : `, ${dollars.format(attempt.cost_usd)}`
  return `${attempt.provider} ${attempt.model}: ${outcome}${detail} (${attempt.duration_ms} ms${cost})`
}

/** The status line's words. */
export const phaseText = (view: GenerationView): string => {
  switch (view.phase) {
    case "idle":
      return ""
    case "generating":
      return view.blocks.length === 0 ? "Generating…" : `Generating… ${blockCount(view.blocks.length)} so far`
    case "done":
      return `Done: ${blockCount(view.blocks.length)}.`
    case "stopped":
      return `Stopped: ${blockCount(view.blocks.length)} kept.`
    case "failed":
      return view.blocks.length === 0 ? "Failed." : `Failed: ${blockCount(view.blocks.length)} kept.`
  }
}

const blockCount = (count: number) => count === 1 ? "1 block" : `${count} blocks`
