import { assert, describe, it } from "@effect/vitest"
import { Context, Duration, Effect, Fiber, Layer, Logger, Stream } from "effect"
import { TestClock } from "effect/testing"
import {
  ContentGenerator,
  costOf,
  type GenerationEvent,
  HtmlSanitizer,
  LlmChain,
  type LlmChainStep,
  LlmProvider,
  type LlmFailureKind,
  LlmStreamPart,
  ProviderCooldowns
} from "../../src/index.ts"
import { ScriptedLlmProvider, ScriptedStep, type ScriptedStep as Step } from "../../src/testing/index.ts"

const fenced = "Sure! Here is your lesson:\n```html\n<h2>Ownership</h2><p style=\"color:red\" onclick=\"x()\">Each value has one owner.</p><p></p>\n```\nLet me know if you need more!"

/** A generator over `steps`, with the given cool-downs (default: its own, in memory). */
const generatorServiceOf = (
  steps: ReadonlyArray<Layer.Layer<LlmProvider> | LlmChainStep>,
  cooldowns: Layer.Layer<ProviderCooldowns> = ProviderCooldowns.layerMemory
) =>
  Effect.map(
    Layer.build(
      ContentGenerator.layerNoDeps({ timeout: Duration.seconds(30), cooldown: Duration.seconds(60) }).pipe(
        Layer.provide(LlmChain.layer(steps)),
        Layer.provide([HtmlSanitizer.layer, cooldowns])
      )
    ),
    (context) => Context.get(context, ContentGenerator)
  )

/** `generate` of a generator over `models`, with the given cool-downs. */
const generatorOf = (models: ReadonlyArray<LlmProvider["Service"]>, cooldowns?: Layer.Layer<ProviderCooldowns>) =>
  Effect.map(
    generatorServiceOf(models.map((model) => Layer.succeed(LlmProvider, model)), cooldowns),
    (service) => (prompt = "Write about ownership") => service.generate({ prompt })
  )

/** Two scripted models behind one generator; the test drives their scripts. */
const setUp = (primary: ReadonlyArray<Step>, secondary: ReadonlyArray<Step> = [ScriptedStep.text("<p>from the secondary</p>")]) =>
  Effect.gen(function*() {
    const a = yield* ScriptedLlmProvider.make({ provider: "openai", model: "primary-model", chunkSize: 7 }, primary)
    const b = yield* ScriptedLlmProvider.make({ provider: "google", model: "secondary-model" }, secondary)
    const service = yield* generatorServiceOf([
      // The primary has prices; the secondary has none.
      { model: Layer.succeed(LlmProvider, a.service), prices: { inputPerMillion: 0.15, outputPerMillion: 0.6 } },
      Layer.succeed(LlmProvider, b.service)
    ])
    const events = (prompt = "Write about ownership") => Stream.runCollect(service.stream({ prompt }))
    return { generate: (prompt = "Write about ownership") => service.generate({ prompt }), stream: service.stream, events, primary: a, secondary: b }
  })

/** Events in a short form: `html:…`, `attempt:provider:outcome`, `done:provider`. */
const brief = (events: ReadonlyArray<GenerationEvent>) =>
  events.map((event) =>
    event._tag === "Html" ? `html:${event.html}`
    : event._tag === "Attempt" ? `attempt:${event.attempt.provider}:${event.attempt.outcome}`
    : `done:${event.content.provider}`
  )

const lesson = "Here is the lesson:\n```html\n<h2>Ownership</h2><p>Each value has <b>one</b> owner.</p><ul><li>move</li></ul><p>Done.</p>\n```"

describe("ContentGenerator", () => {
  it.effect("the primary answers: fence, lead-in, sign-off, styles and empty paragraphs are gone", () =>
    Effect.gen(function*() {
      const { generate, primary, secondary } = yield* setUp([ScriptedStep.text(fenced)])
      const result = yield* generate()
      assert.strictEqual(result.html, "<h2>Ownership</h2><p>Each value has one owner.</p>")
      assert.deepStrictEqual([result.provider, result.model], ["openai", "primary-model"])
      assert.deepStrictEqual(result.attempts.map((attempt) => attempt.outcome), ["success"])
      assert.strictEqual(yield* secondary.calls, 0)
      const [request] = yield* primary.requests
      assert.strictEqual(request!.prompt, "Write about ownership")
      assert.include(request!.system, "details")
      assert.include(request!.system, "text-center")
      assert.include(request!.system, "font-bold")
      // Iframes only for the allow-list's video players.
      assert.include(request!.system, "player URL of www.youtube-nocookie.com or player.vimeo.com")
    }).pipe(Effect.scoped))

  for (const kind of ["rate_limited", "server_error", "network_error", "auth_error", "model_error", "bad_response"] as const satisfies ReadonlyArray<LlmFailureKind>) {
    it.effect(`the secondary takes over when the primary fails with ${kind}`, () =>
      Effect.gen(function*() {
        const { generate } = yield* setUp([ScriptedStep.fail(kind)])
        const result = yield* generate()
        assert.strictEqual(result.html, "<p>from the secondary</p>")
        assert.deepStrictEqual(result.attempts.map((attempt) => [attempt.provider, attempt.outcome]), [["openai", kind], ["google", "success"]])
      }).pipe(Effect.scoped))
  }

  it.effect("output that is empty after sanitization falls back", () =>
    Effect.gen(function*() {
      const { generate } = yield* setUp([ScriptedStep.text("Sure!\n```html\n<script>alert(1)</script><p> </p>\n```")])
      const result = yield* generate()
      assert.strictEqual(result.provider, "google")
      assert.deepStrictEqual(result.attempts.map((attempt) => attempt.outcome), ["empty_output", "success"])
    }).pipe(Effect.scoped))

  it.effect("a primary that hangs is abandoned at the deadline and the secondary answers", () =>
    Effect.gen(function*() {
      const { generate } = yield* setUp([ScriptedStep.hang])
      const fiber = yield* Effect.forkChild(generate())
      yield* TestClock.adjust(Duration.seconds(29))
      assert.isUndefined(fiber.pollUnsafe())
      yield* TestClock.adjust(Duration.seconds(1))
      const result = yield* Fiber.join(fiber)
      assert.deepStrictEqual(result.attempts.map((attempt) => [attempt.outcome, attempt.duration_ms]), [["timeout", 30_000], ["success", 0]])
    }).pipe(Effect.scoped))

  it.effect("after a 429 with Retry-After the primary is skipped until then; then it is asked again", () =>
    Effect.gen(function*() {
      const { generate, primary } = yield* setUp([ScriptedStep.fail("rate_limited", { status: 429, retryAfterMillis: 10_000 }), ScriptedStep.text("<p>primary is back</p>")])
      yield* generate()
      assert.strictEqual(yield* primary.calls, 1)
      const skipped = yield* generate()
      assert.strictEqual(yield* primary.calls, 1, "the cooling primary received no request")
      assert.deepStrictEqual(skipped.attempts.map((attempt) => [attempt.outcome, attempt.duration_ms]), [["cooling_down", 0], ["success", 0]])
      yield* TestClock.adjust(Duration.seconds(10))
      const back = yield* generate()
      assert.strictEqual(back.html, "<p>primary is back</p>")
      assert.strictEqual(yield* primary.calls, 2)
    }).pipe(Effect.scoped))

  it.effect("5xx and time-outs without Retry-After cool down for the default; auth and model errors do not", () =>
    Effect.gen(function*() {
      const serverError = yield* setUp([ScriptedStep.fail("server_error", { status: 500 })])
      yield* serverError.generate()
      yield* TestClock.adjust(Duration.seconds(59))
      yield* serverError.generate()
      assert.strictEqual(yield* serverError.primary.calls, 1)
      yield* TestClock.adjust(Duration.seconds(1))
      yield* serverError.generate()
      assert.strictEqual(yield* serverError.primary.calls, 2)
      const auth = yield* setUp([ScriptedStep.fail("auth_error", { status: 401 })])
      yield* auth.generate()
      yield* auth.generate()
      assert.strictEqual(yield* auth.primary.calls, 2)
    }).pipe(Effect.scoped))

  it.effect("every model failing is GenerationFailed with every attempt", () =>
    Effect.gen(function*() {
      const { generate } = yield* setUp([ScriptedStep.fail("server_error", { status: 503 })], [ScriptedStep.fail("rate_limited", { status: 429 })])
      const failed = yield* Effect.flip(generate())
      assert.strictEqual(failed._tag, "GenerationFailed")
      if (failed._tag !== "GenerationFailed") return
      assert.deepStrictEqual(failed.attempts.map((attempt) => [attempt.provider, attempt.model, attempt.outcome]), [
        ["openai", "primary-model", "server_error"],
        ["google", "secondary-model", "rate_limited"]
      ])
      // Both cool down now: the next call asks neither.
      const again = yield* Effect.flip(generate())
      assert.deepStrictEqual(again._tag === "GenerationFailed" ? again.attempts.map((attempt) => attempt.outcome) : [], ["cooling_down", "cooling_down"])
    }).pipe(Effect.scoped))

  it.effect("every attempt carries the usage the provider reported and its cost at the step's prices", () =>
    Effect.gen(function*() {
      const { generate } = yield* setUp(
        [ScriptedStep.text("Sure!\n```html\n<script>x</script>\n```", { input_tokens: 1_000, output_tokens: 2_000 })],
        [ScriptedStep.text("<p>fine</p>", { input_tokens: 900, output_tokens: null })]
      )
      const result = yield* generate()
      assert.deepStrictEqual(result.attempts.map(({ outcome, usage, cost_usd }) => ({ outcome, usage, cost_usd })), [
        // (1000 × 0.15 + 2000 × 0.6) / 1e6 USD; an empty output still cost tokens.
        { outcome: "empty_output", usage: { input_tokens: 1_000, output_tokens: 2_000 }, cost_usd: 0.00135 },
        // No prices for the secondary, and one count missing: no cost.
        { outcome: "success", usage: { input_tokens: 900, output_tokens: null }, cost_usd: null }
      ])
    }).pipe(Effect.scoped))

  it.effect("a failed or skipped attempt has no usage and no cost", () =>
    Effect.gen(function*() {
      const { generate } = yield* setUp([ScriptedStep.fail("server_error", { status: 500 })])
      yield* generate()
      const result = yield* generate()
      assert.deepStrictEqual(result.attempts.map(({ outcome, usage, cost_usd }) => [outcome, usage, cost_usd]), [
        ["cooling_down", null, null],
        ["success", null, null]
      ])
    }).pipe(Effect.scoped))

  it.effect("each generation is logged once with every attempt's usage and cost, and the totals — also a failed one and a stream the reader left", () =>
    Effect.gen(function*() {
      const lines: Array<ReadonlyArray<unknown>> = []
      const collect = Logger.layer([Logger.make((options) => {
        const message = options.message as ReadonlyArray<unknown>
        if (message[0] === "language model generation") lines.push(message)
      })])
      const { generate, stream } = yield* setUp(
        [ScriptedStep.fail("server_error", { status: 500 }), ScriptedStep.hangAfter("<p>a</p><p>b</p><p>c"), ScriptedStep.text("<script>x</script>", { input_tokens: 100, output_tokens: 50 })],
        [ScriptedStep.text("<p>fine</p>", { input_tokens: 900, output_tokens: 300 }), ScriptedStep.fail("auth_error")]
      )
      yield* generate().pipe(Effect.provide(collect))
      assert.deepStrictEqual(lines[0]![1], {
        outcome: "success",
        attempts: [
          { provider: "openai", model: "primary-model", outcome: "server_error", duration_ms: 0, usage: null, cost_usd: null },
          { provider: "google", model: "secondary-model", outcome: "success", duration_ms: 0, usage: { input_tokens: 900, output_tokens: 300 }, cost_usd: null }
        ],
        input_tokens: 900,
        output_tokens: 300,
        cost_usd: null
      })
      // The primary cools down for 60 s; then it streams, and the reader leaves after the first block.
      yield* TestClock.adjust(Duration.seconds(60))
      yield* stream({ prompt: "x" }).pipe(Stream.take(1), Stream.runDrain, Effect.provide(collect))
      assert.strictEqual(lines.length, 2)
      assert.deepStrictEqual(lines[1]![1], { outcome: "interrupted", attempts: [], input_tokens: null, output_tokens: null, cost_usd: null })
      yield* Effect.flip(generate()).pipe(Effect.provide(collect))
      assert.deepInclude(lines[2]![1] as object, { outcome: "failed", input_tokens: 100, output_tokens: 50, cost_usd: 0.000045 })
    }).pipe(Effect.scoped))

  it("costOf prices both counts, rounds to a billionth of a dollar, and is null without prices or a count", () => {
    const prices = { inputPerMillion: 2.5, outputPerMillion: 10 }
    assert.strictEqual(costOf({ input_tokens: 1234, output_tokens: 5678 }, prices), 0.059865)
    assert.strictEqual(costOf({ input_tokens: 1, output_tokens: 0 }, { inputPerMillion: 0.1, outputPerMillion: 0 }), 1e-7)
    assert.strictEqual(costOf({ input_tokens: 3, output_tokens: 0 }, { inputPerMillion: 0.1, outputPerMillion: 0 }), 3e-7)
    assert.isNull(costOf(null, prices))
    assert.isNull(costOf({ input_tokens: 1, output_tokens: null }, prices))
    assert.isNull(costOf({ input_tokens: 1, output_tokens: 1 }, undefined))
  })
  it.effect("a cool-down belongs to the model, not to its step: a generator sharing the cool-downs skips it wherever it is in its chain", () =>
    Effect.gen(function*() {
      const shared = Layer.succeed(ProviderCooldowns, yield* Effect.provide(Effect.service(ProviderCooldowns), ProviderCooldowns.layerMemory))
      const limited = yield* ScriptedLlmProvider.make({ provider: "openai", model: "gpt" }, [ScriptedStep.fail("rate_limited", { status: 429, retryAfterMillis: 10_000 })])
      const sameModel = yield* ScriptedLlmProvider.make({ provider: "openai", model: "gpt" }, [ScriptedStep.text("<p>gpt</p>")])
      const elsewhere = yield* ScriptedLlmProvider.make({ provider: "openai", model: "gpt", endpoint: "https://gateway.example/v1" }, [ScriptedStep.text("<p>gpt elsewhere</p>")])
      const other = yield* ScriptedLlmProvider.make({ provider: "google", model: "gemini" }, [ScriptedStep.text("<p>gemini</p>")])
      const first = yield* generatorOf([limited.service, other.service], shared)
      const second = yield* generatorOf([other.service, sameModel.service], shared)
      assert.strictEqual((yield* first()).provider, "google")
      // `other` fails over to `sameModel` in the second chain, where it is the second step.
      yield* other.push(ScriptedStep.fail("auth_error", { status: 401 }))
      const skipped = yield* Effect.flip(second())
      assert.deepStrictEqual(skipped._tag === "GenerationFailed" ? skipped.attempts.map((attempt) => attempt.outcome) : [], ["auth_error", "cooling_down"])
      assert.strictEqual(yield* sameModel.calls, 0, "the model cooling down received no request")
      // The same model at another endpoint is another key.
      const third = yield* generatorOf([elsewhere.service], shared)
      assert.strictEqual((yield* third()).html, "<p>gpt elsewhere</p>")
      // A generator with cool-downs of its own does not skip it.
      const unshared = yield* generatorOf([sameModel.service])
      assert.strictEqual((yield* unshared()).html, "<p>gpt</p>")
    }).pipe(Effect.scoped))

  it.effect("the same model twice in one chain (e.g. with two API keys) cools down per step", () =>
    Effect.gen(function*() {
      const firstKey = yield* ScriptedLlmProvider.make({ provider: "openai", model: "gpt" }, [ScriptedStep.fail("rate_limited", { status: 429 })])
      const secondKey = yield* ScriptedLlmProvider.make({ provider: "openai", model: "gpt" }, [ScriptedStep.text("<p>second key</p>")])
      const generate = yield* generatorOf([firstKey.service, secondKey.service])
      assert.deepStrictEqual((yield* generate()).attempts.map((attempt) => attempt.outcome), ["rate_limited", "success"])
      const again = yield* generate()
      assert.deepStrictEqual(again.attempts.map((attempt) => attempt.outcome), ["cooling_down", "success"])
      assert.strictEqual(yield* secondKey.calls, 2)
    }).pipe(Effect.scoped))

  it.effect("a success clears the model's cool-down, also one another generator set during the call", () =>
    Effect.gen(function*() {
      const cooldowns = yield* Effect.provide(Effect.service(ProviderCooldowns), ProviderCooldowns.layerMemory)
      const shared = Layer.succeed(ProviderCooldowns, cooldowns)
      const slow = yield* ScriptedLlmProvider.make({ provider: "slow", model: "m" }, [ScriptedStep.hang])
      const gpt = yield* ScriptedLlmProvider.make({ provider: "openai", model: "gpt" }, [ScriptedStep.text("<p>gpt</p>")])
      const limited = yield* ScriptedLlmProvider.make({ provider: "openai", model: "gpt" }, [ScriptedStep.fail("rate_limited", { status: 429, retryAfterMillis: 60_000 })])
      const other = yield* ScriptedLlmProvider.make({ provider: "google", model: "gemini" }, [ScriptedStep.text("<p>gemini</p>")])
      const waiting = yield* generatorOf([slow.service, gpt.service], shared)
      const failing = yield* generatorOf([limited.service, other.service], shared)
      // The first generator read the cool-downs and waits on its first model …
      const fiber = yield* Effect.forkChild(waiting())
      yield* Effect.yieldNow
      // … while the second one's 429 cools "openai/gpt" down.
      yield* failing()
      assert.isTrue((yield* cooldowns.remaining(["openai/gpt"])).has("openai/gpt"))
      yield* TestClock.adjust(Duration.seconds(30))
      const served = yield* Fiber.join(fiber)
      assert.strictEqual(served.html, "<p>gpt</p>")
      assert.strictEqual((yield* cooldowns.remaining(["openai/gpt"])).size, 0, "the success cleared it")
    }).pipe(Effect.scoped))

  it.effect("an empty chain is NoModelConfigured with the configured hint", () =>
    Effect.gen(function*() {
      const context = yield* Layer.build(
        ContentGenerator.layerNoDeps().pipe(
          Layer.provide(LlmChain.layer<never, never>([], { whenEmpty: "Set AI_PRIMARY_PROVIDER." })),
          Layer.provide([HtmlSanitizer.layer, ProviderCooldowns.layerMemory])
        )
      )
      const service = Context.get(context, ContentGenerator)
      const error = yield* Effect.flip(service.generate({ prompt: "x" }))
      assert.strictEqual(error._tag, "NoModelConfigured")
      assert.include(error.message, "Set AI_PRIMARY_PROVIDER.")
    }).pipe(Effect.scoped))
})

describe("ContentGenerator.stream", () => {
  it.effect("sends sanitized blocks as they complete, then the attempt, then the content; the blocks make up the JSON answer's html", () =>
    Effect.gen(function*() {
      const { events, generate } = yield* setUp([ScriptedStep.text(lesson, { input_tokens: 10, output_tokens: 20 })])
      const streamed = yield* events()
      assert.deepStrictEqual(brief(streamed), [
        "html:<h2>Ownership</h2>",
        "html:<p>Each value has <b>one</b> owner.</p>",
        "html:<ul><li>move</li></ul>",
        "html:<p>Done.</p>",
        "attempt:openai:success",
        "done:openai"
      ])
      const done = streamed.at(-1)!
      assert.strictEqual(done._tag, "Done")
      if (done._tag !== "Done") return
      const html = streamed.flatMap((event) => event._tag === "Html" ? [event.html] : []).join("")
      assert.strictEqual(html, done.content.html)
      assert.strictEqual(html, (yield* generate()).html)
      assert.deepStrictEqual(done.content.attempts[0]!.usage, { input_tokens: 10, output_tokens: 20 })
      assert.strictEqual(done.content.attempts[0]!.cost_usd, 0.0000135)
    }).pipe(Effect.scoped))

  it.effect("falls back while no HTML has gone out: a failed primary, then the secondary streams", () =>
    Effect.gen(function*() {
      const { events, secondary } = yield* setUp([ScriptedStep.fail("rate_limited", { status: 429 })])
      assert.deepStrictEqual(brief(yield* events()), [
        "attempt:openai:rate_limited",
        "html:<p>from the secondary</p>",
        "attempt:google:success",
        "done:google"
      ])
      assert.strictEqual(yield* secondary.calls, 1)
    }).pipe(Effect.scoped))

  it.effect("a primary that breaks before any block is settled (still in its lead-in) falls back", () =>
    Effect.gen(function*() {
      const { events } = yield* setUp([ScriptedStep.breakAfter("Sure! Here is the lesson:\n```html\n<h2>Owner", "network_error")])
      assert.deepStrictEqual(brief(yield* events()), [
        "attempt:openai:network_error",
        "html:<p>from the secondary</p>",
        "attempt:google:success",
        "done:google"
      ])
    }).pipe(Effect.scoped))

  it.effect("a primary that breaks after HTML went out ends the stream with GenerationInterrupted; the secondary is not asked", () =>
    Effect.gen(function*() {
      const { stream, secondary } = yield* setUp([ScriptedStep.breakAfter("<h2>Ownership</h2><p>Each value has one owner.</p><p>Then", "server_error")])
      const seen: Array<GenerationEvent> = []
      const error = yield* Effect.flip(Stream.runForEach(stream({ prompt: "x" }), (event) => Effect.sync(() => seen.push(event))))
      assert.deepStrictEqual(brief(seen), [
        "html:<h2>Ownership</h2>",
        "html:<p>Each value has one owner.</p>",
        "attempt:openai:server_error"
      ])
      assert.strictEqual(error._tag, "GenerationInterrupted")
      if (error._tag !== "GenerationInterrupted") return
      assert.deepStrictEqual([error.provider, error.model, error.outcome], ["openai", "primary-model", "server_error"])
      assert.include(error.message, "Generate again")
      assert.strictEqual(yield* secondary.calls, 0)
    }).pipe(Effect.scoped))

  it.effect("a primary that stops writing after HTML went out is cut off at the deadline: GenerationInterrupted with timeout", () =>
    Effect.gen(function*() {
      const { stream, primary, secondary } = yield* setUp([ScriptedStep.hangAfter("<h2>Ownership</h2><p>Each value has one owner.</p><p>Then")])
      const seen: Array<GenerationEvent> = []
      const fiber = yield* Effect.forkChild(Effect.flip(Stream.runForEach(stream({ prompt: "x" }), (event) => Effect.sync(() => seen.push(event)))))
      // The blocks go out at once (no time passes).
      for (let i = 0; i < 100 && seen.length < 2; i++) yield* Effect.yieldNow
      assert.deepStrictEqual(brief(seen), ["html:<h2>Ownership</h2>", "html:<p>Each value has one owner.</p>"])
      yield* TestClock.adjust(Duration.seconds(29))
      assert.isUndefined(fiber.pollUnsafe(), "cut off before the deadline")
      yield* TestClock.adjust(Duration.seconds(1))
      const error = yield* Fiber.join(fiber)
      assert.strictEqual(error._tag, "GenerationInterrupted")
      assert.deepStrictEqual(brief(seen).at(-1), "attempt:openai:timeout")
      assert.strictEqual(yield* primary.abandoned, 1)
      assert.strictEqual(yield* secondary.calls, 0)
    }).pipe(Effect.scoped))

  it.effect("a model writing steadily is not cut off by the deadline, however long it writes; a stream longer than streamTimeout is", () =>
    Effect.gen(function*() {
      // A part every 10 s for 60 s: each gap within the 30 s deadline, the whole twice it.
      const steady = LlmProvider.of({
        provider: "openai",
        model: "steady",
        generate: () => Effect.die("not used"),
        stream: () =>
          Stream.fromIterable(["<h2>One</h2>", "<p>Two</p>", "<p>Three</p>", "<p>Four</p>", "<p>Five</p>", "<p>Six</p>"]).pipe(
            Stream.mapEffect((text) => Effect.as(Effect.sleep(Duration.seconds(10)), LlmStreamPart.textDelta(text)))
          )
      })
      const service = yield* generatorServiceOf([Layer.succeed(LlmProvider, steady)])
      const fiber = yield* Effect.forkChild(Stream.runCollect(service.stream({ prompt: "x" })))
      yield* TestClock.adjust(Duration.seconds(61))
      const events = yield* Fiber.join(fiber)
      assert.strictEqual(brief(events).at(-1), "done:openai")
      assert.strictEqual(events.flatMap((event) => event._tag === "Html" ? [event.html] : []).length, 6)

      const capped = yield* Layer.build(
        ContentGenerator.layerNoDeps({ timeout: Duration.seconds(30), streamTimeout: Duration.seconds(45) }).pipe(
          Layer.provide(LlmChain.layer([Layer.succeed(LlmProvider, steady)])),
          Layer.provide([HtmlSanitizer.layer, ProviderCooldowns.layerMemory])
        )
      )
      const cut = yield* Effect.forkChild(Effect.flip(Stream.runDrain(Context.get(capped, ContentGenerator).stream({ prompt: "x" }))))
      yield* TestClock.adjust(Duration.seconds(45))
      const error = yield* Fiber.join(cut)
      assert.strictEqual(error._tag, "GenerationInterrupted")
      assert.include(error._tag === "GenerationInterrupted" ? error.attempts[0]!.detail : "", "longer than 45s")
    }).pipe(Effect.scoped))

  it.effect("output that is empty once sanitized falls back, having sent nothing", () =>
    Effect.gen(function*() {
      const { events } = yield* setUp([ScriptedStep.text("Sure!\n```html\n<script>alert(1)</script><p> </p>\n```")])
      assert.deepStrictEqual(brief(yield* events()), [
        "attempt:openai:empty_output",
        "html:<p>from the secondary</p>",
        "attempt:google:success",
        "done:google"
      ])
    }).pipe(Effect.scoped))

  it.effect("a primary that hangs is abandoned at the deadline and the secondary streams", () =>
    Effect.gen(function*() {
      const { events, primary } = yield* setUp([ScriptedStep.hang])
      const fiber = yield* Effect.forkChild(events())
      yield* TestClock.adjust(Duration.seconds(30))
      assert.deepStrictEqual(brief(yield* Fiber.join(fiber)), [
        "attempt:openai:timeout",
        "html:<p>from the secondary</p>",
        "attempt:google:success",
        "done:google"
      ])
      assert.strictEqual(yield* primary.abandoned, 1)
    }).pipe(Effect.scoped))

  it.effect("a video the model embeds streams as the sanitized player, with its forced attributes", () =>
    Effect.gen(function*() {
      const { events } = yield* setUp([ScriptedStep.text(
        "<h2>Watch</h2><iframe src=\"https://www.youtube.com/embed/dQw4w9WgXcQ?si=track\" onload=\"x()\" width=\"560\"></iframe><p>Then read.</p>"
      )])
      const streamed = yield* events()
      const html = streamed.flatMap((event) => event._tag === "Html" ? [event.html] : [])
      assert.strictEqual(html.length, 3)
      assert.match(html[1]!, /^<iframe src="https:\/\/www\.youtube-nocookie\.com\/embed\/dQw4w9WgXcQ" sandbox="[^"]+" allow="[^"]+"[^>]*><\/iframe>$/)
      assert.notMatch(html[1]!, /onload|width|si=track/)
    }).pipe(Effect.scoped))

  it.effect("every model failing ends the stream with GenerationFailed after the attempts", () =>
    Effect.gen(function*() {
      const { stream } = yield* setUp([ScriptedStep.fail("server_error")], [ScriptedStep.fail("auth_error")])
      const seen: Array<GenerationEvent> = []
      const error = yield* Effect.flip(Stream.runForEach(stream({ prompt: "x" }), (event) => Effect.sync(() => seen.push(event))))
      assert.deepStrictEqual(brief(seen), ["attempt:openai:server_error", "attempt:google:auth_error"])
      assert.strictEqual(error._tag, "GenerationFailed")
    }).pipe(Effect.scoped))

  it.effect("an empty chain fails with NoModelConfigured before any event", () =>
    Effect.gen(function*() {
      const context = yield* Layer.build(
        ContentGenerator.layerNoDeps().pipe(
          Layer.provide(LlmChain.layer<never, never>([], { whenEmpty: "Set AI_PRIMARY_PROVIDER." })),
          Layer.provide([HtmlSanitizer.layer, ProviderCooldowns.layerMemory])
        )
      )
      const seen: Array<GenerationEvent> = []
      const error = yield* Effect.flip(Stream.runForEach(Context.get(context, ContentGenerator).stream({ prompt: "x" }), (event) => Effect.sync(() => seen.push(event))))
      assert.strictEqual(error._tag, "NoModelConfigured")
      assert.deepStrictEqual(seen, [])
    }).pipe(Effect.scoped))
})
