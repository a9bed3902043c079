/**
 * A paid lesson's private video, end to end in Debian's chromium (playwright-core) on
 * examples/browser-upload: the page uploads a real MP4 (fixtures/lecture.mp4) as a private
 * media file and adds it to a paid lesson; a buyer's public course gives its signed
 * video_url, which chromium plays and seeks through 206 answers to Range requests. The
 * URL with another signature, or none, is 403; a visitor and a refunded buyer see the
 * lesson locked, with no URL.
 */
import { describe, expect, it } from "@effect/vitest"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import type { Page } from "playwright-core"
import { chromiumTestsRun, useExampleInChromium } from "./ExampleInChromium.ts"
import { png } from "./Png.ts"


/** 16 s of H.264 (Main, 480×270, 25 fps, a keyframe each second), moov first; see fixtures/README.md. */
const lecture = readFileSync(join(import.meta.dirname, "fixtures/lecture.mp4"))
const lectureSeconds = 16

/** MEDIA_URL_TTL's default: 4 hours. */
const urlTtlSeconds = 4 * 60 * 60
/** How much earlier than the TTL a handed-out URL may expire: `MediaUrls.reuseWindow` of 4 hours. */
const reuseWindowSeconds = 15 * 60

interface PublicLesson {
  readonly id: number
  readonly title: string
  readonly is_preview: boolean
  readonly access: string
  readonly content_html: string | null
  readonly video_url: string | null
  readonly video_url_expires_at: string | null
}

if (chromiumTestsRun) {
  describe("examples/browser-upload: a paid lesson's private video in chromium", () => {
    const running = useExampleInChromium()

    /** A viewer token for `user`, from the example's demo endpoint (HS256 with the service's JWT_SECRET). */
    const tokenFor = async (user: string) => {
      const response = await fetch(`${running.example().url}/demo/viewer-token`, { method: "POST", body: JSON.stringify({ user_id: user }) })
      expect(response.status).toBe(200)
      return ((await response.json()) as { token: string }).token
    }

    /** GET /public/courses/{slug} as the holder of `token` (none: anonymous). */
    const publicCourse = async (slug: string, token?: string) => {
      const response = await fetch(`${running.example().url}/public/courses/${slug}`, token === undefined ? {} : { headers: { authorization: `Bearer ${token}` } })
      expect(response.status).toBe(200)
      return (await response.json()) as { readonly purchased: boolean; readonly lessons: ReadonlyArray<PublicLesson> }
    }

    const shown = (page: Page) =>
      page.evaluate(() => ({
        access: document.getElementById("access")!.textContent,
        playerHidden: (document.getElementById("player") as HTMLVideoElement).hidden,
        src: (document.getElementById("player") as HTMLVideoElement).getAttribute("src")
      }))

    it("plays a buyer's private MP4 through its signed URL and seeks with Range requests (206); other URLs 403; visitors and refunded buyers get none", async () => {
      const page = await running.browser().newPage()
      const errors: Array<string> = []
      page.on("pageerror", (error) => errors.push(error.message))
      await page.goto(running.example().url)

      // The course, with its thumbnail (the page's first form).
      await page.fill("#title", "Ownership in practice")
      await page.setInputFiles("#file", { name: "thumbnail.png", mimeType: "image/png", buffer: png(64) })
      await page.click("#submit")
      await page.waitForSelector("#lesson-section:not([hidden])", { timeout: 30_000 })
      const slug = (await page.textContent("#caption"))!.match(/\(([a-z0-9-]+)\)$/)![1]!

      // The lesson: the video goes up as a private media file (upload-url, PUT, finalize).
      const calls: Array<{ readonly call: string; readonly body: unknown }> = []
      page.on("request", (request) => {
        const path = new URL(request.url()).pathname
        if (request.method() === "GET") return
        calls.push({ call: `${request.method()} ${path.replace(/[0-9a-f-]{36}/, "<uuid>").replace(/\/courses\/\d+/, "/courses/:id")}`, body: request.method() === "PUT" ? null : request.postDataJSON() })
      })
      await page.setInputFiles("#video", { name: "lecture.mp4", mimeType: "video/mp4", buffer: lecture })
      await page.click("#lesson-submit")
      await page.waitForSelector("#viewer-section:not([hidden]), #lesson-error:not(:empty)", { timeout: 30_000 })
      expect(await page.textContent("#lesson-error")).toBe("")
      const status = (await page.textContent("#lesson-status"))!
      const videoKey = status.match(/\((private\/media\/[0-9a-f-]{36}\.mp4)\)/)![1]!
      expect(status).toBe(`Lesson 1 "Moves and borrows" added; its video (${videoKey}) is private.`)
      expect(await page.evaluate(() => (document.getElementById("lesson-progress") as HTMLProgressElement).value)).toBe(1)
      expect(calls).toEqual([
        { call: "POST /admin/media/upload-url", body: { filename: "lecture.mp4", type: "video/mp4", size_bytes: lecture.length, visibility: "private" } },
        { call: "PUT /storage/private/media/<uuid>.mp4", body: null },
        { call: "POST /admin/media/finalize-upload", body: { file_key: videoKey } },
        { call: "POST /courses/:id/lessons", body: { title: "Moves and borrows", video_key: videoKey, is_preview: false } }
      ])

      // A visitor: the lesson is locked, with no URL, on the page and in the API.
      await page.click("#as-visitor")
      await page.waitForFunction(() => document.getElementById("access")!.textContent!.startsWith("As a visitor"))
      expect(await shown(page)).toEqual({ access: `As a visitor: "Moves and borrows" is locked; buy the course to watch it.`, playerHidden: true, src: null })
      const anonymous = await publicCourse(slug)
      expect(anonymous.purchased).toBe(false)
      expect(anonymous.lessons).toEqual([
        { id: anonymous.lessons[0]!.id, title: "Moves and borrows", position: 1, is_preview: false, access: "locked", content_html: null, video_url: null, video_url_expires_at: null, available_at: null }
      ])

      // Every answer chromium gets for the video's URL, from here on.
      const responses: Array<{ readonly url: string; readonly status: number; readonly range: string | null; readonly contentRange: string | null; readonly cacheControl: string | null; readonly afterSeek: boolean }> = []
      let seeking = false
      page.on("response", (response) => {
        if (!new URL(response.url()).pathname.startsWith("/files/private/media/")) return
        const headers = response.headers()
        responses.push({
          url: response.url(),
          status: response.status(),
          range: response.request().headers()["range"] ?? null,
          contentRange: headers["content-range"] ?? null,
          cacheControl: headers["cache-control"] ?? null,
          afterSeek: seeking
        })
      })
      // Loopback serves 2 MiB at once, and chromium would buffer the whole file before the
      // seek; at 200 KiB/s (above the video's 125 KiB/s) the middle is not there yet when
      // the seek asks for it, so chromium asks for it with a new Range request, as it does
      // on a real network.
      const cdp = await page.context().newCDPSession(page)
      await cdp.send("Network.enable")
      await cdp.send("Network.emulateNetworkConditions", { offline: false, latency: 0, downloadThroughput: 200 * 1024, uploadThroughput: -1 })

      // The buyer: a purchase, then the public course read with their token plays the video.
      await page.fill("#user", "student-42")
      const bought = Date.now()
      await page.click("#buy")
      await page.waitForSelector("#player:not([hidden])", { timeout: 30_000 })
      const buyerView = await shown(page)
      const videoUrl = buyerView.src!
      const base = running.example().url.replace(/\./g, "\\.")
      expect(videoUrl).toMatch(new RegExp(`^${base}/files/${videoKey}\\?expires=\\d+&signature=[A-Za-z0-9_-]+$`))
      const expiresAt = Number(new URL(videoUrl).searchParams.get("expires"))
      // One URL is handed out per 15-minute window (MediaUrls.reuseWindow): it expires within the TTL, at most 15 minutes early.
      expect(expiresAt).toBeGreaterThanOrEqual(Math.floor(bought / 1000) + urlTtlSeconds - reuseWindowSeconds - 1)
      expect(expiresAt).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + urlTtlSeconds)
      expect(buyerView.access).toBe(`As student-42: "Moves and borrows" is purchased; its video's signed URL works until ${new Date(expiresAt * 1000).toISOString()}.`)

      const buyerToken = await tokenFor("student-42")
      const asBuyer = await publicCourse(slug, buyerToken)
      expect(asBuyer.purchased).toBe(true)
      const buyerLesson = asBuyer.lessons[0]!
      expect({ ...buyerLesson, video_url: null, video_url_expires_at: null }).toEqual({ ...anonymous.lessons[0], access: "purchased", content_html: "" })
      expect(buyerLesson.video_url).toMatch(new RegExp(`^${base}/files/${videoKey}\\?expires=\\d+&signature=[A-Za-z0-9_-]+$`))
      expect(buyerLesson.video_url_expires_at).toBe(new Date(Number(new URL(buyerLesson.video_url!).searchParams.get("expires")) * 1000).toISOString())

      // Play, then seek to the middle; playback goes on from there.
      const played = await page.evaluate(async () => {
        const video = document.getElementById("player") as HTMLVideoElement
        video.muted = true // chromium lets a muted video play without a user's gesture
        await video.play()
        await new Promise<void>((done) => {
          const check = () => video.currentTime >= 1 ? done() : video.addEventListener("timeupdate", check, { once: true })
          check()
        })
        return { duration: video.duration, width: video.videoWidth, height: video.videoHeight, currentTime: video.currentTime }
      })
      expect(played.duration).toBe(lectureSeconds)
      expect([played.width, played.height]).toEqual([480, 270])
      seeking = true
      const middle = lectureSeconds / 2
      const resumed = await page.evaluate(async (target) => {
        const video = document.getElementById("player") as HTMLVideoElement
        const seeked = new Promise<void>((done) => video.addEventListener("seeked", () => done(), { once: true }))
        video.currentTime = target
        await seeked
        await new Promise<void>((done) => {
          const check = () => video.currentTime >= target + 1 ? done() : video.addEventListener("timeupdate", check, { once: true })
          check()
        })
        const result = { currentTime: video.currentTime, paused: video.paused, error: video.error?.code ?? null }
        video.pause()
        return result
      }, middle)
      expect(resumed.paused).toBe(false)
      expect(resumed.error).toBeNull()
      expect(resumed.currentTime).toBeGreaterThanOrEqual(middle + 1)
      expect(resumed.currentTime).toBeLessThan(lectureSeconds)
      await cdp.send("Network.emulateNetworkConditions", { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 })

      // What chromium received: byte ranges of the file, 206 each, cached privately until the URL expires.
      expect(responses.length).toBeGreaterThanOrEqual(2)
      for (const response of responses) {
        expect(response.url).toBe(videoUrl)
        expect(response.status).toBe(206)
        const [, from, to] = response.contentRange!.match(new RegExp(`^bytes (\\d+)-(\\d+)/${lecture.length}$`))!
        expect(response.range).toMatch(new RegExp(`^bytes=${from}-(${to})?$`))
        expect(Number(to)).toBeLessThan(lecture.length)
        const maxAge = Number(response.cacheControl!.match(/^private, max-age=(\d+)$/)![1])
        expect(maxAge).toBeGreaterThan(urlTtlSeconds - reuseWindowSeconds - 120)
        expect(maxAge).toBeLessThanOrEqual(urlTtlSeconds)
      }
      expect(responses[0]!.contentRange).toMatch(new RegExp(`^bytes 0-\\d+/${lecture.length}$`))
      // The seek's request starts past 0, around the middle of the file (8 s of a constant bit rate).
      const seekStarts = responses.filter((response) => response.afterSeek).map((response) => Number(response.contentRange!.match(/^bytes (\d+)-/)![1]))
      expect(seekStarts.length).toBeGreaterThanOrEqual(1)
      expect(seekStarts[0]).toBeGreaterThan(lecture.length * 0.3)
      expect(seekStarts[0]).toBeLessThan(lecture.length * 0.7)

      // The bytes served are the file's.
      const whole = await fetch(videoUrl)
      expect(whole.status).toBe(200)
      expect(Buffer.from(await whole.arrayBuffer()).equals(lecture)).toBe(true)

      // Another signature, or none, is refused.
      const signature = new URL(videoUrl).searchParams.get("signature")!
      const forged = new URL(videoUrl)
      forged.searchParams.set("signature", `${signature[0] === "A" ? "B" : "A"}${signature.slice(1)}`)
      const unsigned = videoUrl.split("?")[0]!
      for (const refused of [forged.href, unsigned]) {
        const answer = await fetch(refused, { headers: { range: "bytes=0-99" } })
        expect({ url: refused, status: answer.status, type: answer.headers.get("content-type") }).toEqual({ url: refused, status: 403, type: "application/problem+json" })
      }

      // The refund: the buyer's next read shows the lesson locked, with no URL.
      await page.click("#refund")
      await page.waitForSelector("#player[hidden]", { state: "attached", timeout: 30_000 })
      expect(await shown(page)).toEqual({ access: `As student-42: "Moves and borrows" is locked; buy the course to watch it.`, playerHidden: true, src: null })
      const refunded = await publicCourse(slug, buyerToken)
      expect(refunded.purchased).toBe(false)
      expect(refunded.lessons).toEqual(anonymous.lessons)

      // The demo token endpoint signs only what the service takes as a user id.
      for (const body of [{ user_id: "" }, { user_id: "a\nb" }, { user: "student-42" }]) {
        const answer = await fetch(`${running.example().url}/demo/viewer-token`, { method: "POST", body: JSON.stringify(body) })
        expect({ body, status: answer.status, problem: await answer.json() }).toEqual({
          body,
          status: 400,
          problem: { type: "about:blank", title: "Bad Request", status: 400, detail: "Send {\"user_id\": \"…\"}: 1 to 255 characters, no control characters." }
        })
      }

      expect(errors).toEqual([])
      await page.close()
    }, 120_000)
  })
}
