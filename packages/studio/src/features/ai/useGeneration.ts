/**
 * One generation at a time for a view: `generate(prompt)` streams `POST /admin/ai/generate`
 * through the typed client (`studioGeneration`) into a {@link GenerationView}; `stop()`
 * interrupts it, which aborts the request, so the server stops the model too. Leaving the
 * view stops it as well.
 */
import { GenerationStreamError } from "@coursekit/client"
import { Effect, Fiber, Stream } from "effect"
import { useEffect, useRef, useState } from "react"
import { studioGeneration } from "../../app/studioClient.ts"
import { failed, generating, type GenerationView, idle, stopped, withEvent } from "./generationView.ts"

/** One run: its fiber, once forked. A run is current while `running` holds it. */
interface Run {
  fiber: Fiber.Fiber<void> | undefined
}

export const useGeneration = () => {
  const [view, setView] = useState<GenerationView>(idle)
  const running = useRef<Run | undefined>(undefined)
  const interrupt = () => {
    const run = running.current
    running.current = undefined
    if (run?.fiber !== undefined) Effect.runFork(Fiber.interrupt(run.fiber))
    return run !== undefined
  }
  const stop = () => {
    if (interrupt()) setView(stopped)
  }
  const generate = (prompt: string) => {
    interrupt()
    setView(generating)
    const run: Run = { fiber: undefined }
    running.current = run
    // Only the current run's events count: a stopped run's late ones are dropped.
    const current = () => running.current === run
    run.fiber = Effect.runFork(
      studioGeneration({ prompt }).pipe(
        Stream.runForEach((event) => Effect.sync(() => current() && setView((view) => withEvent(view, event)))),
        Effect.catch((error) =>
          Effect.sync(() => {
            if (!current()) return
            const message = error instanceof GenerationStreamError ? error.message : String(error)
            setView((view) => failed(view, message, error instanceof GenerationStreamError ? error.problem.attempts : undefined))
          })
        ),
        Effect.ensuring(Effect.sync(() => {
          if (current()) running.current = undefined
        }))
      )
    )
  }
  // Leaving the editor stops the generation (and the model's work on the server).
  useEffect(() => () => void interrupt(), [])
  return { view, generate, stop }
}
