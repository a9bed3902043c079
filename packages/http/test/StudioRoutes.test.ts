/**
 * Coursekit Studio served by an embedding host: under its prefix through `webHandler`,
 * `nodeHandler` and the Express, Fastify and Hono adapters (`studio: { dir }`), its
 * policy naming the store's origins the services provide and the video players of the
 * host's allow-list; and the policy and page rewriting on their own. The standalone
 * server's Studio is tested over HTTP in the server package (StudioHttp.test.ts).
 */
import { defaultAllowList, mergeAllowLists, MemoryCoursekit } from "@coursekit/core"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import express from "express"
import Fastify from "fastify"
import { Hono } from "hono"
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { anonymousIdentity, CoursekitHttp, StoreOrigins } from "../src/index.ts"
import { coursekit } from "../src/frameworks/Express.ts"
import { coursekitPlugin } from "../src/frameworks/Fastify.ts"
import { coursekitHono } from "../src/frameworks/Hono.ts"
import { contentSecurityPolicy, videoPlayerOrigins } from "../src/studio/StudioContentPolicy.ts"
import { contentTypeOf } from "../src/studio/internal/ContentTypes.ts"
import { withBase } from "../src/studio/internal/PageBase.ts"

const indexHtml = `<!doctype html><html><head><meta charset="utf-8"><script type="module" src="./assets/app-abc123.js"></script></head><body></body></html>`
const script = "console.log(1)\n"

/** A built Studio in a fresh directory. */
const fakeBuild = () => {
  const dir = mkdtempSync(join(process.env.COURSEKIT_TEST_TMP ?? tmpdir(), "studio-"))
  mkdirSync(join(dir, "assets"))
  writeFileSync(join(dir, "index.html"), indexHtml)
  writeFileSync(join(dir, "assets", "app-abc123.js"), script)
  return dir
}

const youtubeAndVimeo =
  "https://www.youtube.com https://youtube.com https://www.youtube-nocookie.com https://youtube-nocookie.com https://player.vimeo.com"

/** The inline styles React Aria writes, by their hashes: nothing else inline (`reactAriaStyles`). */
const reactAriaStyleHashes = "'sha256-38RhXrc7EdReTKsOm23ZPOCUgniTUUcjky8QOOrQx6o=' 'sha256-gYiS/BvZvRcK27JIXTuwhZ3hs2+VJ1X+2gUlE+farlg='"

/** The policy with no store origins beyond the page's own. */
const plainPolicy =
  `default-src 'self'; script-src 'self'; style-src 'self' ${reactAriaStyleHashes}; img-src 'self' data: blob:; media-src 'self' blob:; connect-src 'self'; ` +
  `frame-src ${youtubeAndVimeo}; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'self'`

/** What every host must get right under `prefix`, against `send`. */
const exerciseStudio = (send: (path: string) => Promise<Response>, prefix: string) =>
  Effect.promise(async () => {
    const bare = await send(`${prefix}/studio`)
    assert.strictEqual(bare.status, 301)
    assert.strictEqual(bare.headers.get("location"), "studio/")
    assert.strictEqual(new URL(bare.headers.get("location")!, `http://host.example${prefix}/studio`).pathname, `${prefix}/studio/`)
    const page = await send(`${prefix}/studio/`)
    assert.strictEqual(page.status, 200)
    assert.strictEqual(page.headers.get("cache-control"), "no-cache")
    assert.strictEqual(page.headers.get("content-security-policy"), plainPolicy)
    assert.strictEqual(await page.text(), indexHtml.replace("<head>", `<head><base href="./">`))
    const route = await send(`${prefix}/studio/courses/12`)
    assert.strictEqual(await route.text(), indexHtml.replace("<head>", `<head><base href="../">`))
    const asset = await send(`${prefix}/studio/assets/app-abc123.js`)
    assert.strictEqual(asset.status, 200)
    assert.strictEqual(asset.headers.get("content-type"), "text/javascript; charset=utf-8")
    assert.strictEqual(asset.headers.get("cache-control"), "public, max-age=31536000, immutable")
    assert.strictEqual(await asset.text(), script)
  })

const listen = (server: Server) =>
  Effect.acquireRelease(
    Effect.promise(() => new Promise<string>((resolve) => server.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)))),
    () => Effect.promise(() => new Promise<void>((done) => server.close(() => done())))
  )

describe("Coursekit Studio in a host app", () => {
  it.effect("webHandler serves it under the prefix; identify is never asked for its files", () =>
    Effect.gen(function*() {
      let identified = 0
      const { dispose, handler } = CoursekitHttp.webHandler(CoursekitHttp.layerHostServices(MemoryCoursekit.layerMemory()), {
        prefix: "/api/coursekit",
        identify: () => {
          identified++
          return anonymousIdentity
        },
        studio: { dir: fakeBuild() }
      })
      yield* exerciseStudio((path) => handler(new Request(`http://host.example${path}`)), "/api/coursekit")
      assert.strictEqual(identified, 0)
      // The API beside it is unchanged (its catalogue read asks who is reading).
      assert.strictEqual((yield* Effect.promise(() => handler(new Request("http://host.example/api/coursekit/courses")))).status, 200)
      assert.strictEqual(identified, 1)
      // Outside the prefix it is not there.
      assert.strictEqual((yield* Effect.promise(() => handler(new Request("http://host.example/studio/")))).status, 404)
      yield* Effect.promise(dispose)
    }))

  it.effect("without `studio`, a host serves no Studio", () =>
    Effect.gen(function*() {
      const { dispose, handler } = CoursekitHttp.webHandler(CoursekitHttp.layerHostServices(MemoryCoursekit.layerMemory()), { prefix: "/ck" })
      const reply = yield* Effect.promise(() => handler(new Request("http://host.example/ck/studio/")))
      assert.strictEqual(reply.status, 404)
      assert.isNull(reply.headers.get("content-security-policy"))
      yield* Effect.promise(dispose)
    }))

  it.effect("nodeHandler, Express, Fastify and Hono serve it under their prefix", () =>
    Effect.gen(function*() {
      const services = () => CoursekitHttp.layerHostServices(MemoryCoursekit.layerMemory())
      const dir = fakeBuild()

      const node = CoursekitHttp.nodeHandler(services(), { prefix: "/ck", studio: { dir } })
      yield* Effect.addFinalizer(() => Effect.promise(node.dispose))
      const nodeUrl = yield* listen(createServer((request, response) => node.handler(request, response)))
      yield* exerciseStudio((path) => fetch(nodeUrl + path, { redirect: "manual" }), "/ck")

      const kit = coursekit(services(), { prefix: "/ck", studio: { dir } })
      yield* Effect.addFinalizer(() => Effect.promise(kit.dispose))
      const app = express()
      app.use(kit)
      const expressUrl = yield* listen(createServer(app))
      yield* exerciseStudio((path) => fetch(expressUrl + path, { redirect: "manual" }), "/ck")

      const fastify = Fastify()
      yield* Effect.promise(() => fastify.register(coursekitPlugin(services(), { studio: { dir } }), { prefix: "/ck" }))
      yield* Effect.addFinalizer(() => Effect.promise(() => fastify.close()))
      const fastifyUrl = yield* Effect.promise(() => fastify.listen({ port: 0, host: "127.0.0.1" }))
      yield* exerciseStudio((path) => fetch(fastifyUrl + path, { redirect: "manual" }), "/ck")

      const hono = coursekitHono(services(), { prefix: "/ck", studio: { dir } })
      yield* Effect.addFinalizer(() => Effect.promise(hono.dispose))
      const honoApp = new Hono()
      honoApp.route("/", hono.app)
      yield* exerciseStudio((path) => Promise.resolve(honoApp.fetch(new Request(`http://host.example${path}`))), "/ck")
    }).pipe(Effect.scoped))

  it.effect("the policy names the store's origins the services provide, and the players of the host's allow-list", () =>
    Effect.gen(function*() {
      const services = CoursekitHttp.layerHostServices(MemoryCoursekit.layerMemory()).pipe(
        Layer.merge(Layer.succeed(StoreOrigins, () => ({
          files: ["https://cdn.example.com/media", "https://bucket.example.com/files/x.png", "https://cdn.example.com"],
          uploads: ["https://bucket.example.com:8443/"]
        })))
      )
      const allowList = mergeAllowLists(defaultAllowList, {
        embeds: { vimeo: null, wistia: { ...defaultAllowList.embeds.vimeo!, reason: "Wistia", hosts: ["fast.wistia.net"] } }
      })
      const { dispose, handler } = CoursekitHttp.webHandler(services, { studio: { dir: fakeBuild(), allowList } })
      const reply = yield* Effect.promise(() => handler(new Request("http://host.example/studio/")))
      assert.strictEqual(
        reply.headers.get("content-security-policy"),
        `default-src 'self'; script-src 'self'; style-src 'self' ${reactAriaStyleHashes}; ` +
          "img-src 'self' data: blob: https://cdn.example.com https://bucket.example.com; " +
          "media-src 'self' blob: https://cdn.example.com https://bucket.example.com; " +
          "connect-src 'self' https://bucket.example.com:8443; " +
          "frame-src https://www.youtube.com https://youtube.com https://www.youtube-nocookie.com https://youtube-nocookie.com https://fast.wistia.net; " +
          "object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'self'"
      )
      yield* Effect.promise(dispose)
    }))
})

describe("the Studio's policy and page", () => {
  it("frames exactly the players the sanitizer keeps, pasted and rewritten hosts alike; none without embeds", () => {
    assert.deepStrictEqual(videoPlayerOrigins(defaultAllowList), youtubeAndVimeo.split(" "))
    const noEmbeds = mergeAllowLists(defaultAllowList, { embeds: { youtube: null, vimeo: null } })
    assert.deepStrictEqual(videoPlayerOrigins(noEmbeds), [])
    assert.include(contentSecurityPolicy({ files: [], uploads: [], frames: [] }), "; frame-src 'none'; ")
  })

  it("writes origins, never what follows them: a path, a `;` or a space cannot reach the header", () => {
    const policy = contentSecurityPolicy({ files: ["https://a.example/x;script-src *"], uploads: [], frames: [] })
    assert.include(policy, "img-src 'self' data: blob: https://a.example;")
    assert.throws(() => contentSecurityPolicy({ files: ["https://a.example y; script-src *"], uploads: [], frames: [] }), TypeError)
  })

  it("gives the page a base unless it has one, first in its head", () => {
    assert.strictEqual(withBase(`<html><head lang="en"><title>t</title></head></html>`, "../"), `<html><head lang="en"><base href="../"><title>t</title></head></html>`)
    assert.strictEqual(withBase(`<html><head><base href="/x/"></head></html>`, "../"), `<html><head><base href="/x/"></head></html>`)
    assert.strictEqual(withBase(`<html><header></header></html>`, "./"), `<html><header></header></html>`)
  })

  it("types files by extension, anything else as bytes that are never sniffed", () => {
    assert.deepStrictEqual(
      ["a.js", "a.mjs", "a.css", "a.HTML", "a.svg", "a.woff2", "a.json", "a.map", "a.wasm", "a", ".js", "a.exe"].map(contentTypeOf),
      [
        "text/javascript; charset=utf-8",
        "text/javascript; charset=utf-8",
        "text/css; charset=utf-8",
        "text/html; charset=utf-8",
        "image/svg+xml",
        "font/woff2",
        "application/json",
        "application/json",
        "application/wasm",
        "application/octet-stream",
        "application/octet-stream",
        "application/octet-stream"
      ]
    )
  })
})
