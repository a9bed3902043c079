import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { RequestLogger } from "../src/index.ts"

const entry = (n: number) => ({ requestId: `id-${n}`, method: "GET", path: `/p"${n}`, status: n === 2 ? 503 : 200, durationMs: 1.5 })

describe("RequestLogger.layerJsonLines", () => {
  it.live("batches one turn's lines into one write of valid JSON lines", () =>
    Effect.gen(function*() {
      const writes: Array<string> = []
      yield* Effect.scoped(Effect.gen(function*() {
        const logger = yield* Layer.build(RequestLogger.layerJsonLines((chunk) => writes.push(chunk))).pipe(
          Effect.map((context) => Context.get(context, RequestLogger))
        )
        for (let n = 1; n <= 3; n++) logger.log(entry(n))
        assert.strictEqual(writes.length, 0)
        yield* Effect.promise(() => new Promise((done) => setImmediate(done)))
        assert.strictEqual(writes.length, 1)
        logger.log(entry(4))
      }))
      // Releasing the layer flushes what is left.
      assert.strictEqual(writes.length, 2)
      const lines = writes.join("").trimEnd().split("\n").map((line) => JSON.parse(line))
      assert.deepStrictEqual(lines.map((line) => line.annotations.requestId), ["id-1", "id-2", "id-3", "id-4"])
      assert.strictEqual(lines[0].message, `GET /p"1 200`)
      assert.strictEqual(lines[1].level, "ERROR")
      assert.strictEqual(lines[0].level, "INFO")
      assert.strictEqual(lines[2].annotations.durationMs, 1.5)
    }))
})
