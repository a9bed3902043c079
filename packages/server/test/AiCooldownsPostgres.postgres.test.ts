/**
 * Cool-downs shared by the instances on PostgreSQL, end to end: standalone servers with
 * the real OpenAI and Gemini adapters calling loopback fakes of each provider. Two
 * instances on one database: the 429 one instance saw makes the other skip the model
 * without a request. A database that stops answering (a throw-away cluster, SIGSTOP):
 * generation goes on within the cool-downs' deadline on the process's own view.
 */
import { modelScript, ModelAnswer } from "@coursekit/core/testing"
import { FakeGeminiServer } from "@coursekit/llm-gemini/testing"
import { FakeOpenAiServer } from "@coursekit/llm-openai/testing"
import { PgClient } from "@effect/sql-pg"
import { assert, describe, expect, it, layer } from "@effect/vitest"
import { Context, Duration, Effect, Layer, Option, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import type { ServerSettings } from "../src/ServerConfig.ts"
import * as StandaloneServer from "../src/StandaloneServer.ts"
import { FreezablePostgres, freezablePostgresAvailable } from "./FreezablePostgres.ts"
import { callAt, testSettings, urlOf } from "./TestServer.ts"

const openAiKey = "sk-proj-primary-SECRET-0123456789abcdef"
const geminiKey = "AIzaSy-secondary-SECRET-0123456789abcd"

/** The fake providers, the instances under test, and a client of the test's own on their database. */
class Setup extends Context.Service<Setup, {
  readonly openai: FakeOpenAiServer.FakeOpenAiServer
  readonly gemini: FakeGeminiServer.FakeGeminiServer
  readonly instances: ReadonlyArray<string>
  readonly admin: SqlClient.SqlClient
}>()("test/AiCooldownsPostgres/Setup") {}

/** `count` standalone servers on the database at `databaseUrl`, calling the same two fake models. */
const layerSetup = (databaseUrl: string, count: number, overrides: Partial<ServerSettings> = {}) =>
  Layer.effect(Setup, Effect.gen(function*() {
    const openai = yield* FakeOpenAiServer.start({ script: modelScript(), model: "gpt-test" })
    const gemini = yield* FakeGeminiServer.start({ script: modelScript() })
    const settings = testSettings({
      databaseUrl: Option.some(Redacted.make(databaseUrl)),
      databasePoolSize: 4,
      aiModels: [
        { prefix: "AI_PRIMARY", provider: "openai", model: "gpt-test", apiKey: Option.some(Redacted.make(openAiKey)), baseUrl: Option.some(openai.baseUrl), prices: Option.none() },
        { prefix: "AI_SECONDARY", provider: "google", model: "gemini-test", apiKey: Option.some(Redacted.make(geminiKey)), baseUrl: Option.some(gemini.baseUrl), prices: Option.none() }
      ],
      aiTimeout: Duration.seconds(5),
      aiCooldown: Duration.minutes(1),
      ...overrides
    })
    const instances: Array<string> = []
    for (let i = 0; i < count; i++) {
      const context = yield* Layer.build(StandaloneServer.layerFrom({ ...settings, dataDir: `${settings.dataDir}-${i}` }))
      instances.push(yield* Effect.provide(urlOf, context))
    }
    const admin = yield* Layer.build(PgClient.layer({ url: Redacted.make(databaseUrl), maxConnections: 1 })).pipe(
      Effect.map((context) => Context.get(context, SqlClient.SqlClient))
    )
    return Setup.of({ openai, gemini, instances, admin })
  }))

const generateAt = (url: string) =>
  Effect.map(
    Effect.timed(callAt(url, "/admin/ai/generate", { method: "POST", admin: true, json: { prompt: "A lesson" } })),
    ([elapsed, reply]) => ({ elapsed: Duration.toMillis(elapsed), reply })
  )
const outcomes = (reply: { readonly body: any }): Array<string> =>
  (reply.body.attempts ?? []).map((attempt: { outcome: string }) => attempt.outcome)

const serverUrl = process.env.TEST_DATABASE_URL
const required = process.env.COURSEKIT_REQUIRE_POSTGRES === "1"

if (serverUrl !== undefined) {
  // A database of its own on the test server, dropped when the suite ends.
  const name = `coursekit_ai_cooldowns_${process.pid}_${Math.random().toString(36).slice(2, 8)}`
  const onServer = (statement: (sql: SqlClient.SqlClient) => Effect.Effect<unknown, unknown>) =>
    Effect.flatMap(Effect.service(SqlClient.SqlClient), statement).pipe(
      Effect.provide(PgClient.layer({ url: Redacted.make(serverUrl), maxConnections: 1 })),
      Effect.orDie
    )
  const target = new URL(serverUrl)
  target.pathname = `/${name}`
  const layerTwoInstances = Layer.unwrap(Effect.gen(function*() {
    yield* Effect.acquireRelease(
      onServer((sql) => sql`CREATE DATABASE ${sql(name)}`),
      () => onServer((sql) => sql`DROP DATABASE IF EXISTS ${sql(name)} WITH (FORCE)`)
    )
    return layerSetup(target.toString(), 2)
  }))

  describe("AI cool-downs shared by two instances on one PostgreSQL", () => {
    layer(layerTwoInstances, { timeout: 60_000, excludeTestServices: true })((it) => {
      it.effect("a 429 with Retry-After on instance A: instance B skips the model without a request; once it is over both call it again", () =>
        Effect.gen(function*() {
          const { openai, gemini, instances: [a, b], admin } = yield* Setup
          gemini.script.answerWith(ModelAnswer.text("<p>Secondary.</p>"))
          openai.script.answerWith(ModelAnswer.status(429, 30), ModelAnswer.text("<p>Primary.</p>"))

          const onA = yield* generateAt(a!)
          assert.strictEqual(onA.reply.status, 200, onA.reply.text)
          assert.deepStrictEqual(outcomes(onA.reply), ["rate_limited", "success"])
          assert.strictEqual(openai.script.received.length, 1)

          const onB = yield* generateAt(b!)
          assert.strictEqual(onB.reply.status, 200, onB.reply.text)
          assert.strictEqual(onB.reply.body.provider, "google")
          assert.deepStrictEqual(outcomes(onB.reply), ["cooling_down", "success"])
          assert.match(onB.reply.body.attempts[0].detail, /cooling down for another (29|30) s/)
          assert.strictEqual(openai.script.received.length, 1, "the primary received no request from B")

          // What is stored: the model and where it is served, never a key; the end by the database's clock.
          const rows = yield* admin<{ key: string; left_s: number }>`
            SELECT key, extract(epoch FROM until - now())::float8 AS left_s FROM coursekit.provider_cooldowns`
          assert.deepStrictEqual(rows.map((row) => row.key), [`openai/gpt-test@${openai.baseUrl.replace(/\/+$/, "")}`])
          assert.isAbove(rows[0]!.left_s, 25)
          assert.notInclude(JSON.stringify(rows), "SECRET")

          // Once the cool-down is over (here: cut short in the table), both call the primary again.
          yield* admin`UPDATE coursekit.provider_cooldowns SET until = now() - interval '1 second'`
          for (const url of [b!, a!]) {
            const back = yield* generateAt(url)
            assert.strictEqual(back.reply.body.provider, "openai", url)
          }
          assert.strictEqual(openai.script.received.length, 3)
          // A 503 without Retry-After: the default cool-down, shared too.
          openai.script.answerWith(ModelAnswer.status(503))
          const onA2 = yield* generateAt(a!)
          assert.deepStrictEqual(outcomes(onA2.reply), ["server_error", "success"])
          const onB2 = yield* generateAt(b!)
          assert.deepStrictEqual(outcomes(onB2.reply), ["cooling_down", "success"])
          assert.match(onB2.reply.body.attempts[0].detail, /cooling down for another (59|60) s/)
          assert.strictEqual(openai.script.received.length, 4)
        }))
    })
  })
} else if (required) {
  describe("AI cool-downs shared by two instances on one PostgreSQL", () => {
    it("runs in CI", () => {
      expect.fail("TEST_DATABASE_URL is not set: CI must run the PostgreSQL suite")
    })
  })
}

// The cool-downs' deadline (PgProviderCooldowns' default) and what an answer may take beyond it.
const cooldownsDeadline = 200
const margin = 800

if (freezablePostgresAvailable()) {
  describe("AI cool-downs on a PostgreSQL that stops answering (throw-away cluster, SIGSTOP)", () => {
    const layerFrozen = Layer.unwrap(Effect.map(Effect.service(FreezablePostgres), (cluster) =>
      layerSetup(cluster.url, 1, { databaseTimeout: Duration.seconds(1), logLevel: "None" }))).pipe(
        Layer.provideMerge(FreezablePostgres.layer)
      )
    layer(layerFrozen, { timeout: 120_000, excludeTestServices: true })((it) => {
      it.effect("generation answers within the deadline on the process's own view: earlier and new cool-downs count, no 500", () =>
        Effect.gen(function*() {
          const cluster = yield* FreezablePostgres
          const { openai, gemini, instances: [url] } = yield* Setup
          gemini.script.answerWith(ModelAnswer.text("<p>Secondary.</p>"))
          openai.script.answerWith(ModelAnswer.status(429, 60))
          const before = yield* generateAt(url!)
          assert.deepStrictEqual(outcomes(before.reply), ["rate_limited", "success"])

          yield* cluster.freeze
          yield* Effect.gen(function*() {
            // The first call waits for the deadline once, then answers from the process's view.
            const first = yield* generateAt(url!)
            assert.strictEqual(first.reply.status, 200, first.reply.text)
            assert.deepStrictEqual(outcomes(first.reply), ["cooling_down", "success"])
            assert.isAtLeast(first.elapsed, cooldownsDeadline - 5, "the frozen database was asked first")
            assert.isAtMost(first.elapsed, cooldownsDeadline + margin, "answered late")
            // The database is left alone for a while: no deadline to wait for.
            const second = yield* generateAt(url!)
            assert.deepStrictEqual(outcomes(second.reply), ["cooling_down", "success"])
            assert.isBelow(second.elapsed, cooldownsDeadline, "waited for the database again")
            assert.strictEqual(openai.script.received.length, 1, "the cooling primary received no request")

            // A cool-down set during the outage counts in this process: the secondary's 503
            // makes both cool down, and the next call is a 502 at once, without a request.
            gemini.script.answerWith(ModelAnswer.status(503))
            const failed = yield* generateAt(url!)
            assert.strictEqual(failed.reply.status, 502, failed.reply.text)
            assert.deepStrictEqual(outcomes(failed.reply), ["cooling_down", "server_error"])
            const geminiCalls = gemini.script.received.length
            const skipped = yield* generateAt(url!)
            assert.strictEqual(skipped.reply.status, 502, skipped.reply.text)
            assert.deepStrictEqual(outcomes(skipped.reply), ["cooling_down", "cooling_down"])
            assert.strictEqual(gemini.script.received.length, geminiCalls)
            for (const answer of [failed, skipped]) assert.isAtMost(answer.elapsed, cooldownsDeadline + margin, "answered late")
          }).pipe(Effect.ensuring(cluster.thaw))
        }))
    })
  })
} else if (required) {
  describe("AI cool-downs on a PostgreSQL that stops answering (throw-away cluster, SIGSTOP)", () => {
    it("runs in CI", () => {
      expect.fail("PostgreSQL's server binaries (initdb, postgres) or /proc are missing: CI must run this suite")
    })
  })
}
