import { assert, describe, layer } from "@effect/vitest"
import { Context, Effect, Layer, Option } from "effect"
import { exportJWK, generateKeyPair, SignJWT } from "jose"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { call, layerTestServer } from "./TestServer.ts"

// Viewer tokens signed with RS256 and ES256 keys published as a JWKS by an identity
// provider (a loopback server here), with issuer and audience checks.

type Keys = Awaited<ReturnType<typeof generateKeyPair>>

class Provider extends Context.Service<Provider, {
  readonly url: string
  readonly rsa: Keys
  readonly ec: Keys
  readonly stranger: Keys
  readonly setUp: (up: boolean) => void
}>()("test/Provider") {}

const layerProvider = (startUp = true) => Layer.effect(Provider, Effect.gen(function*() {
  const [rsa, ec, stranger] = yield* Effect.promise(() =>
    Promise.all([generateKeyPair("RS256"), generateKeyPair("ES256"), generateKeyPair("RS256")])
  )
  const keys = yield* Effect.promise(async () => [
    { ...(await exportJWK(rsa.publicKey)), kid: "rsa-1", alg: "RS256", use: "sig" },
    { ...(await exportJWK(ec.publicKey)), kid: "ec-1", alg: "ES256", use: "sig" }
  ])
  let up = startUp
  const server = yield* Effect.acquireRelease(
    Effect.callback<http.Server>((resume) => {
      const server = http.createServer((request, response) => {
        if (!up) return void response.writeHead(503).end()
        response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ keys }))
      })
      server.listen(0, "127.0.0.1", () => resume(Effect.succeed(server)))
    }),
    (server) => Effect.callback<void>((resume) => void server.close(() => resume(Effect.void)))
  )
  return Provider.of({
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/.well-known/jwks.json`,
    rsa,
    ec,
    stranger,
    setUp: (next) => void (up = next)
  })
}))

const issuer = "https://id.example.com/"
const audience = "coursekit"

const sign = (alg: "RS256" | "ES256", kid: string, key: Keys["privateKey"], claims: { iss?: string; aud?: string } = {}) =>
  Effect.promise(() =>
    new SignJWT({})
      .setProtectedHeader({ alg, kid })
      .setSubject("idp|student-42")
      .setIssuer(claims.iss ?? issuer)
      .setAudience(claims.aud ?? audience)
      .setIssuedAt()
      .setExpirationTime("5m")
      .sign(key)
  )

const layerServer = (providerUp = true) => Layer.unwrap(Effect.gen(function*() {
  const provider = yield* Provider
  return layerTestServer({
    jwtSecret: Option.none(),
    jwksUrl: Option.some(provider.url),
    jwtIssuer: Option.some(issuer),
    jwtAudience: Option.some(audience)
  })
})).pipe(Layer.provideMerge(layerProvider(providerUp)))

describe("viewer tokens from a JWKS (RS256, ES256)", () => {
  layer(layerServer(), { timeout: 60_000, excludeTestServices: true })((it) => {
    it.effect("RS256 and ES256 tokens from the provider are viewers; a buyer sees the locked lesson", () =>
      Effect.gen(function*() {
        const provider = yield* Provider
        const course = (yield* call("/courses", { method: "POST", admin: true, json: { title: "JWKS course", content_html: "" } })).body
        yield* call(`/courses/${course.id}/lessons`, { method: "POST", admin: true, json: { title: "Paid", content_html: "<p>PAID</p>" } })
        yield* call(`/admin/courses/${course.id}/purchases/${encodeURIComponent("idp|student-42")}`, { method: "PUT", admin: true })
        for (const token of [yield* sign("RS256", "rsa-1", provider.rsa.privateKey), yield* sign("ES256", "ec-1", provider.ec.privateKey)]) {
          const reply = yield* call(`/public/courses/${course.slug}`, { headers: { authorization: `Bearer ${token}` } })
          assert.strictEqual(reply.status, 200, reply.text)
          assert.isTrue(reply.body.purchased)
          assert.strictEqual(reply.body.lessons[0].content_html, "<p>PAID</p>")
        }
      }))

    it.effect("a key the provider never published, another issuer or audience, or an HS256 token is 401", () =>
      Effect.gen(function*() {
        const provider = yield* Provider
        const course = (yield* call("/courses", { method: "POST", admin: true, json: { title: "JWKS refusals", content_html: "" } })).body
        const hs256 = yield* Effect.promise(() =>
          new SignJWT({}).setProtectedHeader({ alg: "HS256" }).setSubject("idp|x").setExpirationTime("5m").sign(new TextEncoder().encode("x".repeat(40)))
        )
        for (
          const token of [
            yield* sign("RS256", "rsa-1", provider.stranger.privateKey),
            yield* sign("RS256", "rsa-unknown", provider.stranger.privateKey),
            yield* sign("RS256", "rsa-1", provider.rsa.privateKey, { iss: "https://evil.example.com/" }),
            yield* sign("ES256", "ec-1", provider.ec.privateKey, { aud: "another-app" }),
            hs256
          ]
        ) {
          const reply = yield* call(`/public/courses/${course.slug}`, { headers: { authorization: `Bearer ${token}` } })
          assert.strictEqual(reply.status, 401, reply.text)
        }
      }))
  })
})

describe("viewer tokens from a JWKS whose server is down", () => {
  layer(layerServer(false), { timeout: 60_000, excludeTestServices: true })((it) => {
    it.effect("a token is a 503 (not a 401, not anonymous) while the keys cannot be fetched; then service resumes", () =>
      Effect.gen(function*() {
        const provider = yield* Provider
        const course = (yield* call("/courses", { method: "POST", admin: true, json: { title: "JWKS outage", content_html: "" } })).body
        const token = yield* sign("RS256", "rsa-1", provider.rsa.privateKey)
        const down = yield* call(`/public/courses/${course.slug}`, { headers: { authorization: `Bearer ${token}` } })
        assert.strictEqual(down.status, 503, down.text)
        assert.strictEqual(down.headers.get("content-type"), "application/problem+json")
        assert.strictEqual((yield* call(`/public/courses/${course.slug}`)).status, 200, "anonymous readers are not affected")
        provider.setUp(true)
        const ok = yield* call(`/public/courses/${course.slug}`, { headers: { authorization: `Bearer ${token}` } })
        assert.strictEqual(ok.status, 200, ok.text)
        assert.isFalse(ok.body.purchased)
      }))
  })
})
