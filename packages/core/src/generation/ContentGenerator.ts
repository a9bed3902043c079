/**
 * AI-written HTML learning content (§1.1, DECISIONS §7): the models of an `LlmChain` are
 * tried in order, each attempt with a deadline; the next one takes over on any failure —
 * 429, 5xx, time-out, network, auth or model errors, and output that is empty once
 * sanitized. A model that failed with 429, 5xx or a time-out is skipped for a cool-down
 * (its `Retry-After`, else a default), so later callers do not wait for a failure that is
 * already known; the cool-downs are `ProviderCooldowns`' (shared by the instances on
 * PostgreSQL). Every output passes all three sanitization stages.
 *
 * `generate` answers the whole content; `stream` answers the same as events while the
 * model writes: attempts as they end, sanitized HTML block by block, then the content.
 * A streamed answer falls back to the next model only until its first HTML went out.
 * Every attempt carries the provider's token usage and, when the chain knows the model's
 * prices, its cost; every generation is logged with them.
 *
 * @since 0.1.0
 */
import { Clock, Context, Duration, Effect, Exit, Layer, Queue, Stream } from "effect"
import type { HtmlAllowList } from "../html/HtmlAllowList.ts"
import { HtmlSanitizer, type HtmlTooComplex, type HtmlTooLong, type SanitizerOverloaded } from "../html/HtmlSanitizer.ts"
import { LlmFailure, LlmProvider, type LlmUsage } from "./LlmProvider.ts"
import { cooldownKeys, ProviderCooldowns } from "./ProviderCooldowns.ts"
import {
  type AttemptOutcome,
  type GeneratedContent,
  type GenerateRequest,
  type GenerationAttempt,
  type GenerationEvent,
  GenerationFailed,
  GenerationInterrupted,
  NoModelConfigured
} from "./Generation.ts"
import { costOf, LlmChain } from "./LlmChain.ts"

export {
  AttemptOutcome,
  GeneratedContent,
  GeneratedHtml,
  GenerateRequest,
  GenerationAttempt,
  type GenerationEvent,
  GenerationFailed,
  GenerationInterrupted,
  NoModelConfigured,
  promptMaxLength
} from "./Generation.ts"

/** Options of {@link ContentGenerator.layerNoDeps}. */
export interface ContentGeneratorOptions {
  /**
   * Deadline of each attempt: for a whole answer, until it has come; for a streamed one,
   * until its first part and between any two parts (a model writing steadily is not cut
   * off however long its answer). Default 30 seconds.
   */
  readonly timeout?: Duration.Duration | undefined
  /** Cool-down after a 429, 5xx or time-out without `Retry-After`. Default 60 seconds. */
  readonly cooldown?: Duration.Duration | undefined
  /** Longest cool-down a `Retry-After` may ask for. Default 1 hour. */
  readonly maxCooldown?: Duration.Duration | undefined
  /** Longest a streamed answer may take in all, however steadily it comes. Default 10 minutes. */
  readonly streamTimeout?: Duration.Duration | undefined
  /**
   * Most bytes (UTF-8) of a model's answer that are read; a longer answer fails its
   * attempt as `too_long`, a streamed one as soon as it passes the mark. Default 1,000,000.
   */
  readonly maxOutputBytes?: number | undefined
}

/** Bytes of `text` in UTF-8 (a lone surrogate as the three of U+FFFD), without encoding it. */
export const utf8Length = (text: string): number => {
  let bytes = text.length
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index)
    if (code >= 0x80) bytes += code < 0x800 || (code >= 0xd800 && code <= 0xdfff) ? 1 : 2
  }
  return bytes
}

/** Outcomes after which a model is left alone for a while. */
const coolingOutcomes: ReadonlySet<AttemptOutcome> = new Set(["rate_limited", "server_error", "timeout"])

/** What the instruction says about iframes: only the allow-list's video players, as bare `<iframe src>`. */
const embedInstruction = (allowList: HtmlAllowList): ReadonlyArray<string> => {
  const hosts = Object.values(allowList.embeds).map((provider) => provider.rewriteHost ?? provider.hosts[0]).filter((host) => host !== undefined)
  return hosts.length === 0
    ? ["Do not use iframes."]
    : [`Use an iframe only to embed a video, as <iframe src="…"></iframe> with no other attribute, and only with the player URL of ${hosts.join(" or ")}.`]
}

/** The system instruction: what HTML to write, in terms of what the sanitizer keeps. */
export const systemInstruction = (allowList: HtmlAllowList): string =>
  [
    "You write HTML learning content for an online course.",
    "Answer with an HTML fragment only: no Markdown, no code fences, no <html>, <head> or <body>, no sentences before or after the HTML.",
    `Use only these tags: ${Object.keys(allowList.tags).join(", ")}.`,
    `Use only these class names, and only for layout and emphasis: ${Object.keys(allowList.classes).join(", ")}.`,
    "Do not use style, id or event handler attributes, scripts, forms or SVG. Links use https: or mailto: URLs.",
    ...embedInstruction(allowList),
    "Structure the content with headings, short paragraphs, lists, tables and <details>/<summary> where they help a learner."
  ].join("\n")

/** Why an attempt failed: the model's failure, or what its answer was refused for. */
interface AttemptFailure {
  readonly outcome: Exclude<AttemptOutcome, "success" | "empty_output" | "cooling_down">
  readonly detail: string
  readonly retryAfterMillis?: number | undefined
}

const llmFailure = (failure: LlmFailure): AttemptFailure => ({ outcome: failure.kind, detail: failure.detail, retryAfterMillis: failure.retryAfterMillis })

const refusal = (refused: HtmlTooComplex | HtmlTooLong): AttemptFailure =>
  refused._tag === "HtmlTooLong" ? { outcome: "too_long", detail: refused.message } : { outcome: "too_complex", detail: refused.message }

/** Writes HTML content with the chain's models. */
export class ContentGenerator extends Context.Service<ContentGenerator, {
  generate(request: GenerateRequest): Effect.Effect<GeneratedContent, GenerationFailed | NoModelConfigured | SanitizerOverloaded>
  /**
   * The same generation as events. Fails with `NoModelConfigured` before any event,
   * `GenerationFailed` when every model failed before any HTML went out, and
   * `GenerationInterrupted` when a model failed after some did, and
   * `SanitizerOverloaded` when the sanitizer had no room for the answer.
   */
  stream(request: GenerateRequest): Stream.Stream<GenerationEvent, GenerationFailed | GenerationInterrupted | NoModelConfigured | SanitizerOverloaded>
}>()("@coursekit/core/ContentGenerator") {
  static readonly layerNoDeps = (
    options: ContentGeneratorOptions = {}
  ): Layer.Layer<ContentGenerator, never, LlmChain | HtmlSanitizer | ProviderCooldowns> =>
    Layer.effect(
      ContentGenerator,
      Effect.gen(function*() {
        const chain = yield* LlmChain
        const sanitizer = yield* HtmlSanitizer
        const cooldowns = yield* ProviderCooldowns
        const timeout = options.timeout ?? Duration.seconds(30)
        const defaultCooldown = Duration.toMillis(options.cooldown ?? Duration.seconds(60))
        const maxCooldown = Duration.toMillis(options.maxCooldown ?? Duration.hours(1))
        const system = systemInstruction(sanitizer.allowList)
        /** Each step's cool-down key, by step index. */
        const keys = cooldownKeys(chain.steps.map((step) => step.model))
        const streamTimeout = options.streamTimeout ?? Duration.minutes(10)
        const maxOutputBytes = options.maxOutputBytes ?? 1_000_000
        const tooLong = (bytes: number): AttemptFailure => ({
          outcome: "too_long",
          detail: `the answer passed ${maxOutputBytes} bytes${bytes > maxOutputBytes ? ` (${bytes} read)` : ""}; longer answers are not accepted`
        })

        /** How one step's try ended: its HTML and usage, or why it failed (`sent`: whether HTML went out). */
        type Tried =
          | { readonly _tag: "Served"; readonly html: string; readonly usage: LlmUsage | null }
          | { readonly _tag: "Failed"; readonly failure: AttemptFailure; readonly usage: LlmUsage | null; readonly sent: boolean }
          | { readonly _tag: "Empty"; readonly usage: LlmUsage | null }

        /** The whole answer of one model, sanitized. */
        const tryWhole = (model: LlmProvider["Service"], prompt: string): Effect.Effect<Tried, SanitizerOverloaded> =>
          model.generate({ prompt, system }).pipe(
            Effect.timeoutOrElse({
              duration: timeout,
              orElse: () => Effect.fail(new LlmFailure({ kind: "timeout", detail: `no answer within ${Duration.format(timeout)}` }))
            }),
            Effect.matchEffect({
              onFailure: (failure) => Effect.succeed<Tried>({ _tag: "Failed", failure: llmFailure(failure), usage: null, sent: false }),
              onSuccess: (answer): Effect.Effect<Tried, SanitizerOverloaded> => {
                const bytes = utf8Length(answer.text)
                if (bytes > maxOutputBytes) return Effect.succeed({ _tag: "Failed", failure: tooLong(bytes), usage: answer.usage, sent: false })
                return sanitizer.sanitizeModelOutput(answer.text).pipe(
                  Effect.map((html): Tried => html.trim() === "" ? { _tag: "Empty", usage: answer.usage } : { _tag: "Served", html, usage: answer.usage }),
                  Effect.catchTags({
                    HtmlTooComplex: (refused) => Effect.succeed<Tried>({ _tag: "Failed", failure: refusal(refused), usage: answer.usage, sent: false }),
                    HtmlTooLong: (refused) => Effect.succeed<Tried>({ _tag: "Failed", failure: refusal(refused), usage: answer.usage, sent: false })
                  })
                )
              }
            })
          )

        /** One model's streamed answer, sanitized block by block into `emit`. */
        const tryStreamed = (
          model: LlmProvider["Service"],
          prompt: string,
          emit: (event: GenerationEvent) => Effect.Effect<void>
        ): Effect.Effect<Tried, SanitizerOverloaded> =>
          Effect.suspend(() => {
            const blocks = sanitizer.modelOutputBlocks()
            let usage: LlmUsage | null = null
            let sent = false
            let bytes = 0
            const send = (pieces: ReadonlyArray<string>) =>
              Effect.forEach(pieces, (html) => {
                sent = true
                return emit({ _tag: "Html", html })
              }, { discard: true })
            return model.stream({ prompt, system }).pipe(
              Stream.timeoutOrElse({
                duration: timeout,
                orElse: () => Stream.fail(new LlmFailure({ kind: "timeout", detail: `nothing written for ${Duration.format(timeout)}` }))
              }),
              Stream.runForEach((part): Effect.Effect<void, LlmFailure | AttemptFailure | HtmlTooComplex | HtmlTooLong | SanitizerOverloaded> => {
                if (part._tag === "Usage") {
                  usage = part.usage
                  return Effect.void
                }
                bytes += utf8Length(part.text)
                // Reading stops here: the model's stream is interrupted, its request aborted.
                if (bytes > maxOutputBytes) return Effect.fail(tooLong(bytes))
                return Effect.flatMap(blocks.push(part.text), send)
              }),
              Effect.timeoutOrElse({
                duration: streamTimeout,
                orElse: () => Effect.fail(new LlmFailure({ kind: "timeout", detail: `the answer took longer than ${Duration.format(streamTimeout)}` }))
              }),
              Effect.flatMap(() => blocks.end()),
              Effect.flatMap((end) => {
                if (end.diverged) {
                  // Never expected (modelOutputBlocks is property-tested); the reader must
                  // not take the pieces for the answer.
                  return Effect.succeed<Tried>({
                    _tag: "Failed",
                    failure: { outcome: "bad_response", detail: "the streamed HTML did not match the sanitized answer" },
                    usage,
                    sent: true
                  })
                }
                if (end.html.trim() === "") return Effect.succeed<Tried>({ _tag: "Empty", usage })
                return Effect.as(send(end.blocks), { _tag: "Served", html: end.html, usage } as Tried)
              }),
              Effect.catch((failure): Effect.Effect<Tried, SanitizerOverloaded> =>
                "_tag" in failure
                  ? failure._tag === "SanitizerOverloaded" ? Effect.fail(failure)
                  : Effect.succeed({ _tag: "Failed", failure: failure._tag === "LlmFailure" ? llmFailure(failure) : refusal(failure), usage, sent })
                  : Effect.succeed({ _tag: "Failed", failure, usage, sent })
              )
            )
          })

        /**
         * Tries the chain's steps in order with `tryStep`, reporting each attempt to
         * `onAttempt`; stops at the first success, or at a failure after HTML went out.
         */
        const runChain = Effect.fnUntraced(function*(
          request: GenerateRequest,
          attempts: Array<GenerationAttempt>,
          tryStep: (model: LlmProvider["Service"], prompt: string) => Effect.Effect<Tried, SanitizerOverloaded>,
          onAttempt: (attempt: GenerationAttempt) => Effect.Effect<void>
        ) {
          if (chain.steps.length === 0) return yield* new NoModelConfigured({ hint: chain.whenEmpty })
          const prompt = request.prompt.trim()
          const record = (attempt: GenerationAttempt) => {
            attempts.push(attempt)
            return onAttempt(attempt)
          }
          // One read of every step's cool-down, as an end in this process's clock.
          const readAt = yield* Clock.currentTimeMillis
          const cooling = yield* cooldowns.remaining(keys)
          for (const [index, { model, prices }] of chain.steps.entries()) {
            const key = keys[index]!
            const start = yield* Clock.currentTimeMillis
            const left = cooling.get(key)
            const until = left === undefined ? undefined : readAt + left
            if (until !== undefined && until > start) {
              yield* record({
                provider: model.provider,
                model: model.model,
                outcome: "cooling_down",
                duration_ms: 0,
                detail: `skipped: cooling down for another ${Math.ceil((until - start) / 1000)} s after a failure`,
                usage: null,
                cost_usd: null
              })
              continue
            }
            const tried = yield* tryStep(model, prompt)
            const end = yield* Clock.currentTimeMillis
            const [outcome, detail]: [AttemptOutcome, string | undefined] = tried._tag === "Served" ? ["success", undefined]
              : tried._tag === "Empty" ? ["empty_output", "nothing was left after sanitization"]
              : [tried.failure.outcome, tried.failure.detail]
            const attempt: GenerationAttempt = {
              provider: model.provider,
              model: model.model,
              outcome,
              duration_ms: end - start,
              ...(detail === undefined ? {} : { detail }),
              usage: tried.usage,
              cost_usd: costOf(tried.usage, prices)
            }
            // A failing model is worth knowing about even when the next one serves the
            // call. The attempt holds no key and no provider text.
            if (outcome !== "success") yield* Effect.logWarning("language model attempt failed", attempt)
            yield* record(attempt)
            if (tried._tag === "Served") {
              yield* cooldowns.clear(key)
              return { html: tried.html, provider: model.provider, model: model.model, attempts: [...attempts] } satisfies GeneratedContent
            }
            if (tried._tag === "Failed") {
              if (coolingOutcomes.has(tried.failure.outcome)) {
                const wait = Math.min(tried.failure.retryAfterMillis ?? defaultCooldown, maxCooldown)
                if (wait > 0) yield* cooldowns.coolDown(key, wait)
              }
              if (tried.sent) {
                return yield* new GenerationInterrupted({ provider: model.provider, model: model.model, outcome, attempts: [...attempts] })
              }
            }
          }
          return yield* new GenerationFailed({ attempts: [...attempts] })
        })

        /**
         * Runs the chain, recording its attempts, and logs the generation with its usage
         * and cost once it ends — succeeded, failed, or interrupted (a reader who left: the
         * attempts that had ended by then).
         */
        const runLogged = (
          request: GenerateRequest,
          tryStep: (model: LlmProvider["Service"], prompt: string) => Effect.Effect<Tried, SanitizerOverloaded>,
          onAttempt: (attempt: GenerationAttempt) => Effect.Effect<void>
        ) => {
          const attempts: Array<GenerationAttempt> = []
          return Effect.onExit(runChain(request, attempts, tryStep, onAttempt), (exit) => {
            if (chain.steps.length === 0) return Effect.void
            const sum = (pick: (attempt: GenerationAttempt) => number | null | undefined) =>
              attempts.reduce<number | null>((total, attempt) => {
                const value = pick(attempt)
                return value === null || value === undefined ? total : (total ?? 0) + value
              }, null)
            const cost = sum((attempt) => attempt.cost_usd)
            return Effect.logInfo("language model generation", {
              outcome: Exit.isSuccess(exit) ? "success" : Exit.hasInterrupts(exit) ? "interrupted" : "failed",
              attempts: attempts.map(({ provider, model, outcome, duration_ms, usage, cost_usd }) => ({ provider, model, outcome, duration_ms, usage, cost_usd })),
              input_tokens: sum((attempt) => attempt.usage?.input_tokens),
              output_tokens: sum((attempt) => attempt.usage?.output_tokens),
              cost_usd: cost === null ? null : Math.round(cost * 1e9) / 1e9
            })
          })
        }

        const generate = Effect.fn("ContentGenerator.generate")(function*(request: GenerateRequest) {
          return yield* runLogged(request, tryWhole, () => Effect.void).pipe(
            // A whole answer sends nothing before it is complete, so it is never cut off.
            Effect.catchTag("GenerationInterrupted", (error) => Effect.fail(new GenerationFailed({ attempts: error.attempts })))
          )
        })

        const stream = (
          request: GenerateRequest
        ): Stream.Stream<GenerationEvent, GenerationFailed | GenerationInterrupted | NoModelConfigured | SanitizerOverloaded> =>
          Stream.callback<GenerationEvent, GenerationFailed | GenerationInterrupted | NoModelConfigured | SanitizerOverloaded>((queue) => {
            const emit = (event: GenerationEvent) => Effect.asVoid(Queue.offer(queue, event))
            return runLogged(request, (model, prompt) => tryStreamed(model, prompt, emit), (attempt) => emit({ _tag: "Attempt", attempt })).pipe(
              Effect.flatMap((content) => emit({ _tag: "Done", content })),
              Effect.matchEffect({
                onFailure: (error) => Queue.fail(queue, error),
                onSuccess: () => Queue.end(queue)
              }),
              Effect.withSpan("ContentGenerator.stream")
            )
          }, { bufferSize: 64 })

        return ContentGenerator.of({ generate, stream })
      })
    )
}
