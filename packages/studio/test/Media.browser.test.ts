/**
 * The Media view end to end in Debian's chromium against `npm start` (StudioInChromium):
 * several files uploaded at once, chosen with "Upload files" or dropped on the drop zone
 * (a drag from the desktop through chromium's input; a text file refused at the zone):
 * one presigned PUT each below the client's multipart threshold, parts in parallel above
 * it, each with its own progress bar; "Pause" and
 * "Resume" of an upload in parts; a dropped connection (parts retried, then "Failed" and
 * "Resume", which sends only the parts storage lacks); a reload in the middle of a 200 MiB upload that resumes
 * from the parts storage holds (bytes sent again: at most one part per part in flight);
 * "Private (paid lessons)"; "Used by" naming the lesson that plays a file, or "Not used";
 * "Delete" asked first, and the API's 409 naming the lesson that plays the file. axe-core
 * on the view; the screenshot for docs/studio.md.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { FileChooser, Page } from "playwright-core"
import { authors, chromiumTestsRun, expectConsoleError, expectRefusal, openStudioAtPublicUrl, seriousViolations, useStudio } from "./StudioInChromium.ts"

const screenshots = join(import.meta.dirname, "../../../docs/studio")
const MiB = 1024 * 1024
const admin = { authorization: `Bearer ${authors.alice}` }

interface StoredMedia {
  readonly id: number
  readonly name: string
  readonly file_key: string
  readonly visibility: string
  readonly size_bytes: number
}

const storedMedia = async (url: string): Promise<ReadonlyArray<StoredMedia>> => {
  const all: Array<StoredMedia> = []
  let next: string | undefined = `${url}/admin/media?limit=50`
  while (next !== undefined) {
    const response: Response = await fetch(next, { headers: admin })
    expect(response.status).toBe(200)
    all.push(...((await response.json()) as ReadonlyArray<StoredMedia>))
    const link = /<([^>]+)>;\s*rel="next"/.exec(response.headers.get("link") ?? "")?.[1]
    next = link === undefined ? undefined : new URL(link, url).href
  }
  return all
}

/** A media file uploaded through the API (upload-url, PUT, finalize), as a script would. */
const uploadThroughApi = async (url: string, name: string, visibility: "public" | "private") => {
  const bytes = Buffer.alloc(4096, 9)
  const issued = await (await fetch(`${url}/admin/media/upload-url`, {
    method: "POST",
    headers: { ...admin, "content-type": "application/json" },
    body: JSON.stringify({ filename: name, type: "video/mp4", size_bytes: bytes.length, visibility })
  })).json() as { upload_url: string; file_key: string; headers: Record<string, string> }
  expect((await fetch(issued.upload_url, { method: "PUT", headers: issued.headers, body: bytes })).status).toBe(200)
  const finalized = await fetch(`${url}/admin/media/finalize-upload`, {
    method: "POST",
    headers: { ...admin, "content-type": "application/json" },
    body: JSON.stringify({ file_key: issued.file_key })
  })
  expect(finalized.status).toBe(200)
  return (await finalized.json()) as StoredMedia
}

/** A draft course with one lesson, through the API. */
const courseWithLesson = async (url: string, title: string, lesson: Record<string, unknown>) => {
  const course = await (await fetch(`${url}/courses`, {
    method: "POST",
    headers: { ...admin, "content-type": "application/json" },
    body: JSON.stringify({ title, content_html: "", status: "draft" })
  })).json() as { id: number }
  const response = await fetch(`${url}/courses/${course.id}/lessons`, {
    method: "POST",
    headers: { ...admin, "content-type": "application/json" },
    body: JSON.stringify({ title: "Watch this", content_html: "", ...lesson })
  })
  expect(response.status).toBe(201)
  return { courseId: course.id, lessonId: ((await response.json()) as { id: number }).id }
}

/** Signed in at the server's public URL: uploads go to the storage address it hands out, the page's own origin. */
const openMedia = async (studio: ReturnType<typeof useStudio>) => {
  const { context, page, publicUrl } = await openStudioAtPublicUrl(studio, "alice")
  await page.getByRole("link", { name: "Media" }).click()
  await page.getByRole("heading", { name: "Media", level: 1 }).waitFor()
  return { context, page, publicUrl }
}

const chooseFiles = async (page: Page, files: Parameters<FileChooser["setFiles"]>[0]) => {
  const chooser: Promise<FileChooser> = page.waitForEvent("filechooser")
  await page.getByRole("button", { name: "Upload files" }).click()
  await (await chooser).setFiles(files)
}

const upload = (page: Page, name: string) => page.getByRole("listitem", { name, exact: true })
const bar = (page: Page, name: string) => page.getByRole("progressbar", { name: `Uploading ${name}` })
const percentOf = async (page: Page, name: string) => Number(await bar(page, name).getAttribute("aria-valuenow"))

/** Every part PUT the page starts, by part number (`?partNumber=`); one PUTs as 0. */
const recordPuts = (page: Page) => {
  const started: Array<number> = []
  const finished: Array<number> = []
  const partOf = (url: string) => Number(new URL(url).searchParams.get("partNumber") ?? 0)
  page.on("request", (request) => {
    if (request.method() === "PUT") started.push(partOf(request.url()))
  })
  page.on("requestfinished", (request) => {
    if (request.method() !== "PUT") return
    request.response().then((response) => {
      if (response?.status() === 200) finished.push(partOf(request.url()))
    }, () => undefined)
  })
  return { started, finished }
}

/** Holds every PUT to storage `ms` before it goes: slow enough to pause, reload, watch. */
const slowStorage = (page: Page, ms: number) =>
  page.route("**/storage/**", async (route) => {
    if (route.request().method() === "PUT") await new Promise((resolve) => setTimeout(resolve, ms))
    await route.continue().catch(() => undefined)
  })

/** Files on disk (playwright hands a browser no buffer over 50 MB), in a directory of their own. */
const filesOnDisk = () => {
  let dir: string | undefined
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "coursekit-media-"))
  })
  afterAll(() => {
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true })
  })
  return (name: string, size: number, fill: number) => {
    const path = join(dir!, name)
    writeFileSync(path, Buffer.alloc(size, fill))
    return path
  }
}

describe.runIf(chromiumTestsRun)("Studio in chromium: Media", () => {
  const studio = useStudio()
  const fileOf = filesOnDisk()

  it("several files at once, one PUT each below the threshold and in parts above it; a bar per file; Pause and Resume; Private", async () => {
    const { context, page } = await openMedia(studio)
    expect(await seriousViolations(page)).toEqual([])
    const puts = recordPuts(page)
    await slowStorage(page, 1500)
    // React Aria's checkbox input is visually hidden: the author clicks its label.
    await page.getByText("Private (paid lessons)").click()
    expect(await page.getByRole("checkbox", { name: "Private (paid lessons)" }).isChecked()).toBe(true)
    await chooseFiles(page, [fileOf("intro.mp4", 300 * 1024, 1), fileOf("cover.png", 40 * 1024, 2), fileOf("lecture.mp4", 80 * MiB, 3)])
    for (const name of ["intro.mp4", "cover.png", "lecture.mp4"]) await bar(page, name).waitFor()
    // The large one: some parts in, then paused; nothing more goes out.
    await expect.poll(() => percentOf(page, "lecture.mp4"), { timeout: 60_000 }).toBeGreaterThan(5)
    await expect.poll(() => bar(page, "lecture.mp4").getAttribute("aria-valuetext"), { timeout: 10_000 }).toMatch(/^\d+ % · [\d.]+ [kMG]?B\/s · .+ left$/)
    await upload(page, "lecture.mp4").getByRole("button", { name: "Pause" }).click()
    await upload(page, "lecture.mp4").getByText("(Paused, private)").waitFor()
    await upload(page, "intro.mp4").getByText("(Uploaded, private)").waitFor({ timeout: 30_000 })
    await upload(page, "cover.png").getByText("(Uploaded, private)").waitFor({ timeout: 30_000 })
    expect(await seriousViolations(page)).toEqual([])
    mkdirSync(screenshots, { recursive: true })
    await page.screenshot({ path: join(screenshots, "media.png") })
    const partsBefore = new Set(puts.finished.filter((part) => part > 0))
    const startedBefore = puts.started.length
    await new Promise((resolve) => setTimeout(resolve, 1500))
    expect(puts.started.length, "nothing goes out while paused").toBe(startedBefore)

    await upload(page, "lecture.mp4").getByRole("button", { name: "Resume" }).click()
    await upload(page, "lecture.mp4").getByText("(Uploaded, private)").waitFor({ timeout: 120_000 })
    // Resumed: the parts storage held were not sent again.
    const resent = puts.started.slice(startedBefore).filter((part) => partsBefore.has(part))
    expect(resent).toEqual([])
    // One PUT each for the small files, 16 parts (5 MiB) for the large one.
    expect(puts.started.filter((part) => part === 0)).toHaveLength(2)
    const stored = await storedMedia(studio.url())
    expect(stored.map(({ name, visibility, size_bytes }) => ({ name, visibility, size_bytes }))).toEqual(expect.arrayContaining([
      { name: "intro.mp4", visibility: "private", size_bytes: 300 * 1024 },
      { name: "cover.png", visibility: "private", size_bytes: 40 * 1024 },
      { name: "lecture.mp4", visibility: "private", size_bytes: 80 * MiB }
    ]))
    // The library shows them.
    const library = page.getByRole("table", { name: "Library" })
    await library.getByRole("rowheader", { name: "lecture.mp4" }).waitFor()
    expect(await library.getByRole("row").filter({ hasText: "lecture.mp4" }).textContent()).toContain("Private")
    await context.close()
  }, 240_000)

  it("files dropped on the drop zone upload as the button's do; a type the library does not take is refused at the zone", async () => {
    const { context, page } = await openMedia(studio)
    const zone = page.locator(".drop-zone")
    // A drag of files from the desktop, through chromium's own input (DevTools protocol).
    const cdp = await context.newCDPSession(page)
    const box = (await zone.boundingBox())!
    const at = { x: box.x + box.width / 2, y: box.y + box.height / 2 }
    // dragOperationsMask 1: a copy, what a file manager offers.
    const drag = (type: "dragEnter" | "dragOver" | "drop", files: ReadonlyArray<string>) =>
      cdp.send("Input.dispatchDragEvent", { type, ...at, data: { items: [], files: [...files], dragOperationsMask: 1 } })
    // A text file: the zone says it cannot take it, and nothing uploads.
    const notes = fileOf("notes.txt", 10, 0x41)
    await drag("dragEnter", [notes])
    await drag("dragOver", [notes])
    expect(await zone.getAttribute("data-drop-target")).toBeNull()
    await drag("drop", [notes])
    // Two files the library takes, dropped together.
    const dropped = [fileOf("dropped-clip.mp4", 20 * 1024, 5), fileOf("dropped-still.png", 8 * 1024, 6)]
    await drag("dragEnter", dropped)
    await drag("dragOver", dropped)
    await expect.poll(() => zone.getAttribute("data-drop-target")).toBe("true")
    await drag("drop", dropped)
    await upload(page, "dropped-clip.mp4").getByText("(Uploaded)").waitFor({ timeout: 30_000 })
    await upload(page, "dropped-still.png").getByText("(Uploaded)").waitFor({ timeout: 30_000 })
    expect(await upload(page, "notes.txt").count()).toBe(0)
    const stored = await storedMedia(studio.url())
    // Both went up at once: recorded in either order.
    expect(stored.filter(({ name }) => name.startsWith("dropped-") || name === "notes.txt").map(({ name, visibility, size_bytes }) => ({ name, visibility, size_bytes }))
      .sort((a, b) => a.name.localeCompare(b.name)))
      .toEqual([
        { name: "dropped-clip.mp4", visibility: "public", size_bytes: 20 * 1024 },
        { name: "dropped-still.png", visibility: "public", size_bytes: 8 * 1024 }
      ])
    expect(await seriousViolations(page)).toEqual([])
    await context.close()
  })

  it("Cancel of an upload in parts deletes it: nothing remembered, nothing recorded", async () => {
    const { context, page } = await openMedia(studio)
    await slowStorage(page, 400)
    await chooseFiles(page, fileOf("dropped.mp4", 70 * MiB, 4))
    await expect.poll(() => percentOf(page, "dropped.mp4"), { timeout: 60_000 }).toBeGreaterThan(5)
    await upload(page, "dropped.mp4").getByRole("button", { name: "Cancel" }).click()
    await upload(page, "dropped.mp4").waitFor({ state: "detached" })
    await expect.poll(() => page.evaluate(() => Object.keys(localStorage).filter((key) => key.startsWith("coursekit:multipart:")).length)).toBe(0)
    expect((await storedMedia(studio.url())).some((media) => media.name === "dropped.mp4")).toBe(false)
    await context.close()
  }, 120_000)

  it("a reload in the middle of a 200 MiB upload: the same file again resumes; bytes sent again at most one part per part in flight", async () => {
    {
      const path = fileOf("course-video.mp4", 200 * MiB, 5)
      const { context, page } = await openMedia(studio)
      const puts = recordPuts(page)
      await slowStorage(page, 300)
      await chooseFiles(page, path)
      await expect.poll(() => new Set(puts.finished).size, { timeout: 120_000 }).toBeGreaterThanOrEqual(12)
      const partsBefore = new Set(puts.finished)
      const sentBefore = puts.started.length
      await page.reload()
      await page.getByRole("heading", { name: "Media", level: 1 }).waitFor()
      await chooseFiles(page, path)
      await upload(page, "course-video.mp4").getByText("(Uploaded)").waitFor({ timeout: 240_000 })
      // 200 MiB in 5 MiB parts: 40. Sent in all: the 40, and again at most the 4 in flight at the reload.
      const partSize = 5 * MiB
      const partCount = 40
      const after = puts.started.slice(sentBefore)
      expect(after.filter((part) => partsBefore.has(part)), "a part storage held is not sent again").toEqual([])
      expect(puts.started.length * partSize - 200 * MiB).toBeLessThanOrEqual(4 * partSize)
      expect(new Set(puts.started).size).toBe(partCount)
      const stored = (await storedMedia(studio.url())).find((media) => media.name === "course-video.mp4")
      expect(stored?.size_bytes).toBe(200 * MiB)
      await context.close()
    }
  }, 300_000)

  it("a dropped connection: each part is retried, then the row says Failed with Resume; Resume sends only the parts storage lacks", async () => {
    const path = fileOf("offline.mp4", 80 * MiB, 8)
    const { context, page } = await openMedia(studio)
    const puts = recordPuts(page)
    // The link to storage: slow while up; while down, every PUT is reset.
    let down = false
    await page.route("**/storage/**", async (route) => {
      if (route.request().method() === "PUT") {
        if (down) return route.abort("connectionreset")
        await new Promise((resolve) => setTimeout(resolve, 300))
      }
      await route.continue().catch(() => undefined)
    })
    expectConsoleError(page, /ERR_CONNECTION_RESET/)
    await chooseFiles(page, path)
    await expect.poll(() => new Set(puts.finished).size, { timeout: 60_000 }).toBeGreaterThanOrEqual(4)
    down = true
    const sentWhileUp = puts.started.length
    // Longer than the client's retries (0.5 s, 1 s, 2 s): the upload stops and says so.
    const row = upload(page, "offline.mp4")
    await row.getByText("(Failed)").waitFor({ timeout: 30_000 })
    const triesWhileDown = new Map<number, number>()
    for (const part of puts.started.slice(sentWhileUp)) triesWhileDown.set(part, (triesWhileDown.get(part) ?? 0) + 1)
    expect(Math.max(...triesWhileDown.values()), "a part is tried again three times before the upload fails").toBeGreaterThanOrEqual(3)
    expect(await row.getByRole("alert").textContent()).not.toBe("")
    const held = new Set(puts.finished)
    const sentBefore = puts.started.length
    down = false
    await row.getByRole("button", { name: "Resume" }).click()
    await row.getByText("(Uploaded)").waitFor({ timeout: 120_000 })
    expect(puts.started.slice(sentBefore).filter((part) => held.has(part)), "a part storage held is not sent again").toEqual([])
    // 80 MiB in 5 MiB parts: each sent and held once at the end.
    await expect.poll(() => new Set(puts.finished).size).toBe(16)
    const stored = (await storedMedia(studio.url())).find((media) => media.name === "offline.mp4")
    expect(stored?.size_bytes).toBe(80 * MiB)
    await context.close()
  }, 180_000)

  it("Used by names the lesson that plays a file, else Not used; Delete asks first; a file a lesson plays is refused (409) and the dialog names the lesson and course; unused, it goes", async () => {
    const { context, page } = await openMedia(studio)
    await chooseFiles(page, [fileOf("played.mp4", 10 * 1024, 6), fileOf("unused.mp4", 10 * 1024, 7)])
    await upload(page, "played.mp4").getByText("(Uploaded)").waitFor({ timeout: 30_000 })
    await upload(page, "unused.mp4").getByText("(Uploaded)").waitFor({ timeout: 30_000 })
    const played = (await storedMedia(studio.url())).find((media) => media.name === "played.mp4")!
    // A course with a preview lesson playing it (a public file: only a preview may play one).
    const course = await (await fetch(`${studio.url()}/courses`, {
      method: "POST",
      headers: { ...admin, "content-type": "application/json" },
      body: JSON.stringify({ title: "With a video", content_html: "", status: "draft" })
    })).json() as { id: number }
    const lessonResponse = await fetch(`${studio.url()}/courses/${course.id}/lessons`, {
      method: "POST",
      headers: { ...admin, "content-type": "application/json" },
      body: JSON.stringify({ title: "Watch this", content_html: "", is_preview: true, video_key: played.file_key })
    })
    expect(lessonResponse.status).toBe(201)
    const lesson = await lessonResponse.json() as { id: number }
    await page.reload()
    const library = page.getByRole("table", { name: "Library" })
    const row = library.getByRole("row").filter({ has: page.getByRole("rowheader", { name: "played.mp4" }) })
    const unusedRow = library.getByRole("row").filter({ has: page.getByRole("rowheader", { name: "unused.mp4" }) })
    // "Used by", between "Visibility" and "Actions": the lesson that plays it, a link to its editor; or "Not used".
    const usedBy = row.getByRole("cell").nth(3)
    const usedByLink = usedBy.getByRole("link", { name: "“Watch this” in “With a video”" })
    await usedByLink.waitFor()
    expect(await library.getByRole("columnheader").allTextContents()).toEqual(["Name", "Type", "Size", "Visibility", "Used by", "Actions"])
    expect(await usedByLink.getAttribute("href")).toBe(`#/courses/${course.id}/lessons/${lesson.id}`)
    expect(await usedBy.textContent()).toBe("“Watch this” in “With a video” plays it")
    expect(await unusedRow.getByRole("cell").nth(3).textContent()).toBe("Not used")
    expectRefusal(page, `409 /admin/media?${new URLSearchParams({ file_key: played.file_key })}`)
    await row.getByRole("button", { name: "Delete" }).click()
    const dialog = page.getByRole("alertdialog", { name: "Delete “played.mp4”?" })
    await dialog.getByRole("button", { name: "Delete" }).click()
    await dialog.getByRole("alert").getByText("“played.mp4” is in use: change these first.").waitFor()
    // Named by their titles, each a link to its editor.
    const link = dialog.getByRole("link", { name: "“Watch this” in “With a video”" })
    expect(await link.getAttribute("href")).toBe(`#/courses/${course.id}/lessons/${lesson.id}`)
    expect(await seriousViolations(page)).toEqual([])
    await dialog.getByRole("button", { name: "Cancel" }).click()
    // Unused: asked, then gone from the library and the API.
    await unusedRow.getByRole("button", { name: "Delete" }).click()
    await page.getByRole("alertdialog", { name: "Delete “unused.mp4”?" }).getByRole("button", { name: "Delete" }).click()
    await library.getByRole("rowheader", { name: "unused.mp4" }).waitFor({ state: "detached" })
    const names = (await storedMedia(studio.url())).map((media) => media.name)
    expect(names).toContain("played.mp4")
    expect(names).not.toContain("unused.mp4")
    await context.close()
  }, 120_000)

  it("Choose video: a paid lesson is offered private videos only, a page of them however many public files come first; the chosen one is stored and plays through its signed URL", async () => {
    // More public files than a page holds, then the private one: the API filters, so it is on the first page.
    for (let index = 1; index <= 21; index++) await uploadThroughApi(studio.url(), `open-teaser-${index}.mp4`, "public")
    const paid = await uploadThroughApi(studio.url(), "paid-lecture.mp4", "private")
    const { courseId, lessonId } = await courseWithLesson(studio.url(), "Paid course", { is_preview: false })
    const { context, page, publicUrl } = await openMedia(studio)
    await page.goto(`${publicUrl}/studio/#/courses/${courseId}/lessons/${lessonId}`)
    await page.getByLabel("Lesson title").waitFor()
    await page.getByRole("button", { name: "Choose video" }).click()
    const dialog = page.getByRole("dialog", { name: "Choose video" })
    await dialog.getByRole("button", { name: "Use paid-lecture.mp4" }).waitFor()
    expect(await dialog.getByRole("button", { name: /^Use open-teaser/ }).count()).toBe(0)
    expect(await seriousViolations(page)).toEqual([])
    await dialog.getByRole("button", { name: "Use paid-lecture.mp4" }).click()
    await dialog.waitFor({ state: "detached" })
    const player = page.getByRole("group", { name: "Video" }).locator("video")
    await player.waitFor()
    const src = (await player.getAttribute("src"))!
    expect(src.startsWith(`${publicUrl}/files/private/media/`)).toBe(true)
    expect(src).toContain("signature=")
    const lessons = await (await fetch(`${studio.url()}/courses/${courseId}/lessons`, { headers: admin })).json() as ReadonlyArray<{ id: number; video_key: string | null }>
    expect(lessons.find((lesson) => lesson.id === lessonId)?.video_key).toBe(paid.file_key)
    // The signed URL answers the file (the player's request is allowed by the policy: no violation reported).
    expect(await page.evaluate(async (url) => (await fetch(url)).status, src)).toBe(200)

    // Or uploads one from the dialog: privately, for a paid lesson, and the lesson plays it.
    await page.getByRole("button", { name: "Choose video" }).click()
    const chooser: Promise<FileChooser> = page.waitForEvent("filechooser")
    await dialog.getByRole("button", { name: "Upload a private video" }).click()
    await (await chooser).setFiles(fileOf("fresh-lecture.mp4", 20 * 1024, 8))
    await dialog.waitFor({ state: "detached", timeout: 30_000 })
    await expect.poll(() => player.getAttribute("src")).not.toBe(src)
    const fresh = (await storedMedia(studio.url())).find((media) => media.name === "fresh-lecture.mp4")!
    expect(fresh.visibility).toBe("private")
    const after = await (await fetch(`${studio.url()}/courses/${courseId}/lessons`, { headers: admin })).json() as ReadonlyArray<{ id: number; video_key: string | null }>
    expect(after.find((lesson) => lesson.id === lessonId)?.video_key).toBe(fresh.file_key)
    await context.close()
  }, 120_000)

  it("the library pages by the API's cursors: Next page shows the files after the first 20, Previous page the first 20 again", async () => {
    // More than two pages: the earlier tests' files, and more when they left fewer.
    const stored = await storedMedia(studio.url())
    for (let index = stored.length + 1; index <= 45; index++) await uploadThroughApi(studio.url(), `paging-${index}.mp4`, "public")
    const names = (await storedMedia(studio.url())).map((media) => media.name)
    const { context, page } = await openMedia(studio)
    const library = page.getByRole("table", { name: "Library" })
    const shown = () => library.getByRole("rowheader").allTextContents()
    await expect.poll(shown).toEqual(names.slice(0, 20))
    const previous = page.getByRole("button", { name: "Previous page" })
    expect(await previous.isDisabled()).toBe(true)
    await page.getByRole("button", { name: "Next page" }).click()
    await expect.poll(shown).toEqual(names.slice(20, 40))
    await page.getByRole("button", { name: "Next page" }).click()
    await expect.poll(shown).toEqual(names.slice(40, 60))
    await previous.click()
    await previous.click()
    await expect.poll(shown).toEqual(names.slice(0, 20))
    expect(await previous.isDisabled()).toBe(true)
    await context.close()
  }, 120_000)
})
