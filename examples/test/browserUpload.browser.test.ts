/**
 * examples/browser-upload end to end in Debian's chromium (playwright-core): the page
 * creates a course, uploads a thumbnail straight to storage with its progress bar, and
 * shows the thumbnail from its thumbnail_url; a thumbnail that is refused (by the page's
 * check, by storage, or at finalize) leaves no course behind.
 */
import { describe, expect, it } from "@effect/vitest"
import type { Page, Route } from "playwright-core"
import { chromiumTestsRun, useExampleInChromium } from "./ExampleInChromium.ts"
import { png } from "./Png.ts"

/** Answers an intercepted request with a problem, as the service would. */
const answerProblem = (status: number, title: string, detail: string) => (route: Route) =>
  route.fulfill({
    status,
    contentType: "application/problem+json",
    body: JSON.stringify({ type: "about:blank", title, status, detail })
  })

if (chromiumTestsRun) {
  describe("examples/browser-upload in chromium", () => {
    const running = useExampleInChromium()

    for (const [name, mimeType] of [["a PNG", "image/png"], ["a file the browser gives no type (sent as image/jpeg)", ""]] as const) {
      it(`creates a course and uploads ${name} with progress; the thumbnail appears`, async () => {
        const page = await running.browser().newPage()
        const errors: Array<string> = []
        page.on("pageerror", (error) => errors.push(error.message))
        await page.goto(running.example().url)
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
        const base = running.example().url.replace(/\./g, "\\.")
        expect(shown.src).toMatch(new RegExp(`^${base}/files/courses/\\d+/[0-9a-f-]{36}\\.${mimeType === "" ? "jpg" : "png"}$`))
        // The stored bytes are the file's, served with the type it was uploaded as.
        const served = await fetch(shown.src)
        expect(served.headers.get("content-type")).toBe(mimeType === "" ? "image/jpeg" : "image/png")
        expect(Buffer.from(await served.arrayBuffer())).toEqual(image)
        await page.close()
      }, 60_000)
    }

    /** The catalogue as GET /courses lists it. */
    const courses = async (): Promise<Array<{ readonly id: number; readonly title: string }>> => {
      const response = await fetch(`${running.example().url}/courses`)
      expect(response.status).toBe(200)
      return response.json()
    }

    /** Submits the form with the file `choose` gives; answers what the page then shows. */
    const submit = async (page: Page, title: string, choose: () => Promise<unknown>) => {
      await page.goto(running.example().url)
      await page.fill("#title", title)
      await choose()
      await page.click("#submit")
      await page.waitForSelector("#error:not(:empty)", { timeout: 30_000 })
      await page.waitForSelector("#submit:not([disabled])", { timeout: 30_000 })
      return page.evaluate(() => ({
        error: document.getElementById("error")!.textContent,
        status: document.getElementById("status")!.textContent,
        result: !(document.getElementById("result") as HTMLElement).hidden
      }))
    }

    const refusals: ReadonlyArray<{
      readonly name: string
      readonly prepare?: (page: Page) => Promise<unknown>
      readonly choose: (page: Page) => Promise<unknown>
      readonly error: string
      readonly status: string
      readonly requests: ReadonlyArray<string>
    }> = [
      {
        name: "a file that is no image (refused by the page before the course is created)",
        choose: (page) => page.setInputFiles("#file", { name: "notes.txt", mimeType: "text/plain", buffer: Buffer.from("not an image") }),
        error: "notes.txt is text/plain; a thumbnail must be one of image/jpeg, image/png, image/webp, image/gif, image/avif.",
        status: "",
        requests: []
      },
      {
        name: "an image over the 10 MiB limit (refused by the page before the course is created)",
        choose: (page) =>
          page.evaluate(() => {
            const files = new DataTransfer()
            files.items.add(new File([new Uint8Array(10 * 1024 * 1024 + 1)], "huge.png", { type: "image/png" }))
            ;(document.getElementById("file") as HTMLInputElement).files = files.files
          }),
        error: "huge.png is 10485761 bytes; a thumbnail may be at most 10485760 bytes.",
        status: "",
        requests: []
      },
      {
        name: "refused by the service although the page let it through (upload-url answered 415)",
        prepare: (page) =>
          page.route("**/upload-url", answerProblem(415, "Unsupported Media Type", "Not this type.")),
        choose: (page) => page.setInputFiles("#file", { name: "thumbnail.png", mimeType: "image/png", buffer: png(40) }),
        error: "415: Not this type.",
        status: "The course was not created.",
        requests: ["POST /courses", "POST /courses/:id/upload-url", "DELETE /courses/:id"]
      },
      {
        name: "an image storage refuses (the PUT answered 403)",
        prepare: (page) =>
          page.route("**/*", (route) =>
            route.request().method() === "PUT" ? route.fulfill({ status: 403, body: "Signature expired" }) : route.continue()),
        choose: (page) => page.setInputFiles("#file", { name: "thumbnail.png", mimeType: "image/png", buffer: png(40) }),
        error: "403: The storage answered the PUT with HTTP 403: Signature expired",
        status: "The course was not created.",
        requests: ["POST /courses", "POST /courses/:id/upload-url", "PUT", "DELETE /courses/:id"]
      },
      {
        name: "an image whose finalize fails (503)",
        prepare: (page) =>
          page.route("**/finalize-upload", answerProblem(503, "Service Unavailable", "Storage is unreachable.")),
        choose: (page) => page.setInputFiles("#file", { name: "thumbnail.png", mimeType: "image/png", buffer: png(40) }),
        error: "503: Storage is unreachable.",
        status: "The course was not created.",
        requests: ["POST /courses", "POST /courses/:id/upload-url", "PUT", "POST /courses/:id/finalize-upload", "DELETE /courses/:id"]
      }
    ]
    for (const refusal of refusals) {
      it(`leaves no course behind when the thumbnail is ${refusal.name}`, async () => {
        const before = await courses()
        const page = await running.browser().newPage()
        const errors: Array<string> = []
        page.on("pageerror", (error) => errors.push(error.message))
        // What the page asked of the service, past the page itself.
        const requests: Array<string> = []
        page.on("request", (request) => {
          const path = new URL(request.url()).pathname
          if (path === "/" || path === "/app.js" || path === "/favicon.ico") return
          requests.push(request.method() === "PUT" ? "PUT" : `${request.method()} ${path.replace(/\/courses\/\d+/, "/courses/:id")}`)
        })
        await refusal.prepare?.(page)
        const title = `Refused: ${refusal.name}`
        const shown = await submit(page, title, () => refusal.choose(page))
        await page.close()
        // GET /courses shows no course for it: the catalogue is as it was.
        const after = await courses()
        expect(after.filter((course) => course.title === title)).toEqual([])
        expect(after).toEqual(before)
        expect(errors).toEqual([])
        expect(shown.error).toBe(refusal.error)
        expect(shown.status).toBe(refusal.status)
        expect(shown.result).toBe(false)
        expect(requests).toEqual(refusal.requests)
      }, 60_000)
    }
  })
}
