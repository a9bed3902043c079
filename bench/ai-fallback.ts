/**
 * What a cooled-down primary costs: `ContentGenerator.generate` over a chain whose
 * primary (OpenAI adapter) is cooling down after a 500, so every call skips it and the
 * secondary (Gemini adapter) answers, next to a chain that holds the secondary alone (the
 * baseline), one call at a time, alternating which goes first, in one run. Both models
 * are loopback servers speaking each provider's wire format (the adapters' `/testing`
 * fakes) and the real SDKs call them; the answer is a ~6 KB lesson, sanitized in both.
 * Prints p50/p99 of each, the p99 difference and the ratio. Target (issue #6): < 5 ms
 * added at p99.
 */
import { ContentGenerator, HtmlSanitizer, LlmChain, type LlmProvider, makeModelScript, ModelAnswer } from "@coursekit/core"
import { GeminiProvider } from "@coursekit/llm-gemini"
import { FakeGeminiServer } from "@coursekit/llm-gemini/testing"
import { OpenAiProvider } from "@coursekit/llm-openai"
import { FakeOpenAiServer } from "@coursekit/llm-openai/testing"
import { Duration, Effect, Exit, Layer, ManagedRuntime, Redacted, Scope } from "effect"

const samples = Number(process.env.BENCH_SAMPLES ?? 3000)
const warmup = 300

const lesson = Array.from({ length: 24 }, (_, i) =>
  `<h3>Step ${i + 1}</h3><p class="text-lg">Ownership moves with assignment; <b>borrowing</b> does not. ` +
  `See <a href="https://doc.rust-lang.org/book/">the book</a>.</p><ul><li>one</li><li>two</li></ul>`).join("\n")

const scope = Effect.runSync(Scope.make())
const [primaryServer, secondaryServer] = await Effect.runPromise(
  Effect.all([
    FakeOpenAiServer.start({ script: makeModelScript(ModelAnswer.status(500)) }),
    FakeGeminiServer.start({ script: makeModelScript(ModelAnswer.text(`Here is your lesson:\n\`\`\`html\n${lesson}\n\`\`\``)) })
  ]).pipe(Scope.provide(scope))
)

const primary = OpenAiProvider.layer({ model: "gpt-bench", apiKey: Redacted.make("sk-bench"), baseUrl: primaryServer.baseUrl })
const secondary = GeminiProvider.layer({ model: "gemini-bench", apiKey: Redacted.make("bench"), baseUrl: secondaryServer.baseUrl })
const generator = (models: ReadonlyArray<Layer.Layer<LlmProvider>>) =>
  ManagedRuntime.make(
    ContentGenerator.layerNoDeps({ cooldown: Duration.hours(1) }).pipe(
      Layer.provide([LlmChain.layer(models), HtmlSanitizer.layer])
    )
  )
const withCooledPrimary = generator([primary, secondary])
const secondaryOnly = generator([secondary])

const run = (runtime: typeof secondaryOnly) =>
  runtime.runPromise(Effect.gen(function*() {
    const generator = yield* ContentGenerator
    return yield* generator.generate({ prompt: "A lesson on ownership" })
  }))

const percentile = (sorted: ReadonlyArray<number>, p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!

try {
  // The primary fails once (500) and is cooling down from then on.
  const first = await run(withCooledPrimary)
  if (first.provider !== "google" || primaryServer.script.received.length !== 1) throw new Error("the primary did not fail first")

  const skipping: Array<number> = []
  const direct: Array<number> = []
  const time = async (runtime: typeof secondaryOnly, into: Array<number> | undefined) => {
    const start = performance.now()
    const content = await run(runtime)
    into?.push(performance.now() - start)
    if (content.provider !== "google") throw new Error("the secondary did not answer")
  }
  for (let i = 0; i < warmup + samples; i++) {
    const measured = i >= warmup
    if (i % 2 === 0) {
      await time(secondaryOnly, measured ? direct : undefined)
      await time(withCooledPrimary, measured ? skipping : undefined)
    } else {
      await time(withCooledPrimary, measured ? skipping : undefined)
      await time(secondaryOnly, measured ? direct : undefined)
    }
  }
  // Every measured call skipped the primary without a request.
  if (primaryServer.script.received.length !== 1) throw new Error("the cooling primary received requests")

  direct.sort((a, b) => a - b)
  skipping.sort((a, b) => a - b)
  const row = (name: string, times: ReadonlyArray<number>) =>
    `${name.padEnd(40)}${percentile(times, 0.5).toFixed(2).padStart(8)}${percentile(times, 0.99).toFixed(2).padStart(8)}`
  const added = percentile(skipping, 0.99) - percentile(direct, 0.99)
  console.log(`\nAI fallback past a cooled-down primary: ${samples} calls each, one at a time, real SDKs on loopback\n`)
  console.log(`${"".padEnd(40)}${"p50 ms".padStart(8)}${"p99 ms".padStart(8)}`)
  console.log(row("secondary alone (baseline)", direct))
  console.log(row("primary cooling down, then secondary", skipping))
  console.log(
    `\nadded at p99: ${added.toFixed(2)} ms (p50 ${(percentile(skipping, 0.5) - percentile(direct, 0.5)).toFixed(2)} ms); ` +
      `p99 ratio ${(percentile(skipping, 0.99) / percentile(direct, 0.99)).toFixed(2)}×`
  )
  console.log(`target: < 5 ms added at p99: ${added < 5 ? "met" : "missed"}`)
} finally {
  await withCooledPrimary.dispose()
  await secondaryOnly.dispose()
  await Effect.runPromise(Scope.close(scope, Exit.void))
}
