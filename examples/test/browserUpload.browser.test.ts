/**
 * examples/browser-upload end to end in Debian's chromium (playwright-core): the page
 * creates a course, uploads a thumbnail straight to storage with its progress bar, and
 * shows the thumbnail from its thumbnail_url.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { existsSync } from "node:fs"
import { crc32, deflateSync } from "node:zlib"
import { type Browser, chromium } from "playwright-core"
import { start } from "../browser-upload/server.ts"

const executablePath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium"
const required = process.env.COURSEKIT_REQUIRE_BROWSER === "1"

/** A real PNG of `size`×`size` pixels, a colour gradient (so it does not compress to nothing). */
const png = (size: number): Buffer => {
  const chunk = (type: string, data: Buffer) => {
    const length = Buffer.alloc(4)
    length.writeUInt32BE(data.length)
    const body = Buffer.concat([Buffer.from(type, "latin1"), data])
    const crc = Buffer.alloc(4)
    crc.writeUInt32BE(crc32(body))
    return Buffer.concat([length, body, crc])
  }
  const header = Buffer.alloc(13)
  header.writeUInt32BE(size, 0)
  header.writeUInt32BE(size, 4)
  header.set([8, 2, 0, 0, 0], 8) // 8-bit RGB
  const rows = Buffer.alloc(size * (1 + size * 3))
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) rows.set([(x * 7 + y) % 256, (y * 13) % 256, (x * y) % 256], y * (1 + size * 3) + 1 + x * 3)
  }
  return Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk("IHDR", header), chunk("IDAT", deflateSync(rows, { level: 0 })), chunk("IEND", Buffer.alloc(0))])
}

if (existsSync(executablePath) || required) {
  describe("examples/browser-upload in chromium", () => {
    let browser: Browser | undefined
    let example: Awaited<ReturnType<typeof start>> | undefined

    beforeAll(async () => {
      example = await start(0)
      browser = await chromium.launch({ executablePath, args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"] })
    }, 120_000)
    afterAll(async () => {
      await browser?.close()
      await example?.close()
    })

    for (const [name, mimeType] of [["a PNG", "image/png"], ["a file the browser gives no type (sent as image/jpeg)", ""]] as const) {
      it(`creates a course and uploads ${name} with progress; the thumbnail appears`, async () => {
        const page = await browser!.newPage()
        const errors: Array<string> = []
        page.on("pageerror", (error) => errors.push(error.message))
        await page.goto(example!.url)
        await page.fill("#title", `Course with ${name}`)
        const image = png(300)
        if (mimeType === "") {
          // What some browsers hand over for files of unknown type: a File whose type is "".
          await page.evaluate((base64) => {
            const bytes = Uint8Array.from(atob(base64), (char) => char.charCodeAt(0))
            const files = new DataTransfer()
            files.items.add(new File([bytes], "thumbnail", { type: "" }))
            ;(document.getElementById("file") as HTMLInputElement).files = files.files
          }, image.toString("base64"))
        } else {
          await page.setInputFiles("#file", { name: "thumbnail.png", mimeType, buffer: image })
        }
        await page.click("#submit")
        await page.waitForSelector("#result:not([hidden]), #error:not(:empty)", { timeout: 30_000 })
        const shown = await page.evaluate(async () => {
          const img = document.getElementById("thumbnail") as HTMLImageElement
          await img.decode()
          return {
            src: img.src,
            width: img.naturalWidth,
            progress: (document.getElementById("progress") as HTMLProgressElement).value,
            error: document.getElementById("error")!.textContent,
            caption: document.getElementById("caption")!.textContent
          }
        })
        expect(errors).toEqual([])
        expect(shown.error).toBe("")
        expect(shown.width).toBe(300)
        expect(shown.progress).toBe(1)
        expect(shown.caption).toContain(`Course with ${name}`)
        expect(shown.src.startsWith(`${example!.url}/files/courses/`)).toBe(true)
        expect(shown.src.endsWith(mimeType === "" ? ".jpg" : ".png")).toBe(true)
        // The stored bytes are the file's, served with the type it was uploaded as.
        const served = await fetch(shown.src)
        expect(served.headers.get("content-type")).toBe(mimeType === "" ? "image/jpeg" : "image/png")
        expect(Buffer.from(await served.arrayBuffer()).equals(image)).toBe(true)
        await page.close()
      }, 60_000)
    }
  })
}
