/**
 * The demo's lecture clip (`Mp4Video`, drawn at start) plays in Debian's chromium
 * (playwright-core): its length and size as drawn, and, while it plays, the frame the
 * time says — the white bar along the bottom grows by one step per frame.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { once } from "node:events"
import { existsSync } from "node:fs"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { type Browser, chromium } from "playwright-core"
import { lectureClip, lectureClipFormat } from "../src/DemoData.ts"

const executablePath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium"

if (existsSync(executablePath) || process.env.COURSEKIT_REQUIRE_BROWSER === "1") {
  describe("the demo's lecture clip in chromium", () => {
    let browser: Browser | undefined
    let server: Server | undefined
    let origin = ""

    beforeAll(async () => {
      const clip = lectureClip()
      server = createServer((request, response) => {
        if (request.url === "/clip.mp4") return void response.writeHead(200, { "content-type": "video/mp4", "content-length": clip.length }).end(clip)
        const { height, width } = lectureClipFormat
        response.writeHead(200, { "content-type": "text/html" })
          .end(`<!doctype html><video src="/clip.mp4" muted preload="auto"></video><canvas width="${width}" height="${height}"></canvas>`)
      })
      server.listen(0, "127.0.0.1")
      await once(server, "listening")
      origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
      browser = await chromium.launch({ executablePath, args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--autoplay-policy=no-user-gesture-required"] })
    }, 60_000)
    afterAll(async () => {
      await browser?.close()
      server?.closeAllConnections()
      await new Promise((done) => server?.close(done))
    })

    it("is 16 s of 256×144, and as it plays each frame shows the bar of its time (one step of 8 px per half second)", async () => {
      const page = await browser!.newPage()
      const errors: Array<string> = []
      page.on("pageerror", (error) => errors.push(error.message))
      await page.goto(origin)
      const played = await page.evaluate(async () => {
        const video = document.querySelector("video")!
        const canvas = document.querySelector("canvas")!.getContext("2d", { willReadFrequently: true })!
        for (let waited = 0; video.readyState < 2; waited += 50) {
          if (video.error !== null || waited > 10_000) return { error: video.error?.message ?? `readyState ${video.readyState}` }
          await new Promise((resolve) => setTimeout(resolve, 50))
        }
        const format = { duration: video.duration, width: video.videoWidth, height: video.videoHeight }
        video.playbackRate = 4
        await video.play()
        // Each reading: the time of the frame presented, and the white pixels of the bar's middle row.
        const readings: Array<{ time: number; white: number }> = []
        // Until 12 s: the last frame's callback can come after the end, or never.
        while (readings.length === 0 || readings.at(-1)!.time < 12) {
          const time = await Promise.race([
            new Promise<number>((resolve) => video.requestVideoFrameCallback((_now, frame) => resolve(frame.mediaTime))),
            new Promise<undefined>((resolve) => setTimeout(resolve, 5_000))
          ])
          if (time === undefined) return { error: `no frame after ${readings.at(-1)?.time ?? 0} s` }
          canvas.drawImage(video, 0, 0)
          const row = canvas.getImageData(0, 136, 256, 1).data
          let white = 0
          for (let x = 0; x < 256; x++) if (row[x * 4]! > 200 && row[x * 4 + 1]! > 200 && row[x * 4 + 2]! > 200) white++
          readings.push({ time, white })
        }
        return { format, readings }
      })
      expect(errors).toEqual([])
      if ("error" in played) throw new Error(`the clip did not load: ${played.error}`)
      expect(played.format).toEqual({ duration: 16, width: 256, height: 144 })
      // At 4× a frame shows for 125 ms: a reading per frame, at least half of the 24 to 12 s.
      for (const { time, white } of played.readings) {
        const frame = Math.round(time * 2)
        expect(white, `the bar at ${time} s`).toBe(Math.round(((frame + 1) / 32) * 256))
      }
      const frames = new Set(played.readings.map(({ time }) => Math.round(time * 2)))
      expect(frames.size).toBeGreaterThanOrEqual(12)
      await page.close()
    }, 60_000)
  })
}
