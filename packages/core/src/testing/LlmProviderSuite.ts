/**
 * The conformance suite every `LlmProvider` adapter runs. An adapter's test gives the
 * suite a {@link LlmProviderHarness}: the provider under test and the model behind it —
 * for a real adapter a loopback HTTP server speaking the provider's wire format
 * (`@coursekit/llm-openai/testing`, `@coursekit/llm-gemini/testing`), so the real SDK
 * runs. The suite scripts the model's answers with `ModelAnswer`s and checks that the
 * adapter reports each the way the port promises.
 *
 * @since 0.1.0
 */
import { assert, describe, layer } from "@effect/vitest"
import { Context, Duration, Effect, Exit, type Layer } from "effect"
import { LlmFailure, type LlmProvider } from "../LlmProvider.ts"
import { ModelAnswer, type ModelScriptControl } from "./ModelScript.ts"

/** What the suite drives: a provider and the scripted model behind it. */
export class LlmProviderHarness extends Context.Service<LlmProviderHarness, {
  readonly provider: LlmProvider["Service"]
  readonly script: ModelScriptControl
}>()("@coursekit/core/testing/LlmProviderHarness") {}

/** How long the suite waits for an abandoned request to be seen by the model. */
const abandonWait = Duration.seconds(5)

/** Whether `check` holds within `within`, polling. */
const eventually = (check: () => boolean, within: Duration.Duration) =>
  Effect.gen(function*() {
    const deadline = Date.now() + Duration.toMillis(within)
    while (!check() && Date.now() < deadline) yield* Effect.sleep(Duration.millis(10))
    return check()
  })

/**
 * Registers the `LlmProvider` conformance tests for `harness` under `name`. The layer is
 * built once for the whole suite; each test scripts the model first.
 */
export const llmProviderSuite = <E>(name: string, harness: Layer.Layer<LlmProviderHarness, E>): void => {
  const failureOf = (answer: ModelAnswer) =>
    Effect.gen(function*() {
      const { provider, script } = yield* LlmProviderHarness
      script.answerWith(answer)
      const exit = yield* Effect.exit(provider.generate({ prompt: "Write a lesson.", system: "Answer in HTML." }))
      const error = Exit.isFailure(exit) ? exit.cause.reasons.find((reason) => reason._tag === "Fail")?.error : undefined
      assert.instanceOf(error, LlmFailure, `expected an LlmFailure for ${answer._tag}, got ${String(exit)}`)
      return error as LlmFailure
    })

  describe(`LlmProvider conformance: ${name}`, () => {
    layer(harness, { timeout: 60_000, excludeTestServices: true })((it) => {
      it.effect("answers the model's text as it came, and sends the prompt and the system instruction", () =>
        Effect.gen(function*() {
          const { provider, script } = yield* LlmProviderHarness
          const html = "Sure!\n<h2>Ownership</h2>\n<p>Each value has <b>one</b> owner. ü ✓</p>"
          script.answerWith(ModelAnswer.text(html))
          const before = script.received.length
          const text = yield* provider.generate({ prompt: "Rust ownership", system: "Write HTML.\nOnly <p>." })
          assert.strictEqual(text, html)
          assert.strictEqual(script.received.length, before + 1)
          assert.deepStrictEqual(script.received.at(-1), { prompt: "Rust ownership", system: "Write HTML.\nOnly <p>." })
        }))

      it.effect("names its provider and model, with no secret in them", () =>
        Effect.gen(function*() {
          const { provider } = yield* LlmProviderHarness
          assert.isNotEmpty(provider.provider)
          assert.isNotEmpty(provider.model)
          assert.notMatch(`${provider.provider} ${provider.model}`, /key|secret|sk-/i)
        }))

      it.effect("empty content is an empty string, not a failure", () =>
        Effect.gen(function*() {
          const { provider, script } = yield* LlmProviderHarness
          script.answerWith(ModelAnswer.text(""))
          assert.strictEqual(yield* provider.generate({ prompt: "p", system: "s" }), "")
        }))

      it.effect("429 is rate_limited, with the provider's wait", () =>
        Effect.gen(function*() {
          const failure = yield* failureOf(ModelAnswer.status(429, 7))
          assert.strictEqual(failure.kind, "rate_limited")
          assert.strictEqual(failure.status, 429)
          assert.strictEqual(failure.retryAfterMillis, 7000)
        }))

      it.effect("429 without a wait has none", () =>
        Effect.gen(function*() {
          const failure = yield* failureOf(ModelAnswer.status(429))
          assert.strictEqual(failure.kind, "rate_limited")
          assert.isUndefined(failure.retryAfterMillis)
        }))

      it.effect("500 and 503 are server_error", () =>
        Effect.gen(function*() {
          assert.strictEqual((yield* failureOf(ModelAnswer.status(500))).kind, "server_error")
          const unavailable = yield* failureOf(ModelAnswer.status(503))
          assert.strictEqual(unavailable.kind, "server_error")
          assert.strictEqual(unavailable.status, 503)
        }))

      it.effect("401 and 403 are auth_error; 400 and 404 are model_error", () =>
        Effect.gen(function*() {
          assert.strictEqual((yield* failureOf(ModelAnswer.status(401))).kind, "auth_error")
          assert.strictEqual((yield* failureOf(ModelAnswer.status(403))).kind, "auth_error")
          assert.strictEqual((yield* failureOf(ModelAnswer.status(400))).kind, "model_error")
          assert.strictEqual((yield* failureOf(ModelAnswer.status(404))).kind, "model_error")
        }))

      it.effect("a 200 that is not the provider's JSON is bad_response", () =>
        Effect.gen(function*() {
          assert.strictEqual((yield* failureOf(ModelAnswer.malformed)).kind, "bad_response")
        }))

      it.effect("a connection closed without an answer is network_error", () =>
        Effect.gen(function*() {
          assert.strictEqual((yield* failureOf(ModelAnswer.reset)).kind, "network_error")
        }))

      it.effect("interrupting a call that hangs abandons the request", () =>
        Effect.gen(function*() {
          const { provider, script } = yield* LlmProviderHarness
          script.answerWith(ModelAnswer.hang)
          const abandonedBefore = script.abandoned
          const result = yield* provider.generate({ prompt: "p", system: "s" }).pipe(Effect.timeoutOption(Duration.millis(200)))
          assert.strictEqual(result._tag, "None")
          // The model notices the client going away shortly after.
          const seen = yield* eventually(() => script.abandoned > abandonedBefore, abandonWait)
          assert.isTrue(seen, "the hanging request was not abandoned")
        }))

      it.effect("the next call after a failure works", () =>
        Effect.gen(function*() {
          const { provider, script } = yield* LlmProviderHarness
          script.answerWith(ModelAnswer.status(500), ModelAnswer.text("<p>Back.</p>"))
          const first = yield* Effect.flip(provider.generate({ prompt: "p", system: "s" }))
          assert.strictEqual(first.kind, "server_error")
          assert.strictEqual(yield* provider.generate({ prompt: "p", system: "s" }), "<p>Back.</p>")
        }))
    })
  })
}
