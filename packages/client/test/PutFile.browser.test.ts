/**
 * `putFile` in Debian's chromium (playwright-core, never a downloaded browser): the
 * XMLHttpRequest path that browsers take, against a real HTTP server that counts the PUTs.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { build } from "esbuild"
import { once } from "node:events"
import { existsSync } from "node:fs"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { join } from "node:path"
import { type Browser, chromium, type Page } from "playwright-core"
import type { putFile } from "../src/PutFile.ts"

const executablePath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium"

/** The test page's window: the bundle puts `putFile` on it. */
type TestWindow = { readonly putFile: typeof putFile }

if (existsSync(executablePath) || process.env.COURSEKIT_REQUIRE_BROWSER === "1") {
  describe("putFile in chromium (XMLHttpRequest)", () => {
    let browser: Browser | undefined
    let server: Server | undefined
    let origin = ""
    /** The bodies' lengths of the PUTs the server received. */
    const puts: Array<number> = []

    beforeAll(async () => {
      const script = (await build({
        stdin: { contents: "import { putFile } from \"./src/PutFile.ts\"\nwindow.putFile = putFile", resolveDir: join(import.meta.dirname, ".."), loader: "ts" },
        bundle: true,
        format: "esm",
        platform: "browser",
        write: false,
        logLevel: "silent"
      })).outputFiles[0]!.text
      server = createServer((request, response) => {
        if (request.method === "GET" && request.url === "/") {
          return void response.writeHead(200, { "content-type": "text/html" }).end("<!doctype html><script type=\"module\" src=\"/put-file.js\"></script>")
        }
        if (request.method === "GET" && request.url === "/put-file.js") {
          return void response.writeHead(200, { "content-type": "text/javascript" }).end(script)
        }
        if (request.method === "PUT" && request.url === "/upload") {
          let length = 0
          request.on("data", (chunk: Buffer) => (length += chunk.length))
          return void request.on("end", () => {
            puts.push(length)
            response.writeHead(200, { etag: "\"stored\"" }).end()
          })
        }
        response.writeHead(404).end()
      })
      server.listen(0, "127.0.0.1")
      await once(server, "listening")
      origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
      browser = await chromium.launch({ executablePath, args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"] })
    }, 60_000)
    afterAll(async () => {
      await browser?.close()
      server?.closeAllConnections()
      await new Promise((done) => server?.close(done))
    })

    const open = async (): Promise<Page> => {
      const page = await browser!.newPage()
      await page.goto(origin)
      await page.waitForFunction(() => typeof (window as unknown as TestWindow).putFile === "function")
      return page
    }

    it("sends nothing when the signal is aborted already, and rejects as an abort", async () => {
      puts.length = 0
      const page = await open()
      const outcome = await page.evaluate(() =>
        (window as unknown as TestWindow).putFile({ upload_url: "/upload", headers: {} }, new Blob(["bytes"]), { signal: AbortSignal.abort() }, fetch).then(
          (etag) => ({ resolved: etag }),
          (error: { name: string; status: number; problem: { title: string } }) => ({ rejected: [error.name, error.status, error.problem.title] })
        )
      )
      expect(outcome).toEqual({ rejected: ["CoursekitError", 0, "Aborted"] })
      expect(puts).toEqual([])
      await page.close()
    })

    it("leaves no listener on the signal once each PUT is done (one signal serves every part of a multipart upload)", async () => {
      puts.length = 0
      const page = await open()
      const outcome = await page.evaluate(async () => {
        const { signal } = new AbortController()
        // Counts the signal's listeners as they are added and removed.
        let listeners = 0
        const add = signal.addEventListener.bind(signal)
        const remove = signal.removeEventListener.bind(signal)
        signal.addEventListener = (...args: Parameters<typeof add>) => (listeners++, add(...args))
        signal.removeEventListener = (...args: Parameters<typeof remove>) => (listeners--, remove(...args))
        const etags: Array<string | undefined> = []
        for (let i = 0; i < 3; i++) etags.push(await (window as unknown as TestWindow).putFile({ upload_url: "/upload", headers: {} }, new Blob(["part ", String(i)]), { signal }, fetch))
        return { etags, listeners }
      })
      expect(outcome).toEqual({ etags: ["\"stored\"", "\"stored\"", "\"stored\""], listeners: 0 })
      expect(puts).toEqual([6, 6, 6])
      await page.close()
    })
  })
}
