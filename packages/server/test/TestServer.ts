/**
 * Starts the real standalone server (PGlite or PostgreSQL) on an ephemeral loopback
 * port for a test file, and small fetch helpers that speak HTTP to it.
 */
import { Context, Duration, Effect, Layer, Option, Redacted } from "effect"
import { HttpServer } from "effect/http"
import { SignJWT } from "jose"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { type ServerSettings, StorageSettings } from "../src/ServerConfig.ts"
import * as StandaloneServer from "../src/StandaloneServer.ts"

export const adminToken = "test-admin-token-0123456789"
/** The HS256 secret of viewer tokens on test servers. */
export const jwtSecret = "test-jwt-secret-0123456789-abcdefghij"

/** Where the server under test listens. */
/** A viewer token for `sub`, signed with the test server's `jwtSecret`, valid for 10 minutes. */
export const viewerToken = (sub: string) =>
  Effect.promise(() =>
    new SignJWT({}).setProtectedHeader({ alg: "HS256" }).setSubject(sub).setIssuedAt().setExpirationTime("10m")
      .sign(new TextEncoder().encode(jwtSecret))
  )

/** The `Authorization` header of a bearer `token`. */
export const bearer = (token: string) => ({ authorization: `Bearer ${token}` })

export class TestServer extends Context.Service<TestServer, { readonly url: string }>()("test/TestServer") {}

/** Settings of a test server: 127.0.0.1:<random>, quiet logs, a fresh data directory. */
export const testSettings = (overrides: Partial<ServerSettings> = {}): ServerSettings => {
  const dataDir = overrides.dataDir ?? mkdtempSync(join(process.env.COURSEKIT_TEST_TMP ?? tmpdir(), "server-"))
  return {
    port: 0,
    host: "127.0.0.1",
    // Derived from the bound port once the server listens.
    publicUrl: "http://127.0.0.1",
    publicUrlConfigured: false,
    dataDir,
    databaseUrl: Option.none(),
    databasePoolSize: 4,
    databaseTimeout: Duration.seconds(5),
    databaseSchema: "coursekit",
    cdnUrl: Option.none(),
    storage: StorageSettings.local({
      dir: join(dataDir, "storage"),
      secret: Option.some(Redacted.make("test-storage-secret-0123456789"))
    }),
    uploadLimits: { thumbnailMaxBytes: 10 * 1024 * 1024, mediaMaxBytes: 50 * 1024 * 1024 },
    uploadGracePeriod: Duration.hours(1),
    uploadSweepInterval: Duration.minutes(10),
    mediaUrlTtl: Duration.hours(4),
    jwtSecret: Option.some(Redacted.make(jwtSecret)),
    jwksUrl: Option.none(),
    jwtIssuer: Option.none(),
    jwtAudience: Option.none(),
    adminTokens: [Redacted.make(adminToken)],
    sessionSecret: Option.none(),
    listCacheEntries: 10_000,
    revisionsKeep: 100,
    requireIfMatch: false,
    aiModels: [],
    aiTimeout: Duration.seconds(30),
    aiCooldown: Duration.seconds(60),
    aiMaxOutputBytes: 1_000_000,
    sanitizer: { workers: 2, maxQueue: 64, timeBudget: Duration.seconds(2), idleTimeout: Duration.seconds(10), maxElements: 100_000 },
    // Off: StudioHttp.test.ts turns it on, with a build of its own.
    studioEnabled: false,
    studioDir: join(dataDir, "studio"),
    logLevel: "Warn",
    logFormat: "json",
    demo: false,
    ...overrides
  }
}

/** The base URL of the standalone server in context. */
export const urlOf = Effect.gen(function*() {
  const server = yield* HttpServer.HttpServer
  const address = server.address
  if (address._tag === "UnixPathAddress") return yield* Effect.die("expected a TCP address")
  return `http://127.0.0.1:${address.port}`
})

/** The standalone server for `overrides` as the {@link TestServer}. */
export const layerTestServer = (overrides: Partial<ServerSettings> = {}) =>
  Layer.effect(TestServer, Effect.map(urlOf, (url) => TestServer.of({ url }))).pipe(
    Layer.provide(StandaloneServer.layerFrom(testSettings(overrides)))
  )

/**
 * The standalone server for `settings` as the {@link TestServer}, with its services
 * (`Uploads`, `UploadSweep`, …) for tests that call them directly: at another moment,
 * or to run the sweep.
 */
export const layerTestServerFrom = (settings: ServerSettings) =>
  Layer.effect(TestServer, Effect.map(urlOf, (url) => TestServer.of({ url }))).pipe(
    Layer.provideMerge(StandaloneServer.layerFrom(settings))
  )

/** A response with its body read once, as JSON when it is JSON. */
export interface Reply {
  readonly status: number
  readonly headers: Headers
  readonly body: any
  readonly text: string
}

/** Sends a request to the server under test. */
export const call = (path: string, init: RequestInit & { json?: unknown; admin?: boolean } = {}) =>
  Effect.gen(function*() {
    const { url } = yield* TestServer
    return yield* callAt(url, path, init)
  })

/** Sends a request to the server at `url`. */
export const callAt = (url: string, path: string, init: RequestInit & { json?: unknown; admin?: boolean } = {}) =>
  Effect.gen(function*() {
    const headers = new Headers(init.headers)
    if (init.admin) headers.set("authorization", `Bearer ${adminToken}`)
    let body = init.body
    if (init.json !== undefined) {
      headers.set("content-type", "application/json")
      body = JSON.stringify(init.json)
    }
    return yield* Effect.promise(async (): Promise<Reply> => {
      const response = await fetch(url + path, { ...init, headers, body: body ?? null })
      const text = await response.text()
      const type = response.headers.get("content-type") ?? ""
      return {
        status: response.status,
        headers: response.headers,
        text,
        body: type.includes("json") && text !== "" ? JSON.parse(text) : text
      }
    })
  })
