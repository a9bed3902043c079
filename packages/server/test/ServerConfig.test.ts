import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Duration, Effect, Option, Redacted } from "effect"
import { existsSync, readFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { defaultStudioDir, settings, StorageSettings } from "../src/ServerConfig.ts"
import * as WorkerHtmlSanitizer from "../src/WorkerHtmlSanitizer.ts"

const read = (env: Record<string, string>) => settings.parse(ConfigProvider.fromEnv({ env }))

describe("ServerConfig.settings", () => {
  it.effect("defaults: port 3000, PGlite in ./data, files under the public URL, no tokens", () =>
    Effect.gen(function*() {
      const parsed = yield* read({})
      assert.strictEqual(parsed.port, 3000)
      assert.strictEqual(parsed.host, "0.0.0.0")
      assert.strictEqual(parsed.publicUrl, "http://localhost:3000")
      assert.isFalse(parsed.publicUrlConfigured)
      assert.deepStrictEqual(parsed.cdnUrl, Option.none())
      assert.strictEqual(parsed.dataDir, "./data")
      assert.deepStrictEqual(parsed.storage, StorageSettings.local({ dir: "./data/storage", secret: Option.none() }))
      // Media up to 50 GiB in parts; one PUT at most 5 GiB − 5 MiB (R2's limit).
      assert.deepStrictEqual(parsed.uploadLimits, {
        thumbnailMaxBytes: 10 * 1024 * 1024,
        mediaMaxBytes: 50 * 1024 * 1024 * 1024,
        singlePutMaxBytes: 5 * 1024 * 1024 * 1024 - 5 * 1024 * 1024
      })
      assert.strictEqual(Duration.toMillis(parsed.uploadGracePeriod), 3_600_000)
      assert.strictEqual(Duration.toMillis(parsed.uploadSweepInterval), 600_000)
      assert.deepStrictEqual(parsed.databaseUrl, Option.none())
      assert.strictEqual(Duration.toMillis(parsed.databaseTimeout), 5_000)
      assert.strictEqual(parsed.databaseSchema, "coursekit")
      assert.deepStrictEqual(parsed.adminTokens, [])
      assert.deepStrictEqual(parsed.sessionSecret, Option.none())
      assert.strictEqual(parsed.listCacheEntries, 10_000)
      assert.strictEqual(parsed.logLevel, "Info")
      assert.strictEqual(parsed.logFormat, "auto")
      assert.deepStrictEqual(parsed.jwtSecret, Option.none())
      assert.deepStrictEqual(parsed.jwksUrl, Option.none())
      assert.deepStrictEqual(parsed.aiModels, [])
      assert.strictEqual(Duration.toMillis(parsed.aiTimeout), 30_000)
      assert.strictEqual(Duration.toMillis(parsed.aiCooldown), 60_000)
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
        DATABASE_TIMEOUT_MS: "2500",
        CDN_URL: "https://cdn.example.com/",
        ADMIN_TOKENS: " first-token , ,second-token ",
        SESSION_SECRET: "session-secret-0123456789-0123456789",
        LIST_CACHE_ENTRIES: "0",
        LOG_LEVEL: "Warn",
        LOG_FORMAT: "json",
        STORAGE: "s3",
        S3_ENDPOINT: "http://127.0.0.1:9000",
        S3_REGION: "eu-central-1",
        S3_BUCKET: "course-files",
        S3_ACCESS_KEY_ID: "AKIAEXAMPLE",
        S3_SECRET_ACCESS_KEY: "s3-secret",
        S3_FORCE_PATH_STYLE: "true",
        S3_PUBLIC_URL: "https://files.example.com",
        UPLOAD_THUMBNAIL_MAX_BYTES: "1000",
        UPLOAD_MEDIA_MAX_BYTES: "2000",
        UPLOAD_SINGLE_PUT_MAX_BYTES: "1500",
        UPLOAD_GRACE_PERIOD: "30 minutes",
        UPLOAD_SWEEP_INTERVAL: "5 minutes",
        JWT_SECRET: "a-viewer-token-secret-of-32-chars!",
        JWKS_URL: "https://id.example.com/.well-known/jwks.json",
        JWT_ISSUER: "https://id.example.com/",
        JWT_AUDIENCE: "coursekit"
      })
      assert.strictEqual(parsed.port, 8080)
      assert.strictEqual(parsed.publicUrl, "https://courses.example.com")
      assert.isTrue(parsed.publicUrlConfigured)
      assert.strictEqual(Option.getOrThrow(parsed.cdnUrl), "https://cdn.example.com")
      const s3 = parsed.storage._tag === "s3" ? parsed.storage : assert.fail(`STORAGE=s3 read as ${parsed.storage._tag}`)
      assert.deepStrictEqual({ ...s3, credentials: undefined }, {
        _tag: "s3",
        endpoint: "http://127.0.0.1:9000",
        region: "eu-central-1",
        bucket: "course-files",
        credentials: undefined,
        forcePathStyle: true,
        publicBaseUrl: "https://files.example.com"
      })
      assert.strictEqual(s3.credentials?.accessKeyId, "AKIAEXAMPLE")
      assert.strictEqual(s3.credentials && Redacted.value(s3.credentials.secretAccessKey), "s3-secret")
      assert.deepStrictEqual(parsed.uploadLimits, { thumbnailMaxBytes: 1000, mediaMaxBytes: 2000, singlePutMaxBytes: 1500 })
      assert.strictEqual(Duration.toMillis(parsed.uploadGracePeriod), 1_800_000)
      assert.strictEqual(Duration.toMillis(parsed.uploadSweepInterval), 300_000)
      assert.strictEqual(Option.map(parsed.databaseUrl, Redacted.value).pipe(Option.getOrThrow), "postgres://u:p@db/coursekit")
      assert.strictEqual(parsed.databasePoolSize, 25)
      assert.strictEqual(Duration.toMillis(parsed.databaseTimeout), 2_500)
      assert.deepStrictEqual(parsed.adminTokens.map(Redacted.value), ["first-token", "second-token"])
      assert.strictEqual(Option.map(parsed.sessionSecret, Redacted.value).pipe(Option.getOrUndefined), "session-secret-0123456789-0123456789")
      assert.strictEqual(parsed.listCacheEntries, 0)
      assert.strictEqual(parsed.logLevel, "Warn")
      assert.strictEqual(parsed.logFormat, "json")
      assert.strictEqual(Option.map(parsed.jwtSecret, Redacted.value).pipe(Option.getOrThrow), "a-viewer-token-secret-of-32-chars!")
      assert.strictEqual(Option.getOrThrow(parsed.jwksUrl), "https://id.example.com/.well-known/jwks.json")
      assert.strictEqual(Option.getOrThrow(parsed.jwtIssuer), "https://id.example.com/")
      assert.strictEqual(Option.getOrThrow(parsed.jwtAudience), "coursekit")
    }))

  it.effect("the local store: STORAGE_DIR and STORAGE_SECRET; STORAGE_DIR defaults to <DATA_DIR>/storage", () =>
    Effect.gen(function*() {
      const local = (yield* read({ STORAGE: "local", STORAGE_DIR: "/srv/files", STORAGE_SECRET: "a-signing-key" })).storage
      const { dir, secret } = local._tag === "local" ? local : assert.fail(`STORAGE=local read as ${local._tag}`)
      assert.strictEqual(dir, "/srv/files")
      assert.strictEqual(Redacted.value(Option.getOrThrow(secret)), "a-signing-key")
      assert.deepStrictEqual((yield* read({ DATA_DIR: "/var/lib/coursekit/" })).storage, StorageSettings.local({
        dir: "/var/lib/coursekit/storage",
        secret: Option.none()
      }))
    }))

  it.effect("the Studio: served by default from packages/studio/dist; STUDIO_ENABLED=false turns it off, STUDIO_DIR moves it", () =>
    Effect.gen(function*() {
      const defaults = yield* read({})
      assert.isTrue(defaults.studioEnabled)
      assert.strictEqual(defaults.studioDir, defaultStudioDir)
      // Where `npm run build` writes it: beside this package, found the same way from src/ and from dist/.
      assert.strictEqual(defaultStudioDir, resolve(import.meta.dirname, "../../studio/dist"))
      assert.strictEqual(JSON.parse(readFileSync(join(defaultStudioDir, "..", "package.json"), "utf8")).name, "@coursekit/studio")
      assert.isTrue(existsSync(join(defaultStudioDir, "..", "vite.config.ts")))
      const moved = yield* read({ STUDIO_ENABLED: "false", STUDIO_DIR: "/srv/studio" })
      assert.isFalse(moved.studioEnabled)
      assert.strictEqual(moved.studioDir, "/srv/studio")
      // Empty is unset, as for the other variables.
      assert.strictEqual((yield* read({ STUDIO_DIR: "" })).studioDir, defaultStudioDir)
      assert.include(String(yield* Effect.flip(read({ STUDIO_ENABLED: "maybe" }))), "STUDIO_ENABLED")
    }))

  it.effect("PORT=0 is accepted; out-of-range or malformed values name the variable", () =>
    Effect.gen(function*() {
      assert.strictEqual((yield* read({ PORT: "0" })).port, 0)
      for (
        const [name, value] of [
          ["PORT", "70000"],
          ["PORT", "abc"],
          ["LIST_CACHE_ENTRIES", "-1"],
          ["DATABASE_TIMEOUT_MS", "99"],
          ["DATABASE_TIMEOUT_MS", "600001"],
          ["DATABASE_TIMEOUT_MS", "5s"],
          ["PUBLIC_URL", "not a url"],
          ["STORAGE", "ftp"],
          ["UPLOAD_MEDIA_MAX_BYTES", "0"],
          ["UPLOAD_SINGLE_PUT_MAX_BYTES", "-1"],
          ["UPLOAD_GRACE_PERIOD", "soon"],
          ["JWKS_URL", "not a url"]
        ] as const
      ) {
        const error = yield* Effect.flip(read({ [name]: value }))
        assert.include(String(error), name)
      }
    }))

  it.effect("the HTML sanitizer and the model output cap: defaults, every variable read, a bad value naming its variable", () =>
    Effect.gen(function*() {
      const defaults = yield* read({})
      assert.deepStrictEqual(defaults.sanitizer, {
        workers: WorkerHtmlSanitizer.defaultWorkers(),
        maxQueue: 64,
        timeBudget: Duration.millis(2_000),
        idleTimeout: Duration.millis(10_000),
        maxElements: 100_000
      })
      assert.strictEqual(defaults.aiMaxOutputBytes, 1_000_000)
      const set = yield* read({
        SANITIZER_WORKERS: "3",
        SANITIZER_QUEUE: "0",
        SANITIZER_TIME_BUDGET_MS: "500",
        SANITIZER_IDLE_MS: "0",
        SANITIZER_MAX_ELEMENTS: "5000",
        AI_MAX_OUTPUT_BYTES: "2000000"
      })
      assert.deepStrictEqual(set.sanitizer, {
        workers: 3,
        maxQueue: 0,
        timeBudget: Duration.millis(500),
        idleTimeout: Duration.millis(0),
        maxElements: 5_000
      })
      assert.strictEqual(set.aiMaxOutputBytes, 2_000_000)
      for (const [name, value] of [["SANITIZER_WORKERS", "0"], ["SANITIZER_QUEUE", "-1"], ["SANITIZER_TIME_BUDGET_MS", "0"], ["SANITIZER_MAX_ELEMENTS", "1.5"], ["AI_MAX_OUTPUT_BYTES", "lots"]] as const) {
        const error = yield* Effect.flip(read({ [name]: value }))
        assert.include(String(error), name)
      }
    }))

  it.effect("DATABASE_SCHEMA: a lower-case name of letters, digits and _; anything else is refused, naming the variable", () =>
    Effect.gen(function*() {
      assert.strictEqual((yield* read({ DATABASE_SCHEMA: "staging_2" })).databaseSchema, "staging_2")
      for (const value of ["Staging", "tenant-a", "a.b", "pg_catalog", "9lives", "x".repeat(64), "a\u0000b"]) {
        const error = yield* Effect.flip(read({ DATABASE_SCHEMA: value }))
        assert.include(String(error), "DATABASE_SCHEMA")
        assert.include(String(error), "is not a schema name Coursekit accepts")
      }
    }))

  it.effect("S3 variables: read only with STORAGE=s3; S3_BUCKET required; both keys or neither", () =>
    Effect.gen(function*() {
      const local = yield* read({ S3_FORCE_PATH_STYLE: "perhaps" })
      assert.strictEqual(local.storage._tag, "local")
      const defaults = (yield* read({ STORAGE: "s3", S3_BUCKET: "b" })).storage
      assert.deepStrictEqual(defaults, {
        _tag: "s3",
        endpoint: undefined,
        region: "us-east-1",
        bucket: "b",
        credentials: undefined,
        forcePathStyle: false,
        publicBaseUrl: undefined
      })
      assert.include(String(yield* Effect.flip(read({ STORAGE: "s3" }))), "S3_BUCKET")
      assert.include(
        String(yield* Effect.flip(read({ STORAGE: "s3", S3_BUCKET: "b", S3_ACCESS_KEY_ID: "AKIA" }))),
        "S3_SECRET_ACCESS_KEY"
      )
      assert.include(
        String(yield* Effect.flip(read({ STORAGE: "s3", S3_BUCKET: "b", S3_SECRET_ACCESS_KEY: "x" }))),
        "S3_ACCESS_KEY_ID"
      )
      assert.include(String(yield* Effect.flip(read({ STORAGE: "s3", S3_BUCKET: "b", S3_FORCE_PATH_STYLE: "perhaps" }))), "S3_FORCE_PATH_STYLE")
    }))

  it.effect("AI models: AI_PRIMARY_*, AI_SECONDARY_* and AI_STEP_<n>_* in order; timeout and cool-down", () =>
    Effect.gen(function*() {
      const parsed = yield* read({
        AI_PRIMARY_PROVIDER: "openai",
        AI_PRIMARY_MODEL: "gpt-4o-mini",
        AI_PRIMARY_API_KEY: "sk-primary",
        AI_SECONDARY_PROVIDER: "google",
        AI_SECONDARY_MODEL: "gemini-2.5-flash",
        AI_SECONDARY_API_KEY: "AIza-secondary",
        AI_SECONDARY_BASE_URL: "https://gemini-proxy.example.com/",
        AI_STEP_3_PROVIDER: "openai",
        AI_STEP_3_MODEL: "llama3.2",
        AI_STEP_3_BASE_URL: "http://localhost:11434/v1",
        AI_SECONDARY_PRICE_INPUT: "0.30",
        AI_SECONDARY_PRICE_OUTPUT: "2.5",
        AI_TIMEOUT_MS: "12000",
        AI_COOLDOWN_MS: "0"
      })
      assert.deepStrictEqual(
        parsed.aiModels.map((model) => [model.prefix, model.provider, model.model, Option.getOrUndefined(model.baseUrl)]),
        [
          ["AI_PRIMARY", "openai", "gpt-4o-mini", undefined],
          ["AI_SECONDARY", "google", "gemini-2.5-flash", "https://gemini-proxy.example.com"],
          ["AI_STEP_3", "openai", "llama3.2", "http://localhost:11434/v1"]
        ]
      )
      assert.deepStrictEqual(parsed.aiModels.map((model) => Option.map(model.apiKey, Redacted.value).pipe(Option.getOrUndefined)), [
        "sk-primary",
        "AIza-secondary",
        undefined
      ])
      assert.deepStrictEqual(parsed.aiModels.map((model) => Option.getOrUndefined(model.prices)), [
        undefined,
        { inputPerMillion: 0.3, outputPerMillion: 2.5 },
        undefined
      ])
      assert.strictEqual(Duration.toMillis(parsed.aiTimeout), 12_000)
      assert.strictEqual(Duration.toMillis(parsed.aiCooldown), 0)
    }))

  it.effect("AI models: a missing model or key, a gap, an unknown provider or a bad number names the variable", () =>
    Effect.gen(function*() {
      const primary = { AI_PRIMARY_PROVIDER: "openai", AI_PRIMARY_MODEL: "m", AI_PRIMARY_API_KEY: "sk-x" }
      const cases: ReadonlyArray<readonly [Record<string, string>, string]> = [
        [{ AI_PRIMARY_PROVIDER: "openai", AI_PRIMARY_API_KEY: "sk-x" }, "AI_PRIMARY_MODEL"],
        [{ AI_PRIMARY_PROVIDER: "openai", AI_PRIMARY_MODEL: "m" }, "AI_PRIMARY_API_KEY"],
        [{ AI_PRIMARY_PROVIDER: "google", AI_PRIMARY_MODEL: "m", AI_PRIMARY_BASE_URL: "http://localhost:1" }, "AI_PRIMARY_API_KEY"],
        [{ AI_PRIMARY_PROVIDER: "anthropic", AI_PRIMARY_MODEL: "m" }, "AI_PRIMARY_PROVIDER"],
        [{ ...primary, AI_PRIMARY_BASE_URL: "not a url" }, "AI_PRIMARY_BASE_URL"],
        [{ AI_SECONDARY_PROVIDER: "openai", AI_SECONDARY_MODEL: "m", AI_SECONDARY_API_KEY: "k" }, "AI_PRIMARY_PROVIDER is not"],
        [{ ...primary, AI_STEP_3_PROVIDER: "openai", AI_STEP_3_MODEL: "m", AI_STEP_3_API_KEY: "k" }, "AI_SECONDARY_PROVIDER is not"],
        [{ AI_TIMEOUT_MS: "0" }, "AI_TIMEOUT_MS"],
        [{ AI_COOLDOWN_MS: "-1" }, "AI_COOLDOWN_MS"],
        [{ ...primary, AI_PRIMARY_PRICE_INPUT: "0.15" }, "AI_PRIMARY_PRICE_INPUT and AI_PRIMARY_PRICE_OUTPUT are set together"],
        [{ ...primary, AI_PRIMARY_PRICE_OUTPUT: "0.6" }, "AI_PRIMARY_PRICE_INPUT and AI_PRIMARY_PRICE_OUTPUT are set together"],
        [{ ...primary, AI_PRIMARY_PRICE_INPUT: "cheap", AI_PRIMARY_PRICE_OUTPUT: "0.6" }, "AI_PRIMARY_PRICE_INPUT"],
        [{ ...primary, AI_PRIMARY_PRICE_INPUT: "-1", AI_PRIMARY_PRICE_OUTPUT: "0.6" }, "AI_PRIMARY_PRICE_INPUT"],
        [{ ...primary, AI_PRIMARY_PRICE_INPUT: "0.15", AI_PRIMARY_PRICE_OUTPUT: "Infinity" }, "AI_PRIMARY_PRICE_OUTPUT"]
      ]
      for (const [env, named] of cases) {
        const error = String(yield* Effect.flip(read(env)))
        assert.include(error, named, JSON.stringify(env))
        // The error never repeats a key.
        assert.notInclude(error, "sk-x")
      }
      // A self-hosted OpenAI-compatible endpoint may go without a key.
      const ollama = yield* read({ AI_PRIMARY_PROVIDER: "openai", AI_PRIMARY_MODEL: "llama3.2", AI_PRIMARY_BASE_URL: "http://localhost:11434/v1" })
      assert.deepStrictEqual(ollama.aiModels[0]!.apiKey, Option.none())
    }))
})
