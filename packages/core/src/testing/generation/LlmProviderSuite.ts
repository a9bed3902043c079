/**
 * The conformance suite every `LlmProvider` adapter runs. An adapter's test gives the
 * suite a {@link LlmProviderHarness}: the provider under test and the model behind it —
 * for a real adapter a loopback HTTP server speaking the provider's wire format
 * (`@coursekit/llm-openai/testing`, `@coursekit/llm-gemini/testing`), so the real SDK
 * runs, whole and streamed. The suite scripts the model's answers with `ModelAnswer`s
 * and checks that the adapter reports each the way the port promises.
 *
 * @since 0.1.0
 */
import { assert, describe, layer } from "@effect/vitest"
import { Context, Duration, Effect, Exit, type Layer, Stream } from "effect"
import { LlmFailure, type LlmProvider, type LlmStreamPart, type LlmUsage } from "../../generation/LlmProvider.ts"
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

const request = { prompt: "Write a lesson.", system: "Answer in HTML." }

/** The typed failure of `exit`, if it failed with one. */
const failureIn = (exit: Exit.Exit<unknown, LlmFailure>): LlmFailure | undefined =>
  Exit.isFailure(exit) ? exit.cause.reasons.find((reason) => reason._tag === "Fail")?.error : undefined

/** An unpaired UTF-16 surrogate: half of a character. */
const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

/** A stream read to its end: its parts, the text they join to, the last usage, and how it ended. */
interface Streamed {
  readonly parts: ReadonlyArray<LlmStreamPart>
  readonly deltas: ReadonlyArray<string>
  readonly text: string
  readonly usage: LlmUsage | null
  readonly failure: LlmFailure | undefined
  readonly exit: Exit.Exit<void, LlmFailure>
}

const streamedOf = (parts: ReadonlyArray<LlmStreamPart>, exit: Exit.Exit<void, LlmFailure>): Streamed => {
  const deltas = parts.flatMap((part) => part._tag === "TextDelta" ? [part.text] : [])
  const usages = parts.flatMap((part) => part._tag === "Usage" ? [part.usage] : [])
  return { parts, deltas, text: deltas.join(""), usage: usages.at(-1) ?? null, failure: failureIn(exit), exit }
}

/**
 * Registers the `LlmProvider` conformance tests for `harness` under `name`. The layer is
 * built once for the whole suite; each test scripts the model first.
 */
export const llmProviderSuite = <E>(name: string, harness: Layer.Layer<LlmProviderHarness, E>): void => {
  const failureOf = (answer: ModelAnswer) =>
    Effect.gen(function*() {
      const { provider, script } = yield* LlmProviderHarness
      script.answerWith(answer)
      const exit = yield* Effect.exit(provider.generate(request))
      const error = failureIn(exit)
      assert.instanceOf(error, LlmFailure, `expected an LlmFailure for ${answer._tag}, got ${String(exit)}`)
      return error as LlmFailure
    })

  /** Streams the answer `answer` to its end. */
  const stream = (answer: ModelAnswer) =>
    Effect.gen(function*() {
      const { provider, script } = yield* LlmProviderHarness
      script.answerWith(answer)
      const parts: Array<LlmStreamPart> = []
      const exit = yield* Effect.exit(Stream.runForEach(provider.stream(request), (part) => Effect.sync(() => parts.push(part))))
      return streamedOf(parts, exit)
    })

  /** Streams `answer`, which must fail before or after its text; the failure. */
  const streamFailureOf = (answer: ModelAnswer, textBefore = "") =>
    Effect.gen(function*() {
      const streamed = yield* stream(answer)
      assert.instanceOf(streamed.failure, LlmFailure, `expected the stream of ${answer._tag} to fail, got ${String(streamed.exit)}`)
      assert.strictEqual(streamed.text, textBefore, "the text streamed before the failure")
      return streamed.failure as LlmFailure
    })

  describe(`LlmProvider conformance: ${name}`, () => {
    layer(harness, { timeout: 60_000, excludeTestServices: true })((it) => {
      it.effect("answers the model's text as it came, and sends the prompt and the system instruction", () =>
        Effect.gen(function*() {
          const { provider, script } = yield* LlmProviderHarness
          const html = "Sure!\n<h2>Ownership</h2>\n<p>Each value has <b>one</b> owner. ü ✓</p>"
          script.answerWith(ModelAnswer.text(html))
          const before = script.received.length
          const answer = yield* provider.generate({ prompt: "Rust ownership", system: "Write HTML.\nOnly <p>." })
          assert.strictEqual(answer.text, html)
          assert.strictEqual(script.received.length, before + 1)
          assert.deepStrictEqual(script.received.at(-1), { prompt: "Rust ownership", system: "Write HTML.\nOnly <p>." })
        }))

      it.effect("names its provider, model and endpoint, with no secret in them", () =>
        Effect.gen(function*() {
          const { provider } = yield* LlmProviderHarness
          assert.isNotEmpty(provider.provider)
          assert.isNotEmpty(provider.model)
          assert.notMatch(`${provider.provider} ${provider.model}`, /key|secret|sk-/i)
          if (provider.endpoint !== undefined) {
            // Origin and path only: no userinfo, query or fragment, where URLs carry keys.
            assert.notMatch(provider.endpoint, /[@?#]|key|secret|sk-/i)
          }
        }))

      it.effect("answers the usage as reported: a count left out is null, an answer without usage has none", () =>
        Effect.gen(function*() {
          const { provider, script } = yield* LlmProviderHarness
          script.answerWith(ModelAnswer.text("<p>a</p>", { usage: { input_tokens: 1234, output_tokens: 56 } }))
          assert.deepStrictEqual((yield* provider.generate(request)).usage, { input_tokens: 1234, output_tokens: 56 })
          script.answerWith(ModelAnswer.text("<p>b</p>", { usage: { input_tokens: 7, output_tokens: null } }))
          assert.deepStrictEqual((yield* provider.generate(request)).usage, { input_tokens: 7, output_tokens: null })
          script.answerWith(ModelAnswer.text("<p>c</p>", { usage: null }))
          const answer = yield* provider.generate(request)
          assert.deepStrictEqual(answer, { text: "<p>c</p>", usage: null })
        }))

      it.effect("empty content is an empty string, not a failure", () =>
        Effect.gen(function*() {
          const { provider, script } = yield* LlmProviderHarness
          script.answerWith(ModelAnswer.text(""))
          assert.strictEqual((yield* provider.generate(request)).text, "")
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
          const result = yield* provider.generate(request).pipe(Effect.timeoutOption(Duration.millis(200)))
          assert.strictEqual(result._tag, "None")
          // The model notices the client going away shortly after.
          const seen = yield* eventually(() => script.abandoned > abandonedBefore, abandonWait)
          assert.isTrue(seen, "the hanging request was not abandoned")
        }))

      it.effect("the next call after a failure works", () =>
        Effect.gen(function*() {
          const { provider, script } = yield* LlmProviderHarness
          script.answerWith(ModelAnswer.status(500), ModelAnswer.text("<p>Back.</p>"))
          const first = yield* Effect.flip(provider.generate(request))
          assert.strictEqual(first.kind, "server_error")
          assert.strictEqual((yield* provider.generate(request)).text, "<p>Back.</p>")
        }))

      // Streaming: the same call through the provider's streaming API.

      it.effect("streams the text in pieces that join to exactly the answer, no character cut, and sends the prompt and the system instruction", () =>
        Effect.gen(function*() {
          const { provider, script } = yield* LlmProviderHarness
          // Multi-byte and astral characters, a combining accent and CJK, cut into chunks of 3.
          const html = "Sure!\n<h2>Owner🦀ship</h2>\n<p>Each value has <b>one</b> owner. ü ✓ cafe\u0301 所有権 👩‍💻</p>\n"
          script.answerWith(ModelAnswer.text(html, { chunkChars: 3 }))
          const before = script.received.length
          const parts: Array<LlmStreamPart> = []
          yield* Stream.runForEach(
            provider.stream({ prompt: "Rust ownership", system: "Write HTML.\nOnly <p>." }),
            (part) => Effect.sync(() => parts.push(part))
          )
          const streamed = streamedOf(parts, Exit.void)
          assert.strictEqual(streamed.text, html)
          assert.isAbove(streamed.deltas.length, 1, "the text came in one piece")
          for (const delta of streamed.deltas) {
            assert.notStrictEqual(delta, "", "an empty text delta")
            assert.notMatch(delta, loneSurrogate, "a delta holds half a character")
          }
          assert.strictEqual(script.received.length, before + 1)
          assert.deepStrictEqual(script.received.at(-1), { prompt: "Rust ownership", system: "Write HTML.\nOnly <p>." })
        }))

      it.effect("streams the usage as reported: the last usage part holds the counts, a count left out is null, none without usage", () =>
        Effect.gen(function*() {
          const reported = yield* stream(ModelAnswer.text("<p>a</p>", { usage: { input_tokens: 1234, output_tokens: 56 } }))
          assert.isTrue(Exit.isSuccess(reported.exit), String(reported.exit))
          assert.strictEqual(reported.text, "<p>a</p>")
          assert.deepStrictEqual(reported.usage, { input_tokens: 1234, output_tokens: 56 })
          const partial = yield* stream(ModelAnswer.text("<p>b</p>", { usage: { input_tokens: 7, output_tokens: null } }))
          assert.deepStrictEqual(partial.usage, { input_tokens: 7, output_tokens: null })
          const none = yield* stream(ModelAnswer.text("<p>c</p>", { usage: null }))
          assert.isTrue(Exit.isSuccess(none.exit), String(none.exit))
          assert.strictEqual(none.text, "<p>c</p>")
          assert.deepStrictEqual(none.parts.filter((part) => part._tag === "Usage"), [])
        }))

      it.effect("an empty streamed answer has no text and ends", () =>
        Effect.gen(function*() {
          const streamed = yield* stream(ModelAnswer.text(""))
          assert.isTrue(Exit.isSuccess(streamed.exit), String(streamed.exit))
          assert.deepStrictEqual(streamed.deltas, [])
        }))

      it.effect("a stream refused before its first part fails as generate does: 429 with its wait, 5xx, 401/403, 400/404", () =>
        Effect.gen(function*() {
          const limited = yield* streamFailureOf(ModelAnswer.status(429, 7))
          assert.strictEqual(limited.kind, "rate_limited")
          assert.strictEqual(limited.status, 429)
          assert.strictEqual(limited.retryAfterMillis, 7000)
          const unavailable = yield* streamFailureOf(ModelAnswer.status(503))
          assert.strictEqual(unavailable.kind, "server_error")
          assert.strictEqual(unavailable.status, 503)
          assert.strictEqual((yield* streamFailureOf(ModelAnswer.status(500))).kind, "server_error")
          assert.strictEqual((yield* streamFailureOf(ModelAnswer.status(401))).kind, "auth_error")
          assert.strictEqual((yield* streamFailureOf(ModelAnswer.status(403))).kind, "auth_error")
          assert.strictEqual((yield* streamFailureOf(ModelAnswer.status(400))).kind, "model_error")
          assert.strictEqual((yield* streamFailureOf(ModelAnswer.status(404))).kind, "model_error")
        }))

      it.effect("a stream whose connection closes before any part is network_error", () =>
        Effect.gen(function*() {
          assert.strictEqual((yield* streamFailureOf(ModelAnswer.reset)).kind, "network_error")
        }))

      it.effect("a stream whose connection is lost mid-answer gives the text so far, then network_error", () =>
        Effect.gen(function*() {
          const text = "<h2>Half</h2><p>of a lesson, cut ✂ here"
          const failure = yield* streamFailureOf(ModelAnswer.breakAfter(text, "reset", { chunkChars: 5 }), text)
          assert.strictEqual(failure.kind, "network_error")
        }))

      it.effect("a stream the provider ends with an error event gives the text so far, then fails by the event's status, else server_error", () =>
        Effect.gen(function*() {
          const text = "<h2>Half</h2><p>of a lesson"
          const limited = yield* streamFailureOf(ModelAnswer.breakAfter(text, { status: 429 }, { chunkChars: 5 }), text)
          assert.strictEqual(limited.kind, "rate_limited")
          const refused = yield* streamFailureOf(ModelAnswer.breakAfter(text, { status: 400 }), text)
          assert.strictEqual(refused.kind, "model_error")
          const unspecified = yield* streamFailureOf(ModelAnswer.breakAfter(text, {}), text)
          assert.strictEqual(unspecified.kind, "server_error")
        }))

      it.effect("a streamed chunk that is not JSON is bad_response, first or mid-answer", () =>
        Effect.gen(function*() {
          assert.strictEqual((yield* streamFailureOf(ModelAnswer.malformed)).kind, "bad_response")
          const text = "<p>So far, so good."
          assert.strictEqual((yield* streamFailureOf(ModelAnswer.breakAfter(text, "malformed"), text)).kind, "bad_response")
        }))

      it.effect("interrupting a stream that hangs before its first part abandons the request", () =>
        Effect.gen(function*() {
          const { provider, script } = yield* LlmProviderHarness
          script.answerWith(ModelAnswer.hang)
          const abandonedBefore = script.abandoned
          const result = yield* Stream.runDrain(provider.stream(request)).pipe(Effect.timeoutOption(Duration.millis(200)))
          assert.strictEqual(result._tag, "None")
          const seen = yield* eventually(() => script.abandoned > abandonedBefore, abandonWait)
          assert.isTrue(seen, "the hanging request was not abandoned")
        }))

      it.effect("interrupting a stream that hangs mid-answer keeps the parts so far and abandons the request", () =>
        Effect.gen(function*() {
          const { provider, script } = yield* LlmProviderHarness
          const text = "<h2>Started</h2><p>then nothing"
          script.answerWith(ModelAnswer.breakAfter(text, "hang", { chunkChars: 4 }))
          const abandonedBefore = script.abandoned
          const parts: Array<LlmStreamPart> = []
          const result = yield* Stream.runForEach(provider.stream(request), (part) => Effect.sync(() => parts.push(part))).pipe(
            Effect.timeoutOption(Duration.millis(300))
          )
          assert.strictEqual(result._tag, "None")
          assert.strictEqual(streamedOf(parts, Exit.void).text, text)
          const seen = yield* eventually(() => script.abandoned > abandonedBefore, abandonWait)
          assert.isTrue(seen, "the request hanging mid-answer was not abandoned")
        }))

      it.effect("a consumer that stops after the first part abandons the rest of the request", () =>
        Effect.gen(function*() {
          const { provider, script } = yield* LlmProviderHarness
          const text = "<p>one</p><p>two</p><p>three</p>"
          script.answerWith(ModelAnswer.breakAfter(text, "hang", { chunkChars: 5 }))
          const abandonedBefore = script.abandoned
          const first = Array.from(yield* Stream.runCollect(provider.stream(request).pipe(Stream.take(1))))
          assert.strictEqual(first.length, 1)
          const part = first[0]!
          assert.isTrue(part._tag === "TextDelta" && part.text !== "" && text.startsWith(part.text), `not the answer's start: ${JSON.stringify(part)}`)
          const seen = yield* eventually(() => script.abandoned > abandonedBefore, abandonWait)
          assert.isTrue(seen, "the rest of the request was not abandoned")
        }))

      it.effect("the next calls after a broken stream work", () =>
        Effect.gen(function*() {
          const { provider } = yield* LlmProviderHarness
          const broken = yield* stream(ModelAnswer.breakAfter("<p>Cut", "reset"))
          assert.strictEqual(broken.failure?.kind, "network_error")
          const streamed = yield* stream(ModelAnswer.text("<p>Back.</p>"))
          assert.isTrue(Exit.isSuccess(streamed.exit), String(streamed.exit))
          assert.strictEqual(streamed.text, "<p>Back.</p>")
          assert.strictEqual((yield* provider.generate(request)).text, "<p>Back.</p>")
        }))
    })
  })
}
