import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Option, Redacted } from "effect"
import { settings } from "../src/ServerConfig.ts"

const read = (env: Record<string, string>) => settings.parse(ConfigProvider.fromEnv({ env }))

describe("ServerConfig.settings", () => {
  it.effect("defaults: port 3000, PGlite in ./data, files under the public URL, no tokens", () =>
    Effect.gen(function*() {
      const parsed = yield* read({})
      assert.strictEqual(parsed.port, 3000)
      assert.strictEqual(parsed.host, "0.0.0.0")
      assert.strictEqual(parsed.publicUrl, "http://localhost:3000")
      assert.isFalse(parsed.publicUrlConfigured)
      assert.strictEqual(parsed.cdnUrl, "http://localhost:3000/files")
      assert.strictEqual(parsed.dataDir, "./data")
      assert.isTrue(Option.isNone(parsed.databaseUrl))
      assert.deepStrictEqual(parsed.adminTokens, [])
      assert.strictEqual(parsed.listCacheEntries, 10_000)
      assert.strictEqual(parsed.logLevel, "Info")
    }))

  it.effect("reads every variable; trims URLs and splits ADMIN_TOKENS", () =>
    Effect.gen(function*() {
      const parsed = yield* read({
        PORT: "8080",
        HOST: "127.0.0.1",
        PUBLIC_URL: "https://courses.example.com/",
        DATA_DIR: "/var/lib/coursekit",
        DATABASE_URL: "postgres://u:p@db/coursekit",
        DATABASE_POOL_SIZE: "25",
        CDN_URL: "https://cdn.example.com/",
        ADMIN_TOKENS: " first-token , ,second-token ",
        LIST_CACHE_ENTRIES: "0",
        LOG_LEVEL: "Warn"
      })
      assert.strictEqual(parsed.port, 8080)
      assert.strictEqual(parsed.publicUrl, "https://courses.example.com")
      assert.isTrue(parsed.publicUrlConfigured)
      assert.strictEqual(parsed.cdnUrl, "https://cdn.example.com")
      assert.strictEqual(Option.map(parsed.databaseUrl, Redacted.value).pipe(Option.getOrThrow), "postgres://u:p@db/coursekit")
      assert.strictEqual(parsed.databasePoolSize, 25)
      assert.deepStrictEqual(parsed.adminTokens.map(Redacted.value), ["first-token", "second-token"])
      assert.strictEqual(parsed.listCacheEntries, 0)
      assert.strictEqual(parsed.logLevel, "Warn")
    }))

  it.effect("PORT=0 is accepted; out-of-range or malformed values name the variable", () =>
    Effect.gen(function*() {
      assert.strictEqual((yield* read({ PORT: "0" })).port, 0)
      for (const [name, value] of [["PORT", "70000"], ["PORT", "abc"], ["LIST_CACHE_ENTRIES", "-1"], ["PUBLIC_URL", "not a url"]] as const) {
        const error = yield* Effect.flip(read({ [name]: value }))
        assert.include(String(error), name)
      }
    }))
})
