/**
 * examples/browser-upload's large video in Debian's chromium (playwright-core): the client's
 * multipart upload through XMLHttpRequest, with the page's progress bar. A reload mid-way
 * loses nothing that storage holds: the same file chosen again resumes the same upload and
 * PUTs only the parts that were missing; the stored file is the source, byte for byte.
 */
import { describe, expect, it } from "@effect/vitest"
import { partCountFor, partSizeFor } from "@coursekit/core"
import { createHash } from "node:crypto"
import type { Page, Request, Route } from "playwright-core"
import { chromiumTestsRun, useExampleInChromium } from "./ExampleInChromium.ts"

const MiB = 1024 * 1024

/** A file the test chooses in the page: `size` bytes from an xorshift generator seeded with `seed`. */
interface Source {
  readonly name: string
  readonly size: number
  readonly seed: number
  readonly lastModified: number
}

/** The source's bytes, as the page generates them (the same loop; the page's SHA-256 proves it). */
const bytesOf = (source: Source) => {
  const bytes = new Uint8Array(source.size)
  let x = source.seed
  for (let i = 0; i < bytes.length; i++) {
    x ^= x << 13
    x ^= x >>> 17
    x ^= x << 5
    bytes[i] = x & 0xff
  }
  return bytes
}

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex")

/**
 * Chooses `source` in the large video's input: built in the page with its `lastModified`,
 * so that the same file chosen after a reload is the same to the client (name, size,
 * lastModified, type). Answers the SHA-256 of the File the input holds.
 */
const choose = (page: Page, source: Source) =>
  page.evaluate(async (source) => {
    const bytes = new Uint8Array(source.size)
    let x = source.seed
    for (let i = 0; i < bytes.length; i++) {
      x ^= x << 13
      x ^= x >>> 17
      x ^= x << 5
      bytes[i] = x & 0xff
    }
    const files = new DataTransfer()
    files.items.add(new File([bytes], source.name, { type: "video/mp4", lastModified: source.lastModified }))
    const input = document.getElementById("large-video") as HTMLInputElement
    input.files = files.files
    const digest = await crypto.subtle.digest("SHA-256", await input.files[0]!.arrayBuffer())
    return Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, "0")).join("")
  }, source)

/** Records every value the page gives the large video's progress bar (from each page load on) in `window.largeProgress`. */
const recordProgress = (page: Page) =>
  page.addInitScript(() => {
    const values: Array<number> = []
    ;(window as unknown as { largeProgress: Array<number> }).largeProgress = values
    const value = Object.getOwnPropertyDescriptor(HTMLProgressElement.prototype, "value")!
    Object.defineProperty(HTMLProgressElement.prototype, "value", {
      ...value,
      set(this: HTMLProgressElement, next: number) {
        if (this.id === "large-progress") values.push(next)
        value.set!.call(this, next)
      }
    })
  })

const progressValues = (page: Page) => page.evaluate(() => (window as unknown as { largeProgress: Array<number> }).largeProgress)

/** The resume entries the client keeps in the page's localStorage. */
const resumeEntries = (page: Page) =>
  page.evaluate(() =>
    Object.keys(localStorage).filter((key) => key.startsWith("coursekit:multipart:")).map((key) => JSON.parse(localStorage.getItem(key)!) as { upload_id: string })
  )

/** What the page shows once the upload is done (or failed). */
const outcome = async (page: Page) => {
  await page.waitForSelector("#large-result:not([hidden]), #large-error:not(:empty)", { timeout: 60_000 })
  return page.evaluate(() => ({
    error: document.getElementById("large-error")!.textContent,
    status: document.getElementById("large-status")!.textContent,
    fileKey: document.getElementById("large-key")!.textContent!,
    size: document.getElementById("large-size")!.textContent,
    url: (document.getElementById("large-link") as HTMLAnchorElement).href
  }))
}

/** The part number of a part PUT (its URL's `partNumber`), or undefined for any other request. */
const partOf = (request: Request) => {
  const partNumber = new URL(request.url()).searchParams.get("partNumber")
  return request.method() === "PUT" && partNumber !== null ? Number(partNumber) : undefined
}

/** The page's calls of the multipart API (method, path with the upload id as <id>, JSON body). */
const recordCalls = (page: Page, calls: Array<{ readonly call: string; readonly body: unknown }>) =>
  page.on("request", (request) => {
    const path = new URL(request.url()).pathname
    if (!path.startsWith("/admin/media/multipart")) return
    calls.push({ call: `${request.method()} ${path.replace(/[0-9a-f-]{36}/, "<id>")}`, body: request.postDataJSON() })
  })

if (chromiumTestsRun) {
  describe("examples/browser-upload: a large video in parts in chromium", () => {
    const running = useExampleInChromium()

    it("resumes after a reload mid-way: the same upload, only the missing parts PUT, progress from the stored fraction to 1, the source's bytes stored", async () => {
      // Six parts of the service's smallest part size (5 MiB), the last one shorter.
      const source: Source = { name: "lecture-large.mp4", size: 27 * MiB + 12_345, seed: 0x2545f491, lastModified: 1_700_000_000_000 }
      const partSize = partSizeFor(source.size)
      expect([partSize, partCountFor(source.size, partSize)]).toEqual([5 * MiB, 6])
      const digest = sha256(bytesOf(source))

      const page = await running.browser().newPage()
      const errors: Array<string> = []
      page.on("pageerror", (error) => errors.push(error.message))
      await recordProgress(page)
      const calls: Array<{ readonly call: string; readonly body: unknown }> = []
      recordCalls(page, calls)

      // Before the reload, parts 1 and 2 reach storage; the others are held in the browser
      // (never sent), so what storage holds at the reload is exactly parts 1 and 2.
      let reloaded = false
      const held: Array<Route> = []
      const sent = { before: [] as Array<number>, after: [] as Array<number> }
      await page.route((url) => url.searchParams.has("partNumber"), (route) => {
        const part = partOf(route.request())
        if (part === undefined) return route.continue()
        if (!reloaded && part > 2) return void held.push(route)
        ;(reloaded ? sent.after : sent.before).push(part)
        return route.continue()
      })

      await page.goto(running.example().url)
      expect(await choose(page, source)).toBe(digest)
      await page.click("#large-upload")

      // Wait until storage holds parts 1 and 2 (the service's own status of the upload).
      const adminToken = await page.evaluate(() => (window as unknown as { COURSEKIT_DEMO_ADMIN_TOKEN: string }).COURSEKIT_DEMO_ADMIN_TOKEN)
      await expect.poll(async () => (await resumeEntries(page)).length, { timeout: 30_000 }).toBe(1)
      const [entry] = await resumeEntries(page)
      const storedParts = async () => {
        const response = await fetch(`${running.example().url}/admin/media/multipart/${entry!.upload_id}`, { headers: { authorization: `Bearer ${adminToken}` } })
        expect(response.status).toBe(200)
        const status = (await response.json()) as { parts: Array<{ part_number: number; size_bytes: number }> }
        return status.parts.map((part) => [part.part_number, part.size_bytes])
      }
      await expect.poll(storedParts, { timeout: 30_000 }).toEqual([[1, partSize], [2, partSize]])
      // Parts 1 and 2 went out; parts 3 to 6 were all asked (four in flight) and held.
      await expect.poll(() => held.map((route) => partOf(route.request())!).sort((a, b) => a - b), { timeout: 30_000 }).toEqual([3, 4, 5, 6])
      // The client sends parts concurrently: the order they reach the route is not the test's business.
      expect(sent.before.sort((a, b) => a - b)).toEqual([1, 2])
      expect(calls).toEqual([
        { call: "POST /admin/media/multipart", body: { filename: source.name, type: "video/mp4", size_bytes: source.size, visibility: "private" } },
        { call: "POST /admin/media/multipart/<id>/parts", body: { part_numbers: [1, 2, 3, 4, 5, 6] } }
      ])

      reloaded = true
      await page.reload()
      // The held PUTs died with the page they belonged to; nothing is left to send them.
      await Promise.all(held.map((route) => route.abort().catch(() => undefined)))
      expect(await resumeEntries(page)).toEqual([entry])
      calls.length = 0

      // The same file again: same name, bytes and lastModified.
      expect(await choose(page, source)).toBe(digest)
      await page.click("#large-upload")
      const shown = await outcome(page)
      expect(shown.error).toBe("")
      expect(shown.status).toBe(`Done: ${source.name} (27.0 MiB) went up in parts; resumed: 10.0 MiB were stored already.`)
      expect(shown.size).toBe(String(source.size))
      expect(shown.fileKey).toMatch(/^private\/media\/[0-9a-f-]{36}\.mp4$/)

      // The same upload resumed: its status asked, no new upload created, only parts 3 to 6 sent.
      expect(calls).toEqual([
        { call: "GET /admin/media/multipart/<id>", body: null },
        { call: "POST /admin/media/multipart/<id>/parts", body: { part_numbers: [3, 4, 5, 6] } },
        { call: "POST /admin/media/multipart/<id>/complete", body: { parts: expect.any(Array) } }
      ])
      expect(sent.after.sort((a, b) => a - b)).toEqual([3, 4, 5, 6])
      const completed = (calls[2]!.body as { parts: Array<{ part_number: number }> }).parts.map((part) => part.part_number)
      expect(completed).toEqual([1, 2, 3, 4, 5, 6])

      // The bar starts at what storage held (two of the 5 MiB parts), never goes back, ends at 1.
      const values = await progressValues(page)
      expect(values[0]).toBe((2 * partSize) / source.size)
      expect(values.at(-1)).toBe(1)
      for (let i = 1; i < values.length; i++) expect(values[i]).toBeGreaterThan(values[i - 1]!)

      // The stored file is the source; the resume entry is gone.
      const stored = await fetch(shown.url)
      expect(stored.status).toBe(200)
      expect(stored.headers.get("content-type")).toBe("video/mp4")
      expect(sha256(new Uint8Array(await stored.arrayBuffer()))).toBe(digest)
      expect(await resumeEntries(page)).toEqual([])
      expect(errors).toEqual([])
      await page.close()
    }, 120_000)

    it("moves the progress bar forward only, from 0 to 1, during a fresh upload", async () => {
      const source: Source = { name: "fresh.mp4", size: 17 * MiB + 4_321, seed: 0x1234567, lastModified: 1_700_000_100_000 }
      const digest = sha256(bytesOf(source))
      const page = await running.browser().newPage()
      const errors: Array<string> = []
      page.on("pageerror", (error) => errors.push(error.message))
      await recordProgress(page)
      const calls: Array<{ readonly call: string; readonly body: unknown }> = []
      recordCalls(page, calls)
      const sent: Array<number> = []
      page.on("request", (request) => {
        const part = partOf(request)
        if (part !== undefined) sent.push(part)
      })
      // An upload line of 8 MiB/s (chromium's own throttling): XMLHttpRequest reports the parts'
      // bytes as they go, so the bar moves within parts too.
      const cdp = await page.context().newCDPSession(page)
      await cdp.send("Network.enable")
      await cdp.send("Network.emulateNetworkConditions", { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: 8 * MiB })
      await page.goto(running.example().url)
      expect(await choose(page, source)).toBe(digest)
      await page.click("#large-upload")
      const shown = await outcome(page)
      expect(shown.error).toBe("")
      expect(shown.status).toBe(`Done: ${source.name} (17.0 MiB) went up in parts.`)
      expect(shown.size).toBe(String(source.size))
      expect(sent.sort((a, b) => a - b)).toEqual([1, 2, 3, 4])
      expect(calls.map((call) => call.call)).toEqual([
        "POST /admin/media/multipart",
        "POST /admin/media/multipart/<id>/parts",
        "POST /admin/media/multipart/<id>/complete"
      ])

      const values = await progressValues(page)
      expect(values[0]).toBe(0)
      expect(values.at(-1)).toBe(1)
      // Steps between, each larger than the one before: more than one per part (the parts'
      // own progress events, not only their ends).
      expect(values.length).toBeGreaterThan(2 * 4 + 1)
      for (let i = 1; i < values.length; i++) expect(values[i]).toBeGreaterThan(values[i - 1]!)

      const stored = await fetch(shown.url)
      expect(sha256(new Uint8Array(await stored.arrayBuffer()))).toBe(digest)
      expect(await resumeEntries(page)).toEqual([])
      expect(errors).toEqual([])
      await page.close()
    }, 120_000)
  })
}
