/**
 * What a cooled-down primary costs: `ContentGenerator.generate` over a chain whose
 * primary (OpenAI adapter) is cooling down after a 500, so every call skips it and the
 * secondary (Gemini adapter) answers, next to a chain that holds the secondary alone (the
 * baseline, with in-process cool-downs), one call at a time, alternating which goes
 * first, in one run. Twice: with the cool-downs in the process (`ProviderCooldowns.layerMemory`,
 * PGlite and embedders) and in PostgreSQL (`PgProviderCooldowns`, shared by the instances:
 * one read of the chain's cool-downs per call, and the clear after the secondary's
 * success), on a database of its own on `BENCH_DATABASE_URL` (default the local
 * server), dropped at the end. Both models are loopback servers speaking each
 * provider's wire format (the adapters' `/testing` fakes) and the real SDKs call them;
 * the answer is a ~6 KB lesson, sanitized in both. Prints p50/p99 of each and the p99
 * difference per round (a p99 of one round moves with a GC pause or two), then the
 * median over the rounds. Target (issues #6, #13): < 5 ms added at p99.
 */
import { ContentGenerator, HtmlSanitizer, LlmChain, type LlmProvider, ProviderCooldowns } from "@coursekit/core"
import { modelScript, ModelAnswer } from "@coursekit/core/testing"
import { GeminiProvider } from "@coursekit/llm-gemini"
import { FakeGeminiServer } from "@coursekit/llm-gemini/testing"
import { OpenAiProvider } from "@coursekit/llm-openai"
import { FakeOpenAiServer } from "@coursekit/llm-openai/testing"
import { PgDatabase, PgProviderCooldowns } from "@coursekit/postgres"
import { Duration, Effect, Exit, Layer, ManagedRuntime, Redacted, Scope } from "effect"
import { freshDatabase, withDatabase } from "./measure.ts"

const serverUrl = process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres"
const database = `coursekit_bench_ai_${process.pid}`
const samples = Number(process.env.BENCH_SAMPLES ?? 5000)
const rounds = Number(process.env.BENCH_ROUNDS ?? 5)
const warmup = 300

const lesson = Array.from({ length: 24 }, (_, i) =>
  `<h3>Step ${i + 1}</h3><p class="text-lg">Ownership moves with assignment; <b>borrowing</b> does not. ` +
  `See <a href="https://doc.rust-lang.org/book/">the book</a>.</p><ul><li>one</li><li>two</li></ul>`).join("\n")

const scope = Effect.runSync(Scope.make())
const [primaryServer, secondaryServer] = await Effect.runPromise(
  Effect.all([
    FakeOpenAiServer.start({ script: modelScript(ModelAnswer.status(500)) }),
    FakeGeminiServer.start({ script: modelScript(ModelAnswer.text(`Here is your lesson:\n\`\`\`html\n${lesson}\n\`\`\``)) })
  ]).pipe(Scope.provide(scope))
)

const primary = OpenAiProvider.layer({ model: "gpt-bench", apiKey: Redacted.make("sk-bench"), baseUrl: primaryServer.baseUrl })
const secondary = GeminiProvider.layer({ model: "gemini-bench", apiKey: Redacted.make("bench"), baseUrl: secondaryServer.baseUrl })
const generator = (models: ReadonlyArray<Layer.Layer<LlmProvider>>, cooldowns: Layer.Layer<ProviderCooldowns, unknown>) =>
  ManagedRuntime.make(
    ContentGenerator.layerNoDeps({ cooldown: Duration.hours(1) }).pipe(
      Layer.provide([LlmChain.layer(models), HtmlSanitizer.layer, cooldowns])
    )
  )
const secondaryOnly = generator([secondary], ProviderCooldowns.layerMemory)

const dropDatabase = await freshDatabase(serverUrl, database)
const variants = [
  { name: "cool-downs in the process", runtime: generator([primary, secondary], ProviderCooldowns.layerMemory) },
  {
    name: "cool-downs in PostgreSQL",
    runtime: generator(
      [primary, secondary],
      PgProviderCooldowns.layer().pipe(Layer.provide(PgDatabase.layer({ url: Redacted.make(withDatabase(serverUrl, database)) })))
    )
  }
]

const run = (runtime: typeof secondaryOnly) =>
  runtime.runPromise(Effect.gen(function*() {
    const generator = yield* ContentGenerator
    return yield* generator.generate({ prompt: "A lesson on ownership" })
  }))

const percentile = (sorted: ReadonlyArray<number>, p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!

try {
  const time = async (runtime: typeof secondaryOnly, into: Array<number> | undefined) => {
    const start = performance.now()
    const content = await run(runtime)
    into?.push(performance.now() - start)
    if (content.provider !== "google") throw new Error("the secondary did not answer")
  }
  const measureRound = async (withCooledPrimary: typeof secondaryOnly) => {
    const skipping: Array<number> = []
    const direct: Array<number> = []
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
    direct.sort((a, b) => a - b)
    skipping.sort((a, b) => a - b)
    return { direct, skipping, added: percentile(skipping, 0.99) - percentile(direct, 0.99) }
  }

  console.log(`\nAI fallback past a cooled-down primary: ${rounds} rounds of ${samples} calls each, one at a time, real SDKs on loopback`)
  for (const [index, variant] of variants.entries()) {
    // The primary fails once (500) and is cooling down from then on.
    const first = await run(variant.runtime)
    if (first.provider !== "google" || primaryServer.script.received.length !== index + 1) throw new Error("the primary did not fail first")

    console.log(`\n${variant.name}\n`)
    console.log(`${"round".padEnd(8)}${"alone p50".padStart(11)}${"p99".padStart(8)}${"skip p50".padStart(11)}${"p99".padStart(8)}${"added p99".padStart(11)}`)
    const added: Array<number> = []
    for (let round = 1; round <= rounds; round++) {
      const result = await measureRound(variant.runtime)
      added.push(result.added)
      console.log(
        `${String(round).padEnd(8)}${percentile(result.direct, 0.5).toFixed(2).padStart(11)}${percentile(result.direct, 0.99).toFixed(2).padStart(8)}` +
          `${percentile(result.skipping, 0.5).toFixed(2).padStart(11)}${percentile(result.skipping, 0.99).toFixed(2).padStart(8)}${result.added.toFixed(2).padStart(11)}`
      )
    }
    // Every measured call skipped the primary without a request.
    if (primaryServer.script.received.length !== index + 1) throw new Error("the cooling primary received requests")
    added.sort((a, b) => a - b)
    const median = added[Math.floor(added.length / 2)]!
    console.log(`\nadded at p99 (ms): median of rounds ${median.toFixed(2)}, range ${added[0]!.toFixed(2)} … ${added.at(-1)!.toFixed(2)}`)
    console.log(`target: < 5 ms added at p99 (median of rounds): ${median < 5 ? "met" : "missed"}`)
  }
} finally {
  for (const variant of variants) await variant.runtime.dispose()
  await secondaryOnly.dispose()
  await Effect.runPromise(Scope.close(scope, Exit.void))
  await dropDatabase()
}
