/**
 * Coursekit Studio on the standalone server, over HTTP: a fake build (StudioBuilds.ts)
 * for exact answers, the real build of packages/studio (built here, into a temporary
 * directory) for what `npm run build` makes, no build at all (503), and
 * `STUDIO_ENABLED=false` (404).
 */
import { assert, describe, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { writeFileSync } from "node:fs"
import { request as httpRequest } from "node:http"
import { join } from "node:path"
import { buildRealStudio, emptyStudioDir, fakeStudio, writeFakeStudio } from "./StudioBuilds.ts"
import { call, layerTestServer, type Reply, TestServer } from "./TestServer.ts"

/** The policy the Studio's responses carry on a test server at `url` (the local store: uploads and files at the server itself). */
const expectedPolicy = (url: string) =>
  "default-src 'self'; script-src 'self'; " +
  "style-src 'self' 'sha256-38RhXrc7EdReTKsOm23ZPOCUgniTUUcjky8QOOrQx6o=' 'sha256-gYiS/BvZvRcK27JIXTuwhZ3hs2+VJ1X+2gUlE+farlg='; " +
  `img-src 'self' data: blob: ${url}; media-src 'self' blob: ${url}; ` +
  `connect-src 'self' ${url}; ` +
  "frame-src https://www.youtube.com https://youtube.com https://www.youtube-nocookie.com https://youtube-nocookie.com https://player.vimeo.com; " +
  "object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'self'"

const assertSecured = (reply: { headers: Headers }, url: string) => {
  assert.strictEqual(reply.headers.get("content-security-policy"), expectedPolicy(url))
  assert.strictEqual(reply.headers.get("x-content-type-options"), "nosniff")
  assert.strictEqual(reply.headers.get("referrer-policy"), "same-origin")
}

const assertProblem = (reply: Reply, status: number, detail: string) => {
  assert.strictEqual(reply.status, status, reply.text)
  assert.strictEqual(reply.headers.get("content-type"), "application/problem+json")
  assert.strictEqual(reply.body.status, status)
  assert.strictEqual(reply.body.detail, detail)
}

/** The fake build's page as served at `depth` levels below the Studio's root. */
const pageAt = (depth: number) =>
  fakeStudio.indexHtml.replace("<head>", `<head><base href="${depth === 0 ? "./" : "../".repeat(depth)}">`)

/** A GET of `path` exactly as written (no URL normalization of `..` or escapes, as `fetch` would do). */
const rawGet = (url: string, path: string) =>
  Effect.promise(() =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const { hostname, port } = new URL(url)
      const sent = httpRequest({ hostname, port, path, method: "GET" }, (response) => {
        let body = ""
        response.setEncoding("utf8")
        response.on("data", (chunk: string) => (body += chunk))
        response.on("end", () => resolve({ status: response.statusCode!, body }))
      })
      sent.on("error", reject)
      sent.end()
    })
  )

describe("Coursekit Studio at /studio/ (a fake build)", () => {
  const dir = writeFakeStudio()
  layer(layerTestServer({ studioEnabled: true, studioDir: dir }), { timeout: 60_000 })((it) => {
    it.effect("/studio/ is index.html with no-cache, a base for its relative URLs and the exact security headers", () =>
      Effect.gen(function*() {
        const { url } = yield* TestServer
        for (const path of ["/studio/", "/studio/index.html"]) {
          const reply = yield* call(path)
          assert.strictEqual(reply.status, 200, path)
          assert.strictEqual(reply.headers.get("content-type"), "text/html; charset=utf-8")
          assert.strictEqual(reply.headers.get("cache-control"), "no-cache")
          assert.strictEqual(reply.text, pageAt(0))
          assertSecured(reply, url)
        }
      }))

    it.effect("a hashed asset is served with its type and a year's immutable caching; ETag answers 304; HEAD has no body", () =>
      Effect.gen(function*() {
        const { url } = yield* TestServer
        const script = yield* call("/studio/assets/app-abc123.js")
        assert.strictEqual(script.status, 200)
        assert.strictEqual(script.text, fakeStudio.script)
        assert.strictEqual(script.headers.get("content-type"), "text/javascript; charset=utf-8")
        assert.strictEqual(script.headers.get("content-length"), String(fakeStudio.script.length))
        assert.strictEqual(script.headers.get("cache-control"), "public, max-age=31536000, immutable")
        assertSecured(script, url)
        const style = yield* call("/studio/assets/app-abc123.css")
        assert.strictEqual(style.status, 200)
        assert.strictEqual(style.text, fakeStudio.style)
        assert.strictEqual(style.headers.get("content-type"), "text/css; charset=utf-8")

        const etag = script.headers.get("etag")!
        assert.match(etag, /^"[0-9a-f]+-[0-9a-f]+"$/)
        const again = yield* call("/studio/assets/app-abc123.js", { headers: { "if-none-match": etag } })
        assert.strictEqual(again.status, 304)
        assert.strictEqual(again.text, "")
        assert.strictEqual(again.headers.get("etag"), etag)
        assert.strictEqual(again.headers.get("cache-control"), "public, max-age=31536000, immutable")
        assertSecured(again, url)

        const head = yield* call("/studio/assets/app-abc123.js", { method: "HEAD" })
        assert.strictEqual(head.status, 200)
        assert.strictEqual(head.text, "")
        assert.strictEqual(head.headers.get("content-length"), String(fakeStudio.script.length))
        assert.strictEqual(head.headers.get("etag"), etag)
      }))

    it.effect("a file beside index.html is served with no-cache (its name does not change with it)", () =>
      Effect.gen(function*() {
        const icon = yield* call("/studio/favicon.ico")
        assert.strictEqual(icon.status, 200)
        assert.strictEqual(icon.headers.get("content-type"), "image/x-icon")
        assert.strictEqual(icon.headers.get("cache-control"), "no-cache")
        assert.strictEqual(icon.headers.get("content-length"), String(fakeStudio.icon.length))
      }))

    it.effect("the app's client-side routes answer its page, with a base back to the Studio's root", () =>
      Effect.gen(function*() {
        const { url } = yield* TestServer
        for (const [path, depth] of [["/studio/courses", 0], ["/studio/courses/12", 1], ["/studio/courses/12/", 2], ["/studio/courses/12/lessons/3?tab=body", 3]] as const) {
          const reply = yield* call(path)
          assert.strictEqual(reply.status, 200, path)
          assert.strictEqual(reply.headers.get("content-type"), "text/html; charset=utf-8")
          assert.strictEqual(reply.headers.get("cache-control"), "no-cache")
          assert.strictEqual(reply.text, pageAt(depth), path)
          assertSecured(reply, url)
        }
        // Each depth is its own representation, so its own validator.
        const root = (yield* call("/studio/")).headers.get("etag")
        const deep = yield* call("/studio/courses/12")
        assert.notStrictEqual(deep.headers.get("etag"), root)
        assert.strictEqual((yield* call("/studio/courses/12", { headers: { "if-none-match": deep.headers.get("etag")! } })).status, 304)
      }))

    it.effect("/studio redirects to studio/ (relative: right under any prefix), keeping the query", () =>
      Effect.gen(function*() {
        const { url } = yield* TestServer
        const plain = yield* call("/studio", { redirect: "manual" })
        assert.strictEqual(plain.status, 301)
        assert.strictEqual(plain.headers.get("location"), "studio/")
        assertSecured(plain, url)
        assert.strictEqual(new URL(plain.headers.get("location")!, `${url}/studio`).href, `${url}/studio/`)
        const query = yield* call("/studio?course=12", { redirect: "manual" })
        assert.strictEqual(query.headers.get("location"), "studio/?course=12")
      }))

    it.effect("a missing asset, a missing file with an extension and a directory are plain 404 problems (no page, no listing)", () =>
      Effect.gen(function*() {
        const { url } = yield* TestServer
        for (const path of ["/studio/assets/app-gone99.js", "/studio/assets/", "/studio/assets", "/studio/robots.txt", "/studio/courses/notes.md"]) {
          const reply = yield* call(path)
          assertProblem(reply, 404, `The Studio has no file at ${path}.`)
          assertSecured(reply, url)
        }
      }))

    it.effect("another method is a 405 with Allow: GET, HEAD and the security headers", () =>
      Effect.gen(function*() {
        const { url } = yield* TestServer
        for (const method of ["POST", "PUT", "DELETE", "PATCH"]) {
          const reply = yield* call("/studio/", { method })
          assertProblem(reply, 405, `${method} is not allowed on /studio/; it allows GET, HEAD.`)
          assert.strictEqual(reply.headers.get("allow"), "GET, HEAD")
          assertSecured(reply, url)
        }
      }))

    it.effect("paths that leave the build are refused (400, or 404 for links), and nothing outside it is ever sent", () =>
      Effect.gen(function*() {
        const { url } = yield* TestServer
        const refused = [
          "/studio/../secret.txt",
          "/studio/assets/../../secret.txt",
          "/studio/%2e%2e/secret.txt",
          "/studio/%2E%2E%2Fsecret.txt",
          "/studio/..%2fsecret.txt",
          "/studio/assets/..%5c..%5csecret.txt",
          "/studio/..\\secret.txt",
          "/studio/./index.html",
          "/studio//secret.txt",
          "/studio/a%00.js",
          "/studio/%00"
        ]
        for (const path of refused) {
          const reply = yield* rawGet(url, path)
          assert.strictEqual(reply.status, 400, `${path}: ${reply.body}`)
          assert.notInclude(reply.body, "TOP-SECRET")
        }
        // A broken escape never reaches a route: the router finds none for it.
        const broken = yield* rawGet(url, "/studio/assets/app%E0%A4%A.js")
        assert.strictEqual(broken.status, 404, broken.body)
        assert.strictEqual(JSON.parse(broken.body).detail, "No route for GET /studio/assets/app%E0%A4%A.js.")
        // Links inside the build are never followed: to a file outside it, or to a directory above it.
        for (const path of ["/studio/assets/outside.js", "/studio/up/secret.txt", "/studio/up/dist/index.html"]) {
          const reply = yield* rawGet(url, path)
          assert.strictEqual(reply.status, 404, `${path}: ${reply.body}`)
          assert.notInclude(reply.body, "TOP-SECRET")
        }
      }))
  })
})

describe("Coursekit Studio not built", () => {
  const dir = emptyStudioDir()
  layer(layerTestServer({ studioEnabled: true, studioDir: dir }), { timeout: 60_000 })((it) => {
    it.effect("every Studio path is a 503 problem saying to run npm run build; the build is served once it is there, without a restart", () =>
      Effect.gen(function*() {
        const { url } = yield* TestServer
        for (const path of ["/studio/", "/studio/courses/12", "/studio/assets/app-abc123.js"]) {
          const reply = yield* call(path)
          assertProblem(reply, 503, "Coursekit Studio is not built yet: run `npm run build`, then reload this page.")
          assertSecured(reply, url)
        }
        // The API is unaffected.
        assert.strictEqual((yield* call("/courses")).status, 200)
        writeFileSync(join(dir, "index.html"), fakeStudio.indexHtml)
        const built = yield* call("/studio/")
        assert.strictEqual(built.status, 200)
        assert.strictEqual(built.text, pageAt(0))
        // A rebuild is read at once too.
        writeFileSync(join(dir, "index.html"), fakeStudio.indexHtml.replace("Coursekit Studio", "Coursekit Studio, rebuilt"))
        assert.include((yield* call("/studio/")).text, "Coursekit Studio, rebuilt")
      }))
  })
})

describe("STUDIO_ENABLED=false", () => {
  const dir = writeFakeStudio()
  layer(layerTestServer({ studioEnabled: false, studioDir: dir }), { timeout: 60_000 })((it) => {
    it.effect("/studio/ is a 404 like any unknown path, with the built Studio right there", () =>
      Effect.gen(function*() {
        for (const path of ["/studio", "/studio/", "/studio/assets/app-abc123.js"]) {
          const reply = yield* call(path)
          assertProblem(reply, 404, `No route for GET ${path}.`)
          assert.isNull(reply.headers.get("content-security-policy"))
        }
      }))
  })
})

describe("Coursekit Studio: the real build of packages/studio", () => {
  // Built here, into a temporary directory: the test never depends on an earlier `npm run build`.
  const server = Layer.unwrap(Effect.map(Effect.promise(buildRealStudio), (dir) => layerTestServer({ studioEnabled: true, studioDir: dir })))
  layer(server, { timeout: 180_000, excludeTestServices: true })((it) => {
    it.effect("serves what Vite built: the page, with no inline script or style, and every asset it names or loads later, as typed and immutable", () =>
      Effect.gen(function*() {
        const { url } = yield* TestServer
        const page = yield* call("/studio/")
        assert.strictEqual(page.status, 200)
        assert.strictEqual(page.headers.get("content-type"), "text/html; charset=utf-8")
        assert.strictEqual(page.headers.get("cache-control"), "no-cache")
        assertSecured(page, url)
        assert.include(page.text, '<head><base href="./">')
        // The policy allows neither: every script is a file, no style is inline.
        assert.notMatch(page.text, /<script(?![^>]*\ssrc=)[^>]*>/)
        assert.notMatch(page.text, /<style|\sstyle=/)
        const assets = [...page.text.matchAll(/(?:src|href)="\.\/(assets\/[^"]+)"/g)].map((match) => match[1]!)
        assert.isTrue(assets.some((asset) => asset.endsWith(".js")), page.text)
        // An icon of its own, so the browser never asks the origin's /favicon.ico (a 404 in the console).
        assert.match(page.text, /<link rel="icon" type="image\/svg\+xml" href="\.\/assets\/[^"]+\.svg"/)
        const pageAssets = assets.length
        // The chunks the scripts load later (the editors' `import()`s, their styles): named in them beside themselves, `./name-hash.js`.
        for (const asset of assets) {
          const served = yield* call(`/studio/${asset}`)
          if (asset.endsWith(".js")) {
            for (const [, later] of served.text.matchAll(/["'`]\.\/([\w.-]+\.(?:js|css))["'`]/g)) {
              if (!assets.includes(`assets/${later}`)) assets.push(`assets/${later}`)
            }
            // What ships, though built under vitest (NODE_ENV=test): production JSX, not the development runtime's.
            assert.notInclude(served.text, "jsxDEV", asset)
          }
          assert.strictEqual(served.status, 200, asset)
          assert.strictEqual(served.headers.get("cache-control"), "public, max-age=31536000, immutable")
          const types = { js: "text/javascript; charset=utf-8", css: "text/css; charset=utf-8", svg: "image/svg+xml" }
          assert.strictEqual(served.headers.get("content-type"), types[asset.slice(asset.lastIndexOf(".") + 1) as keyof typeof types], asset)
          assert.strictEqual(served.headers.get("content-length"), String(new TextEncoder().encode(served.text).length))
          assertSecured(served, url)
        }
        // The course and lesson editors are chunks of their own, loaded when opened (docs/studio.md, "Size").
        assert.includeMembers(assets.slice(pageAssets).map((asset) => /^assets\/(\w+)-/.exec(asset)?.[1]), ["CourseEditor", "LessonEditor"])
      }))
  })
})
