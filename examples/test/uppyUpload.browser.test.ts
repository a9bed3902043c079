/**
 * examples/uppy-upload end to end in Debian's chromium (playwright-core): Uppy's Dashboard
 * uploads a 17.5 MiB video in four parts through Coursekit's multipart endpoints on the
 * local store. The stored file has the source's SHA-256 and Uppy's progress reaches 100 %;
 * pausing mid-upload and resuming from Uppy's status bar lists the parts (GET) and PUTs
 * only the missing ones; a part PUT that fails is retried by Uppy; cancelling deletes the
 * upload (DELETE), after which the service no longer knows it (404).
 */
import { partSizeFor } from "@coursekit/core"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { createHash, randomBytes } from "node:crypto"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { Page, Request, Route } from "playwright-core"
import { start } from "../uppy-upload/server.ts"
import { chromiumTestsRun, useExampleInChromium } from "./ExampleInChromium.ts"

const MiB = 1024 * 1024
/** Three parts of 5 MiB and a last one of 2.5 MiB. */
const size = 17.5 * MiB
const partSize = 5 * MiB
const lastPart = 2.5 * MiB
const sha256 = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex")

/** The part number a part PUT is for (its URL's `partNumber`), or undefined for any other request. */
const partOf = (request: Request) => {
  if (request.method() !== "PUT") return undefined
  const part = new URL(request.url()).searchParams.get("partNumber")
  return part === null ? undefined : Number(part)
}

/** What the page sent while uploading: its API calls (upload ids as `:id`) and its part PUTs. */
interface Traffic {
  readonly api: Array<string>
  /** Part PUTs sent, by part number (a PUT held and then dropped counts). */
  readonly puts: Record<number, number>
  /** Part PUTs storage answered 200, by part number. */
  readonly stored: Record<number, number>
  /**
   * Their lengths (Content-Length), by part number. Chromium reports them only for
   * requests the test does not route.
   */
  readonly lengths: Record<number, Array<number>>
  /** The answers of POST /admin/media/multipart. */
  readonly created: Array<{ readonly upload_id: string; readonly file_key: string; readonly part_size: number; readonly part_count: number }>
  /** Reads of answers still under way: the counts above are whole once these settle. */
  readonly pending: Array<Promise<unknown>>
}

const watch = (page: Page): Traffic => {
  const traffic: Traffic = { api: [], puts: {}, stored: {}, lengths: {}, created: [], pending: [] }
  page.on("request", (request) => {
    const part = partOf(request)
    if (part !== undefined) return void (traffic.puts[part] = (traffic.puts[part] ?? 0) + 1)
    const path = new URL(request.url()).pathname
    if (path.startsWith("/admin/")) traffic.api.push(`${request.method()} ${path.replace(/[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}/, ":id")}`)
  })
  page.on("response", (response) => {
    const request = response.request()
    if (request.method() === "POST" && new URL(request.url()).pathname === "/admin/media/multipart" && response.status() === 201) {
      traffic.pending.push(response.json().then((created) => traffic.created.push(created)))
    }
  })
  page.on("requestfinished", (request) => {
    const part = partOf(request)
    if (part === undefined) return
    traffic.pending.push(Promise.all([request.response(), request.allHeaders()]).then(([response, headers]) => {
      if (response?.status() !== 200) return
      traffic.stored[part] = (traffic.stored[part] ?? 0) + 1
      ;(traffic.lengths[part] ??= []).push(Number(headers["content-length"]))
    }))
  })
  return traffic
}

/** How often each API call was made. */
const counts = (calls: ReadonlyArray<string>) => {
  const counted: Record<string, number> = {}
  for (const call of calls) counted[call] = (counted[call] ?? 0) + 1
  return counted
}

/** A fresh random "video" of `size` bytes. */
const newVideo = () => randomBytes(size)

/**
 * Adds `bytes` as lecture.mp4 through the Dashboard's "browse files", then starts the
 * upload with its Upload button. The file is written under `videos` first: chromium reads
 * a file it is given by path at once, where a buffer crawls through the protocol.
 */
const addAndUpload = async (page: Page, videos: string, bytes: Buffer) => {
  const file = join(mkdtempSync(join(videos, "video-")), "lecture.mp4")
  writeFileSync(file, bytes)
  const chooser = page.waitForEvent("filechooser")
  await page.click(".uppy-Dashboard-browse")
  await (await chooser).setFiles(file)
  await page.click(".uppy-StatusBar-actionBtn--upload")
}

/** Uppy's state of the page's one file, the status bar's title and what the page lists as uploaded. */
const uppyState = (page: Page) =>
  page.evaluate(() => {
    const state = window.uppy.getState()
    const file = window.uppy.getFiles()[0]
    return {
      files: window.uppy.getFiles().length,
      totalProgress: state.totalProgress,
      percentage: file?.progress.percentage,
      bytesUploaded: file?.progress.bytesUploaded,
      uploadComplete: file?.progress.uploadComplete,
      isPaused: file?.isPaused,
      media: file?.response?.body?.media,
      statusBar: document.querySelector(".uppy-StatusBar-content")?.getAttribute("title"),
      listed: [...document.querySelectorAll("#uploaded li")].map((item) => item.textContent),
      error: document.getElementById("error")!.textContent
    }
  })

/**
 * Waits until the page lists the media record and Uppy has caught up with it: Uppy
 * updates its total progress and status bar after the upload-success event (throttled),
 * so a state read as soon as the record shows may still say 29 %.
 */
const completed = async (page: Page) => {
  await page.waitForSelector("#uploaded li", { timeout: 30_000 })
  await page.waitForFunction(() =>
    window.uppy.getState().totalProgress === 100 &&
    document.querySelector(".uppy-StatusBar-content")?.getAttribute("title") === "Complete", undefined, { timeout: 10_000 })
}

/** Drops held requests; one the page already aborted (Uppy's pause, cancel) is gone, which is fine. */
const drop = (held: ReadonlyArray<Route>) => Promise.all(held.map((route) => route.abort().catch(() => undefined)))

if (chromiumTestsRun) {
  describe("examples/uppy-upload in chromium", () => {
    const running = useExampleInChromium(start)
    const videos = mkdtempSync(join(process.env.COURSEKIT_TEST_TMP ?? tmpdir(), "uppy-upload-videos-"))
    afterAll(() => rmSync(videos, { recursive: true, force: true }))

    /** The example's page, with Uppy loaded, recording its traffic and its errors. */
    const open = async () => {
      const page = await running.browser().newPage()
      const errors: Array<string> = []
      page.on("pageerror", (error) => errors.push(error.message))
      const traffic = watch(page)
      await page.goto(running.example().url)
      await page.waitForFunction(() => window.uppy !== undefined)
      /** Closes the page once every answer's read has settled: then `traffic` is whole. */
      const close = async () => {
        await Promise.allSettled(traffic.pending)
        await page.close()
      }
      return { page, errors, traffic, close }
    }

    /** GET /admin/media/multipart/{id} as an admin. */
    const status = (uploadId: string) =>
      fetch(`${running.example().url}/admin/media/multipart/${uploadId}`, { headers: { authorization: `Bearer ${running.example().adminToken}` } })

    /** Checks that the media file of `media` holds `bytes` and is listed by the page. */
    const expectStored = async (shown: Awaited<ReturnType<typeof uppyState>>, bytes: Buffer) => {
      const media = shown.media!
      expect(media.file_key).toMatch(/^media\/[0-9a-f-]{36}\.mp4$/)
      expect(media).toMatchObject({ name: "lecture.mp4", size_bytes: size, content_type: "video/mp4", visibility: "public" })
      expect(media.url).toBe(`${running.example().url}/files/${media.file_key}`)
      const served = await fetch(media.url)
      expect(served.status).toBe(200)
      expect(sha256(Buffer.from(await served.arrayBuffer()))).toBe(sha256(bytes))
      expect(shown.listed).toEqual([`lecture.mp4: ${media.file_key}, ${size} bytes of video/mp4 (media file ${media.id}).`])
    }

    it("uploads a video in parts of the service's part_size through the endpoints; the stored file has its SHA-256; progress reaches 100 %", async () => {
      const { page, errors, traffic, close } = await open()
      // Uppy's progress as it goes, for (e).
      await page.evaluate(() => {
        const seen: Array<number> = []
        Reflect.set(window, "progressSeen", seen)
        window.uppy.on("upload-progress", (_file, progress) => void seen.push(progress.bytesUploaded))
      })
      const video = newVideo()
      await addAndUpload(page, videos, video)
      await completed(page)
      const shown = await uppyState(page)
      const progressSeen = await page.evaluate(() => Reflect.get(window, "progressSeen") as Array<number>)
      await close()

      expect(errors).toEqual([])
      expect(shown.error).toBe("")
      // The service's part plan, which the page's getChunkSize computes alike.
      expect(partSizeFor(size)).toBe(partSize)
      expect(traffic.created).toEqual([expect.objectContaining({ part_size: partSize, part_count: 4, file_key: shown.media!.file_key })])
      // Create, a part URL for each part, complete: in that order around the parts.
      expect(traffic.api[0]).toBe("POST /admin/media/multipart")
      expect(traffic.api.at(-1)).toBe("POST /admin/media/multipart/:id/complete")
      expect(counts(traffic.api)).toEqual({
        "POST /admin/media/multipart": 1,
        "POST /admin/media/multipart/:id/parts": 4,
        "POST /admin/media/multipart/:id/complete": 1
      })
      // Each part PUT once, cut at part_size.
      expect(traffic.puts).toEqual({ 1: 1, 2: 1, 3: 1, 4: 1 })
      expect(traffic.stored).toEqual({ 1: 1, 2: 1, 3: 1, 4: 1 })
      expect(traffic.lengths).toEqual({ 1: [partSize], 2: [partSize], 3: [partSize], 4: [lastPart] })
      await expectStored(shown, video)
      // (e) Uppy's own progress: rose part by part, never back, to the whole file: 100 %.
      expect(shown).toMatchObject({ totalProgress: 100, percentage: 100, bytesUploaded: size, uploadComplete: true, statusBar: "Complete" })
      expect(progressSeen.length).toBeGreaterThan(1)
      expect(progressSeen[0]).toBeLessThan(size)
      expect(progressSeen.at(-1)).toBe(size)
      expect(progressSeen).toEqual([...progressSeen].sort((a, b) => a - b))
    }, 60_000)

    it("pauses mid-upload and resumes from Uppy's status bar: lists the parts storage holds and PUTs only the others", async () => {
      const { page, errors, traffic, close } = await open()
      // Parts 1 and 2 go through; the first PUTs of parts 3 and 4 are held, so the pause
      // comes with two parts stored and two on their way.
      const held: Array<Route> = []
      let holding = true
      await page.route((url) => url.searchParams.has("partNumber"), (route) => {
        const part = partOf(route.request())!
        if (holding && part >= 3) return void held.push(route)
        return route.continue()
      })
      await page.evaluate(() => {
        const parts: Array<number> = []
        Reflect.set(window, "partsUploaded", parts)
        window.uppy.on("s3-multipart:part-uploaded", (_file, part) => void parts.push(part.PartNumber))
      })
      const video = newVideo()
      await addAndUpload(page, videos, video)
      await page.waitForFunction(() => (Reflect.get(window, "partsUploaded") as Array<number>).length === 2, undefined, { timeout: 30_000 })
      await expect.poll(() => held.length, { timeout: 10_000 }).toBe(2)

      await page.click("[data-cy=togglePauseResume]")
      const paused = await uppyState(page)
      expect(paused).toMatchObject({ isPaused: true, statusBar: "Paused", uploadComplete: false })
      expect(paused.percentage).toBeGreaterThan(0)
      expect(paused.percentage).toBeLessThan(100)
      // The held PUTs never reach storage: it holds parts 1 and 2, whole.
      holding = false
      await drop(held)
      const uploadId = traffic.created[0]!.upload_id
      const meanwhile = await status(uploadId)
      expect(meanwhile.status).toBe(200)
      expect((await meanwhile.json()).parts.map((part: { part_number: number; size_bytes: number }) => [part.part_number, part.size_bytes]))
        .toEqual([[1, partSize], [2, partSize]])
      // Uppy counts parts 1 and 2 as uploaded (in the order their PUTs ended).
      expect((await page.evaluate(() => Reflect.get(window, "partsUploaded") as Array<number>)).sort()).toEqual([1, 2])

      await page.click("[data-cy=togglePauseResume]")
      await completed(page)
      const shown = await uppyState(page)
      await close()

      expect(errors).toEqual([])
      expect(shown.error).toBe("")
      // Resuming asked storage what it holds (GET), signed and PUT parts 3 and 4 again, and
      // never sent parts 1 and 2 twice.
      expect(counts(traffic.api)).toEqual({
        "POST /admin/media/multipart": 1,
        "POST /admin/media/multipart/:id/parts": 6,
        "GET /admin/media/multipart/:id": 1,
        "POST /admin/media/multipart/:id/complete": 1
      })
      expect(traffic.puts).toEqual({ 1: 1, 2: 1, 3: 2, 4: 2 })
      expect(traffic.stored).toEqual({ 1: 1, 2: 1, 3: 1, 4: 1 })
      expect(shown).toMatchObject({ totalProgress: 100, percentage: 100, uploadComplete: true, statusBar: "Complete" })
      await expectStored(shown, video)
      // Completed: the upload is no longer open.
      expect((await status(uploadId)).status).toBe(409)
    }, 60_000)

    it("retries a part PUT storage fails (500) and completes", async () => {
      const { page, errors, traffic, close } = await open()
      let failed = false
      await page.route((url) => url.searchParams.has("partNumber"), (route) => {
        if (!failed && partOf(route.request()) === 2) {
          failed = true
          return route.fulfill({ status: 500, contentType: "application/xml", body: "<Error><Code>InternalError</Code></Error>" })
        }
        return route.continue()
      })
      const video = newVideo()
      await addAndUpload(page, videos, video)
      await completed(page)
      const shown = await uppyState(page)
      await close()

      expect(errors).toEqual([])
      expect(shown.error).toBe("")
      expect(failed).toBe(true)
      // Part 2 signed and PUT twice; the others once.
      expect(counts(traffic.api)).toEqual({
        "POST /admin/media/multipart": 1,
        "POST /admin/media/multipart/:id/parts": 5,
        "POST /admin/media/multipart/:id/complete": 1
      })
      expect(traffic.puts).toEqual({ 1: 1, 2: 2, 3: 1, 4: 1 })
      expect(traffic.stored).toEqual({ 1: 1, 2: 1, 3: 1, 4: 1 })
      expect(shown).toMatchObject({ totalProgress: 100, percentage: 100, uploadComplete: true, statusBar: "Complete" })
      await expectStored(shown, video)
    }, 60_000)

    it("cancels from Uppy's status bar: the upload is deleted (DELETE) and then unknown (404)", async () => {
      const { page, errors, traffic, close } = await open()
      // Every part PUT is held: the upload is under way when it is cancelled.
      const held: Array<Route> = []
      await page.route((url) => url.searchParams.has("partNumber"), (route) => void held.push(route))
      await addAndUpload(page, videos, newVideo())
      await expect.poll(() => held.length, { timeout: 30_000 }).toBe(4)
      const uploadId = traffic.created[0]!.upload_id
      expect((await status(uploadId)).status).toBe(200)

      const deleted = page.waitForResponse((response) => response.request().method() === "DELETE")
      await page.click("[data-cy=cancel]")
      expect((await deleted).status()).toBe(204)
      await drop(held)
      const shown = await uppyState(page)
      await close()

      expect(errors).toEqual([])
      expect(shown.files).toBe(0)
      expect(shown.listed).toEqual([])
      expect(counts(traffic.api)).toEqual({
        "POST /admin/media/multipart": 1,
        "POST /admin/media/multipart/:id/parts": 4,
        "DELETE /admin/media/multipart/:id": 1
      })
      expect(traffic.puts).toEqual({ 1: 1, 2: 1, 3: 1, 4: 1 })
      expect(traffic.stored).toEqual({})
      const gone = await status(uploadId)
      expect(gone.status).toBe(404)
      expect(await gone.json()).toMatchObject({ status: 404, detail: `No multipart upload "${uploadId}" is open here.` })
    }, 60_000)
  })
}
