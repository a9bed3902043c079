import { type HostIdentity, anonymousIdentity, CoursekitHttp } from "@coursekit/http"
import { signedInViewer, UserId } from "@coursekit/core"
import { ConfigProvider, Layer } from "effect"
import { existsSync, mkdtempSync, readdirSync } from "node:fs"
import { createServer, type IncomingMessage, type Server } from "node:http"
import { once } from "node:events"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, assert, describe, it } from "vitest"
import * as DefaultServices from "../src/DefaultServices.ts"
import { writeFakeStudio } from "./StudioBuilds.ts"
import { testSettings } from "./TestServer.ts"

// A host that takes the defaults: PGlite and the local-disk store in its data directory,
// mounted under its own prefix, with its own notion of who is an admin. Real uploads go
// through the host's server to the store's routes under the prefix.

const prefix = "/api/coursekit"
const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, ...Array.from({ length: 500 }, (_, i) => (i * 7) % 256)])

/** The host's "session": a header naming the user; `admin` is its administrator. */
const identifyNode = (request: IncomingMessage): HostIdentity => {
  const user = request.headers["x-host-user"]
  return typeof user === "string" ? { viewer: signedInViewer(UserId.make(user)), admin: user === "admin" } : anonymousIdentity
}
const identifyWeb = (request: Request): HostIdentity => {
  const user = request.headers.get("x-host-user")
  return user === null ? anonymousIdentity : { viewer: signedInViewer(UserId.make(user)), admin: user === "admin" }
}

interface Host {
  readonly url: string
  readonly stop: () => Promise<void>
}

const cleanups: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

/** A `node:http` host on a free port with Coursekit's defaults at {@link prefix}, data in `dataDir`. */
const startNodeHost = async (dataDir: string): Promise<Host> => {
  let origin = ""
  const kit = CoursekitHttp.nodeHandler(
    DefaultServices.layerFrom(testSettings({ dataDir }), { publicUrl: () => `${origin}${prefix}` }),
    { prefix, identify: identifyNode }
  )
  const server: Server = createServer((request, response) => {
    if (request.url === "/") return void response.end("the host's home page")
    kit.handler(request, response)
  })
  server.listen(0, "127.0.0.1")
  await once(server, "listening")
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  await kit.ready
  let stopped = false
  const stop = async () => {
    if (stopped) return
    stopped = true
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
    await kit.dispose()
  }
  cleanups.push(stop)
  return { url: origin, stop }
}

const send = async (url: string, init: RequestInit & { json?: unknown; user?: string } = {}) => {
  const headers = new Headers(init.headers)
  if (init.user !== undefined) headers.set("x-host-user", init.user)
  if (init.json !== undefined) headers.set("content-type", "application/json")
  const response = await fetch(url, { ...init, headers, body: init.json === undefined ? init.body ?? null : JSON.stringify(init.json) })
  const text = await response.text()
  return { status: response.status, headers: response.headers, text, body: text !== "" && (response.headers.get("content-type") ?? "").includes("json") ? JSON.parse(text) : text }
}

describe("DefaultServices: a host that takes the defaults (PGlite, local disk)", () => {
  it("serves the API under the host's prefix with the host's admin check, uploads a thumbnail and a 3 MiB video end to end, and keeps everything across a restart", async () => {
    const dataDir = mkdtempSync(join(process.env.COURSEKIT_TEST_TMP ?? tmpdir(), "embedded-"))
    const host = await startNodeHost(dataDir)
    const api = `${host.url}${prefix}`

    assert.strictEqual((await send(`${host.url}/`)).text, "the host's home page")
    // Refused in terms of the host's login: its users have no Coursekit tokens.
    const unauthorized = await send(`${api}/courses`, { method: "POST", json: { title: "x" } })
    assert.strictEqual(unauthorized.status, 401)
    assert.strictEqual(unauthorized.body.detail, "Sign in to use this endpoint: the app's own login decides admin access to Coursekit.")
    const forbidden = await send(`${api}/courses`, { method: "POST", user: "student", json: { title: "x" } })
    assert.strictEqual(forbidden.status, 403)
    assert.strictEqual(forbidden.body.detail, "The signed-in user has no admin rights in this app; the app's own login decides admin access to Coursekit.")
    const created = await send(`${api}/courses`, { method: "POST", user: "admin", json: { title: "Embedded course", content_html: "<p>Hi<script>x</script></p>" } })
    assert.strictEqual(created.status, 201, created.text)
    assert.strictEqual(created.body.content_html, "<p>Hi</p>")
    assert.strictEqual(created.headers.get("location"), `${prefix}/courses/${created.body.id}`)

    const issued = await send(`${api}/courses/${created.body.id}/upload-url`, { method: "POST", user: "admin", json: { file_name: "cover.png", content_type: "image/png" } })
    assert.strictEqual(issued.status, 200, issued.text)
    // Signed under the host's URL and prefix: the browser PUTs to the host, which hands it to the store's route.
    assert.strictEqual(issued.body.upload_url.split("?")[0], `${api}/storage/${issued.body.file_key}`)
    const put = await send(issued.body.upload_url, { method: "PUT", headers: issued.body.headers, body: png })
    assert.strictEqual(put.status, 200, put.text)
    const finalized = await send(`${api}/courses/${created.body.id}/finalize-upload`, { method: "POST", user: "admin", json: { file_key: issued.body.file_key } })
    assert.strictEqual(finalized.status, 200, finalized.text)
    assert.strictEqual(finalized.body.thumbnail_url, `${api}/files/${issued.body.file_key}`)
    const served = await fetch(finalized.body.thumbnail_url)
    assert.strictEqual(served.status, 200)
    assert.strictEqual(served.headers.get("content-type"), "image/png")
    // Served from the host's own origin: sandboxed, never sniffed.
    assert.strictEqual(served.headers.get("content-security-policy"), "sandbox")
    assert.strictEqual(served.headers.get("x-content-type-options"), "nosniff")
    assert.deepStrictEqual(new Uint8Array(await served.arrayBuffer()), png)

    // A media file larger than the API's 2 MiB body limit: the store's route streams it to disk.
    const video = new Uint8Array(3 * 1024 * 1024 + 5).map((_, index) => index % 253)
    const media = await send(`${api}/admin/media/upload-url`, { method: "POST", user: "admin", json: { filename: "intro.mp4", type: "video/mp4", size_bytes: video.byteLength } })
    assert.strictEqual(media.status, 200, media.text)
    const mediaPut = await send(media.body.upload_url, { method: "PUT", headers: media.body.headers, body: video })
    assert.strictEqual(mediaPut.status, 200, mediaPut.text)
    const mediaFile = await send(`${api}/admin/media/finalize-upload`, { method: "POST", user: "admin", json: { file_key: media.body.file_key } })
    assert.strictEqual(mediaFile.status, 200, mediaFile.text)
    assert.strictEqual(mediaFile.body.size_bytes, video.byteLength)
    assert.deepStrictEqual(new Uint8Array(await (await fetch(mediaFile.body.url)).arrayBuffer()), video)

    // The store's routes beside the API: a wrong method is a 405 with what they allow.
    const wrongMethod = await send(`${api}/files/${issued.body.file_key}`, { method: "POST" })
    assert.strictEqual(wrongMethod.status, 405, wrongMethod.text)
    assert.strictEqual(wrongMethod.headers.get("allow"), "GET, HEAD")
    assert.strictEqual((await send(`${api}/storage/x`, { method: "GET" })).headers.get("allow"), "PUT")

    const ready = await send(`${api}/health/ready`)
    assert.strictEqual(ready.status, 200, ready.text)
    assert.deepStrictEqual(ready.body.checks.map((check: { name: string }) => check.name).sort(), ["database", "storage"])
    // The defaults live in the data directory: the database and the files.
    assert.includeMembers(readdirSync(dataDir), ["pglite", "storage"])

    await host.stop()
    const again = await startNodeHost(dataDir)
    const read = await send(`${again.url}${prefix}/courses/${created.body.id}`)
    assert.strictEqual(read.status, 200, read.text)
    assert.strictEqual(read.body.title, "Embedded course")
    assert.strictEqual(read.body.thumbnail_url, `${again.url}${prefix}/files/${issued.body.file_key}`)
    assert.deepStrictEqual(new Uint8Array(await (await fetch(read.body.thumbnail_url)).arrayBuffer()), png)
  }, 60_000)

  it("the Web handler takes them too, configured by the host's ConfigProvider and dataDir; PUTs reach the store under the prefix", async () => {
    const dataDir = mkdtempSync(join(process.env.COURSEKIT_TEST_TMP ?? tmpdir(), "embedded-web-"))
    const api = `https://app.example${prefix}`
    const notUsed = join(dataDir, "not-used")
    const services = DefaultServices.layer({ publicUrl: `${api}/`, dataDir }).pipe(
      Layer.provide(ConfigProvider.layer(ConfigProvider.fromEnv({
        env: { DATA_DIR: notUsed, UPLOAD_THUMBNAIL_MAX_BYTES: "400", LOG_LEVEL: "Warn" }
      })))
    )
    const web = CoursekitHttp.webHandler(services, { prefix, identify: identifyWeb, studio: { dir: writeFakeStudio() } })
    cleanups.push(web.dispose)
    const call = async (path: string, init: RequestInit & { json?: unknown } = {}) => {
      const headers = new Headers(init.headers)
      headers.set("x-host-user", "admin")
      if (init.json !== undefined) headers.set("content-type", "application/json")
      const response = await web.handler(new Request(path.startsWith("https:") ? path : `${api}${path}`, {
        ...init,
        headers,
        body: init.json === undefined ? init.body ?? null : JSON.stringify(init.json),
        ...(init.body instanceof ReadableStream ? { duplex: "half" } : {})
      } as RequestInit))
      const text = await response.text()
      return { status: response.status, text, body: text !== "" && (response.headers.get("content-type") ?? "").includes("json") ? JSON.parse(text) : text }
    }
    const created = await call("/courses", { method: "POST", json: { title: "Web-handled", content_html: "<p>x</p>" } })
    assert.strictEqual(created.status, 201, created.text)
    const upload = async (bytes: Uint8Array, expectedPut = 200) => {
      const issued = await call(`/courses/${created.body.id}/upload-url`, { method: "POST", json: { file_name: "c.png", content_type: "image/png" } })
      assert.strictEqual(issued.status, 200, issued.text)
      assert.strictEqual(issued.body.upload_url.split("?")[0], `${api}/storage/${issued.body.file_key}`)
      const put = await call(issued.body.upload_url, { method: "PUT", headers: issued.body.headers, body: bytes as BodyInit })
      assert.strictEqual(put.status, expectedPut, put.text)
      return { key: issued.body.file_key as string, finalized: await call(`/courses/${created.body.id}/finalize-upload`, { method: "POST", json: { file_key: issued.body.file_key } }) }
    }
    // UPLOAD_THUMBNAIL_MAX_BYTES=400 from the host's provider: the store refuses the 508-byte
    // PUT (the URL carries the thumbnail limit), so there is nothing to finalize.
    const tooBig = await upload(png, 413)
    assert.strictEqual(tooBig.finalized.status, 409, tooBig.finalized.text)
    const small = png.subarray(0, 300)
    const { finalized, key } = await upload(small)
    assert.strictEqual(finalized.status, 200, finalized.text)
    assert.strictEqual(finalized.body.thumbnail_url, `${api}/files/${key}`)
    const served = await web.handler(new Request(finalized.body.thumbnail_url))
    assert.strictEqual(served.status, 200)
    assert.deepStrictEqual(new Uint8Array(await served.arrayBuffer()), small)
    // The Studio under the prefix: its policy lets the page show files from, and upload to, where the defaults put them.
    const studio = await web.handler(new Request(`${api}/studio/`))
    assert.strictEqual(studio.status, 200)
    const policy = studio.headers.get("content-security-policy")!
    for (const directive of ["img-src 'self' data: blob: https://app.example;", "media-src 'self' blob: https://app.example;", "connect-src 'self' https://app.example;"]) {
      assert.include(policy, directive)
    }
    // The `dataDir` option wins over DATA_DIR.
    assert.includeMembers(readdirSync(dataDir), ["pglite", "storage"])
    assert.isFalse(existsSync(notUsed))
  }, 60_000)
})
