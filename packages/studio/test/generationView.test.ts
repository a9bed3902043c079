import { describe, expect, it } from "vitest"
import {
  type Attempt,
  attemptText,
  costOf,
  costText,
  failed,
  generating,
  htmlOf,
  idle,
  phaseText,
  stopped,
  withEvent
} from "../src/features/ai/generationView.ts"

const failure: Attempt = {
  provider: "openai",
  model: "gpt-4o-mini",
  outcome: "server_error",
  duration_ms: 212,
  detail: "the provider answered HTTP 500",
  usage: null,
  cost_usd: null
}
const success: Attempt = {
  provider: "google",
  model: "gemini-2.5-flash",
  outcome: "success",
  duration_ms: 3810,
  usage: { input_tokens: 1184, output_tokens: 1630 },
  cost_usd: 0.0044307
}

describe("what the Generate with AI panel shows of a generation", () => {
  it("folds the events: blocks in order, attempts as they end, the writer and every attempt from done", () => {
    const events = [
      { event: "attempt", data: failure },
      { event: "html", data: { html: "<h2>Ownership</h2>" } },
      { event: "html", data: { html: "<p>One owner.</p>" } },
      { event: "attempt", data: success }
    ] as const
    const streaming = events.reduce(withEvent, generating)
    expect(streaming).toMatchObject({ phase: "generating", blocks: ["<h2>Ownership</h2>", "<p>One owner.</p>"], attempts: [failure, success], writer: undefined })
    expect(phaseText(streaming)).toBe("Generating… 2 blocks so far")
    const done = withEvent(streaming, {
      event: "done",
      data: { html: "<h2>Ownership</h2><p>One owner.</p>", provider: "google", model: "gemini-2.5-flash", attempts: [failure, success] }
    })
    expect(done).toMatchObject({ phase: "done", writer: { provider: "google", model: "gemini-2.5-flash" }, attempts: [failure, success] })
    expect(htmlOf(done)).toBe("<h2>Ownership</h2><p>One owner.</p>")
    expect(phaseText(done)).toBe("Done: 2 blocks.")
  })

  it("keeps what arrived when stopped or failed; a failure's attempts replace the ones seen when it lists them", () => {
    const partial = withEvent(generating, { event: "html", data: { html: "<p>Half.</p>" } })
    expect(stopped(partial)).toMatchObject({ phase: "stopped", blocks: ["<p>Half.</p>"] })
    expect(phaseText(stopped(partial))).toBe("Stopped: 1 block kept.")
    // Stop after the end changes nothing.
    expect(stopped(idle)).toBe(idle)
    const broken = failed(partial, "The answer is incomplete.", [failure])
    expect(broken).toMatchObject({ phase: "failed", blocks: ["<p>Half.</p>"], error: "The answer is incomplete.", attempts: [failure] })
    expect(phaseText(broken)).toBe("Failed: 1 block kept.")
    expect(failed(withEvent(generating, { event: "attempt", data: failure }), "No answer").attempts).toEqual([failure])
    expect(phaseText(failed(generating, "No answer"))).toBe("Failed.")
  })

  it("adds up the priced attempts and says so when none was priced", () => {
    expect(costOf([failure, success])).toBe(0.0044307)
    expect(costText([failure, success])).toBe("$0.00443")
    expect(costText([{ ...success, cost_usd: 0.0000075 }, { ...success, cost_usd: 0.000028 }])).toBe("$0.0000355")
    expect(costOf([failure])).toBeUndefined()
    expect(costText([failure])).toBe("not priced")
  })

  it("says each attempt in words", () => {
    expect(attemptText(failure)).toBe("openai gpt-4o-mini: server error, the provider answered HTTP 500 (212 ms)")
    expect(attemptText(success)).toBe("google gemini-2.5-flash: success (3810 ms, $0.00443)")
  })
})
