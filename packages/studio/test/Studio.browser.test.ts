/**
 * Coursekit Studio end to end in Debian's chromium against `npm start`: signing in (a
 * wrong token shows the API's message), the course list with "New course" and "Search
 * courses" (drafts and scheduled courses found, the status filter applied), the editor's
 * autosave ("Saving…", then "Saved", the content stored), an edit made while a save is in
 * flight on a slow network, two authors editing one course (the second gets the conflict
 * dialog and loses nothing), publishing and scheduling, History with Restore (and one
 * Escape closing it), signing out; the sign-in form and the course list loading none of
 * the editors' code, and a view whose chunk is gone saying so; each view checked with
 * axe-core (no serious or critical violation), screenshots for docs/studio.md.
 */
import { describe, expect, it } from "@effect/vitest"
import { mkdirSync } from "node:fs"
import { join } from "node:path"
import { gzipSync } from "node:zlib"
import type { Page } from "playwright-core"
import { png } from "../../../examples/test/Png.ts"
import { authors, chromiumTestsRun, expectConsoleError, expectRefusal, openStudio, openStudioAtPublicUrl, seriousViolations, useStudio } from "./StudioInChromium.ts"

const screenshots = join(import.meta.dirname, "../../../docs/studio")

/** The course as the API stores it (the admin GET), by the server's own answer. */
const storedCourse = async (url: string, id: number) => {
  const response = await fetch(`${url}/courses/${id}`, { headers: { authorization: `Bearer ${authors.alice}` } })
  expect(response.status).toBe(200)
  return (await response.json()) as {
    title: string
    description: string | null
    content_html: string
    version: number
    status: string
    publish_at: string | null
    thumbnail_url: string | null
  }
}

const courseIdOf = (page: Page) => Number(/#\/courses\/(\d+)/.exec(page.url())?.[1])

/** Creates a course through the dialog and waits for its editor. */
const newCourse = async (page: Page, title: string) => {
  await page.getByRole("button", { name: "New course" }).click()
  const dialog = page.getByRole("dialog", { name: "New course" })
  await dialog.getByLabel("Title").fill(title)
  await dialog.getByRole("button", { name: "Create" }).click()
  await page.getByLabel("Course body").waitFor()
  return courseIdOf(page)
}

const saveStatus = (page: Page) => page.getByRole("status").filter({ hasText: /Saved|Saving|Unsaved|Not saved/ })

/**
 * What only the editors' code holds, minified: ProseMirror's class name (Tiptap's editor is
 * ProseMirror's), Tiptap's own, dnd-kit's accessibility ids (the outline), the body's label.
 */
const editorMarkers = { prosemirror: "ProseMirror", tiptap: "tiptap", dndKit: "DndDescribedBy", courseEditor: "Course body" }

/** Issue #35's budget: the Studio's JavaScript for the first view, gzip-compressed. */
const firstViewGzipBudget = 250 * 1024

/** The scripts `page` loads from now on, by URL, with which of the editor markers each holds and its size gzip-compressed. */
const recordScripts = (page: Page) => {
  const scripts: Array<Promise<{ readonly url: string; readonly markers: ReadonlyArray<string>; readonly gzipBytes: number }>> = []
  page.on("response", (response) => {
    if (response.request().resourceType() !== "script") return
    scripts.push(response.body().then((body) => ({
      url: new URL(response.url()).pathname,
      markers: Object.entries(editorMarkers).filter(([, marker]) => body.toString("utf8").includes(marker)).map(([name]) => name),
      gzipBytes: gzipSync(body, { level: 9 }).length
    })))
  })
  /** The scripts loaded so far, forgotten once read. */
  return () => Promise.all(scripts.splice(0))
}

if (chromiumTestsRun) {
  describe("Coursekit Studio in chromium", () => {
    const studio = useStudio()

    it("a wrong token shows the API's message; the right one opens the course list; sign out ends the session everywhere", async () => {
      mkdirSync(screenshots, { recursive: true })
      const { context, page } = await openStudio(studio, undefined)
      expect(await seriousViolations(page)).toEqual([])
      expectRefusal(page, "401 /admin/session")
      await page.getByLabel("Admin token").fill("not-a-token")
      await page.getByRole("button", { name: "Sign in" }).click()
      await expect.poll(() => page.getByRole("alert").textContent()).toMatch(/token/i)
      await page.screenshot({ path: join(screenshots, "sign-in.png") })
      await page.getByLabel("Admin token").fill(authors.alice)
      await page.getByRole("button", { name: "Sign in" }).click()
      await page.getByRole("heading", { name: "Courses" }).waitFor()
      const cookies = await context.cookies()
      expect(cookies.map(({ httpOnly, sameSite }) => ({ httpOnly, sameSite }))).toEqual([{ httpOnly: true, sameSite: "Strict" }])
      await page.getByRole("button", { name: "Sign out" }).click()
      await page.getByLabel("Admin token").waitFor()
      // The old cookie is refused by the server, not only forgotten by the page.
      const cookie = cookies.map(({ name, value }) => `${name}=${value}`).join("; ")
      const afterSignOut = await fetch(`${studio.url()}/courses?status=draft`, { headers: { cookie } })
      expect(afterSignOut.status).toBe(401)
      await context.close()
    })

    it("New course opens the editor; typing is saved about a second later (Saving…, then Saved) and is what the API stores", async () => {
      const { context, page } = await openStudio(studio, "alice")
      expect(await seriousViolations(page)).toEqual([])
      const id = await newCourse(page, "Knots for sailors")
      await page.getByLabel("Description").fill("Six knots, tied with one hand.")
      await page.getByLabel("Course body").click()
      await page.keyboard.type("The bowline comes first.")
      await expect.poll(() => saveStatus(page).textContent(), { timeout: 10_000 }).toBe("Saved")
      const stored = await storedCourse(studio.url(), id)
      expect(stored.description).toBe("Six knots, tied with one hand.")
      expect(stored.content_html).toBe("<p>The bowline comes first.</p>")
      expect(await seriousViolations(page)).toEqual([])
      await page.screenshot({ path: join(screenshots, "course-editor.png") })
      // The list shows it, a link named by its title.
      await page.getByRole("link", { name: "Courses" }).first().click()
      await page.getByRole("link", { name: "Knots for sailors" }).waitFor()
      await page.screenshot({ path: join(screenshots, "courses.png") })
      await context.close()
    })

    it("Search courses finds a draft by a word of its title, and a scheduled course with the Scheduled filter", async () => {
      const { context, page } = await openStudio(studio, "alice")
      const draft = await newCourse(page, "Marzipan roses")
      // A scheduled course and a published one with the same word, written through the API.
      const create = async (title: string, publish_at: string | null) => {
        const response = await fetch(`${studio.url()}/courses`, {
          method: "POST",
          headers: { authorization: `Bearer ${authors.alice}`, "content-type": "application/json" },
          body: JSON.stringify({ title, content_html: "", status: "published", publish_at })
        })
        expect(response.status).toBe(201)
        return ((await response.json()) as { id: number }).id
      }
      const scheduled = await create("Marzipan fruits", new Date(Date.now() + 7 * 86_400_000).toISOString())
      const published = await create("Marzipan pigs", null)
      expect(draft).toBeLessThan(scheduled)
      await page.getByRole("link", { name: "Courses" }).first().click()
      const found = () => page.getByRole("main").getByRole("list").getByRole("link").allTextContents()
      // The students' search would find the published course alone: the Studio's finds all three.
      await page.getByLabel("Search courses").fill("marzipan")
      await expect.poll(found).toEqual(["Marzipan roses", "Marzipan fruits", "Marzipan pigs"])
      expect(await page.getByText(/Search finds published courses/).count()).toBe(0)
      // A word of the draft's title alone.
      await page.getByLabel("Search courses").fill("roses")
      await expect.poll(found).toEqual(["Marzipan roses"])
      await page.getByRole("main").getByRole("list").getByText("Draft", { exact: true }).waitFor()
      // The status filter stays usable while searching, and narrows the search.
      await page.getByLabel("Search courses").fill("marzipan")
      const filter = page.getByRole("radiogroup", { name: "Status" })
      expect(await filter.getByRole("radio", { name: "Scheduled" }).isDisabled()).toBe(false)
      await filter.getByText("Scheduled", { exact: true }).click()
      await expect.poll(found).toEqual(["Marzipan fruits"])
      await page.getByRole("main").getByRole("list").getByText(/^Scheduled for/).waitFor()
      await filter.getByText("Draft", { exact: true }).click()
      await expect.poll(found).toEqual(["Marzipan roses"])
      await filter.getByText("Published", { exact: true }).click()
      await expect.poll(found).toEqual(["Marzipan pigs"])
      await filter.getByText("All", { exact: true }).click()
      await expect.poll(found).toEqual(["Marzipan roses", "Marzipan fruits", "Marzipan pigs"])
      expect(await seriousViolations(page)).toEqual([])
      // What the Studio asked is the admins' search, with the filter as its status.
      const asked = await fetch(`${studio.url()}/courses/search?q=marzipan&status=scheduled`, { headers: { authorization: `Bearer ${authors.alice}` } })
      expect(((await asked.json()) as Array<{ id: number }>).map((course) => course.id)).toEqual([scheduled])
      const students = await fetch(`${studio.url()}/courses/search?q=marzipan`)
      expect(((await students.json()) as Array<{ id: number }>).map((course) => course.id)).toEqual([published])
      await context.close()
    })

    it("Next page and Previous page walk the courses by the API's cursors, 20 a page; a new search starts again at the first page", async () => {
      const titles = Array.from({ length: 45 }, (_, index) => `Quince tart ${String(index + 1).padStart(2, "0")}`)
      for (const title of titles) {
        const response = await fetch(`${studio.url()}/courses`, {
          method: "POST",
          headers: { authorization: `Bearer ${authors.alice}`, "content-type": "application/json" },
          body: JSON.stringify({ title, content_html: "" })
        })
        expect(response.status).toBe(201)
      }
      const { context, page } = await openStudio(studio, "alice")
      const shown = () => page.getByRole("main").getByRole("list").getByRole("link").allTextContents()
      const previous = page.getByRole("button", { name: "Previous page" })
      const next = page.getByRole("button", { name: "Next page" })
      await page.getByLabel("Search courses").fill("quince")
      await expect.poll(shown).toEqual(titles.slice(0, 20))
      expect(await previous.isDisabled()).toBe(true)
      await next.click()
      await expect.poll(shown).toEqual(titles.slice(20, 40))
      await next.click()
      await expect.poll(shown).toEqual(titles.slice(40))
      expect(await next.isDisabled()).toBe(true)
      await previous.click()
      await expect.poll(shown).toEqual(titles.slice(20, 40))
      // Another search is another list: its first page.
      await page.getByLabel("Search courses").fill("quince tart")
      await expect.poll(shown).toEqual(titles.slice(0, 20))
      expect(await previous.isDisabled()).toBe(true)
      expect(await seriousViolations(page)).toEqual([])
      await context.close()
    })

    it("on a slow network, an edit made while a save is in flight is saved next: nothing typed is lost", async () => {
      const { context, page } = await openStudio(studio, "alice")
      const id = await newCourse(page, "Slow link")
      const cdp = await context.newCDPSession(page)
      await cdp.send("Network.emulateNetworkConditions", { offline: false, latency: 1500, downloadThroughput: 50_000, uploadThroughput: 50_000 })
      await page.getByLabel("Course body").click()
      await page.keyboard.type("First part.")
      await expect.poll(() => saveStatus(page).textContent(), { timeout: 10_000 }).toBe("Saving…")
      await page.keyboard.type(" Second part, typed during the save.")
      await expect.poll(() => saveStatus(page).textContent(), { timeout: 30_000 }).toBe("Saved")
      await cdp.send("Network.emulateNetworkConditions", { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 })
      expect((await storedCourse(studio.url(), id)).content_html).toBe("<p>First part. Second part, typed during the save.</p>")
      await context.close()
    })

    it("what the server has not got is kept in this browser (within 2 s while typing, at once when the tab closes) and offered again: Restore unsaved changes saves it", async () => {
      const { context, page } = await openStudio(studio, "alice")
      const id = await newCourse(page, "Crash copy")
      // Every save of this tab is refused before it reaches the server (503, as from a proxy
      // whose upstream is down): what it types exists only in the browser. (A request held
      // unanswered instead is let through when the tab closes.)
      expectRefusal(page, `503 /courses/${id}`)
      await page.route(`**/courses/${id}`, (route) =>
        route.request().method() === "PATCH"
          ? route.fulfill({ status: 503, contentType: "application/problem+json", body: JSON.stringify({ status: 503, title: "Service Unavailable" }) })
          : route.continue())
      const kept = () =>
        page.evaluate((key) => localStorage.getItem(key), `coursekit-studio:draft:course:${id}`).then((text) =>
          text === null ? null : (JSON.parse(text) as { draft: { content_html: string } }).draft.content_html)
      await page.getByLabel("Course body").click()
      await page.keyboard.type("Typed while the server was away.")
      // A crash (no time to say goodbye) loses at most the last 2 s.
      await expect.poll(kept, { timeout: 5_000 }).toBe("<p>Typed while the server was away.</p>")
      // Closing the tab keeps the newest text at once.
      await page.keyboard.type(" And just before closing.")
      await page.close({ runBeforeUnload: false })
      const again = await studio.newPage(context)
      await again.goto(`${studio.url()}/studio/#/courses/${id}`)
      const banner = again.getByRole("region", { name: "Unsaved changes" })
      await banner.waitFor()
      expect(await again.getByLabel("Course body").textContent()).toBe("")
      expect(await seriousViolations(again)).toEqual([])
      await banner.getByRole("button", { name: "Restore unsaved changes" }).click()
      await expect.poll(() => again.getByLabel("Course body").textContent()).toBe("Typed while the server was away. And just before closing.")
      await expect.poll(() => saveStatus(again).textContent(), { timeout: 10_000 }).toBe("Saved")
      expect((await storedCourse(studio.url(), id)).content_html).toBe("<p>Typed while the server was away. And just before closing.</p>")
      // Saved: the copy is gone, and opening the course offers nothing.
      expect(await again.evaluate((key) => localStorage.getItem(key), `coursekit-studio:draft:course:${id}`)).toBeNull()
      await again.reload()
      await again.getByLabel("Course body").waitFor()
      expect(await again.getByRole("region", { name: "Unsaved changes" }).count()).toBe(0)
      await context.close()
    })

    it("two authors on one course: the second save gets the conflict dialog with both versions; Keep mine saves it, nothing is lost", async () => {
      const first = await openStudio(studio, "alice")
      const id = await newCourse(first.page, "Shared course")
      const second = await openStudio(studio, "bob")
      await second.page.goto(`${studio.url()}/studio/#/courses/${id}`)
      await second.page.getByLabel("Course body").waitFor()
      await first.page.getByLabel("Course body").click()
      await first.page.keyboard.type("Alice wrote this.")
      await expect.poll(() => saveStatus(first.page).textContent(), { timeout: 10_000 }).toBe("Saved")
      // Bob's save names the version he read: refused (412), which opens the dialog.
      expectRefusal(second.page, `412 /courses/${id}`)
      await second.page.getByLabel("Course body").click()
      await second.page.keyboard.type("Bob wrote that.")
      const dialog = second.page.getByRole("alertdialog", { name: "This course changed since you opened it" })
      await dialog.waitFor({ timeout: 10_000 })
      await expect.poll(() => dialog.getByRole("table").textContent()).toContain("Alice wrote this.")
      expect(await dialog.getByRole("table").textContent()).toContain("Bob wrote that.")
      expect(await seriousViolations(second.page)).toEqual([])
      await second.page.screenshot({ path: join(screenshots, "conflict.png") })
      await dialog.getByRole("button", { name: "Keep mine" }).click()
      await expect.poll(() => saveStatus(second.page).textContent(), { timeout: 10_000 }).toBe("Saved")
      expect((await storedCourse(studio.url(), id)).content_html).toBe("<p>Bob wrote that.</p>")
      await first.context.close()
      await second.context.close()
    })

    it("Publish, Schedule… in the author's time zone (sent with that date's offset) and Unpublish change the state the API stores", async () => {
      // The author is in Paris: +01:00 in December, +02:00 in July, whatever zone the tests run in.
      const { context, page } = await openStudio(studio, "alice", { timezoneId: "Europe/Paris", locale: "en-GB" })
      const id = await newCourse(page, "Published soon")
      // A new course is a draft.
      await page.getByText("Draft", { exact: true }).waitFor()
      expect((await storedCourse(studio.url(), id)).status).toBe("draft")
      await page.getByRole("button", { name: "Publish", exact: true }).click()
      await page.getByText("Published", { exact: true }).waitFor()
      expect((await storedCourse(studio.url(), id)).status).toBe("published")

      /** Schedules at `local` through the dialog; the publish_at of the PATCH it sent. */
      const schedule = async (local: string) => {
        const sent = page.waitForRequest((request) =>
          request.method() === "PATCH" && new URL(request.url()).pathname === `/courses/${id}` && request.postData()?.includes("publish_at") === true
        )
        await page.getByRole("button", { name: "Schedule…" }).click()
        const dialog = page.getByRole("dialog", { name: "Schedule publishing" })
        await dialog.getByText("In your time zone, Europe/Paris.").waitFor()
        await dialog.getByLabel("Date and time").fill(local)
        await dialog.getByRole("button", { name: "Schedule", exact: true }).click()
        return ((await sent).postDataJSON() as { publish_at: unknown }).publish_at
      }

      // From the keyboard: the field has the focus as the dialog opens, and a date without
      // its time is named on Schedule, not silently ignored; nothing is sent.
      const patches: Array<string> = []
      page.on("request", (request) => request.method() === "PATCH" && patches.push(request.url()))
      await page.getByRole("button", { name: "Schedule…" }).click()
      const dialog = page.getByRole("dialog", { name: "Schedule publishing" })
      await expect.poll(() => dialog.getByLabel("Date and time").evaluate((field) => field === document.activeElement)).toBe(true)
      await page.keyboard.type("12")
      await page.keyboard.type("01")
      await page.keyboard.type("2099")
      await dialog.getByRole("button", { name: "Schedule", exact: true }).click()
      await dialog.getByText(/incomplete/).waitFor()
      expect(await dialog.isVisible()).toBe(true)
      expect(patches).toEqual([])
      await dialog.getByRole("button", { name: "Cancel" }).click()
      await dialog.waitFor({ state: "detached" })

      expect(await schedule("2099-12-01T10:00")).toBe("2099-12-01T10:00:00.000+01:00")
      await page.getByText("Scheduled for 1 Dec 2099, 10:00", { exact: true }).waitFor()
      expect(await storedCourse(studio.url(), id)).toMatchObject({ status: "published", publish_at: "2099-12-01T09:00:00.000Z" })
      // Opened again, the dialog shows the scheduled moment in the author's zone.
      await page.getByRole("button", { name: "Schedule…" }).click()
      expect(await page.getByRole("dialog", { name: "Schedule publishing" }).getByLabel("Date and time").inputValue()).toBe("2099-12-01T10:00")
      await page.getByRole("dialog", { name: "Schedule publishing" }).getByRole("button", { name: "Cancel" }).click()

      expect(await schedule("2099-07-01T10:00")).toBe("2099-07-01T10:00:00.000+02:00")
      await page.getByText("Scheduled for 1 Jul 2099, 10:00", { exact: true }).waitFor()
      expect(await storedCourse(studio.url(), id)).toMatchObject({ status: "published", publish_at: "2099-07-01T08:00:00.000Z" })

      await page.getByRole("button", { name: "Unpublish", exact: true }).click()
      await page.getByText("Draft", { exact: true }).waitFor()
      expect((await storedCourse(studio.url(), id)).status).toBe("draft")
      await context.close()
    })

    it("a thumbnail goes straight to storage with a progress bar, and the editor shows it; typing meanwhile is saved after it", async () => {
      // At the server's public URL, so the upload is the page's own origin.
      const { context, page } = await openStudioAtPublicUrl(studio, "alice")
      const id = await newCourse(page, "With a picture")
      // The PUT to storage held for 2 s: long enough to see the bar and to type meanwhile.
      await page.route("**/storage/**", async (route) => {
        if (route.request().method() === "PUT") await new Promise((resolve) => setTimeout(resolve, 2000))
        await route.continue()
      })
      const chooser = page.waitForEvent("filechooser")
      await page.getByRole("button", { name: "Upload thumbnail" }).click()
      await (await chooser).setFiles({ name: "cover.png", mimeType: "image/png", buffer: png(160) })
      await page.getByRole("progressbar", { name: "Uploading thumbnail" }).waitFor()
      await page.getByLabel("Course body").click()
      await page.keyboard.type("Typed during the upload.")
      await page.getByRole("img", { name: "The course's thumbnail" }).waitFor({ timeout: 30_000 })
      await expect.poll(() => saveStatus(page).textContent(), { timeout: 30_000 }).toBe("Saved")
      const stored = await storedCourse(studio.url(), id)
      expect(stored.thumbnail_url).not.toBeNull()
      expect(stored.content_html).toBe("<p>Typed during the upload.</p>")
      // The image the editor shows is the stored one, and it loads under the policy.
      // Polled: the element is there before its bytes are; a refused load ends complete at 0.
      const thumbnail = page.getByRole("img", { name: "The course's thumbnail" })
      await expect.poll(() => thumbnail.evaluate((image: HTMLImageElement) => image.complete ? image.naturalWidth : "loading"), { timeout: 30_000 }).toBe(160)
      await context.close()
    })

    it("History lists the revisions with their authors; selecting one shows it beside the current text; one Escape closes it; Restore brings it back", async () => {
      const { context, page } = await openStudio(studio, "alice")
      const id = await newCourse(page, "With a past")
      await page.getByLabel("Course body").click()
      await page.keyboard.type("Old words.")
      await expect.poll(() => saveStatus(page).textContent(), { timeout: 10_000 }).toBe("Saved")
      await page.keyboard.press("Control+A")
      await page.keyboard.type("New words.")
      await expect.poll(() => saveStatus(page).textContent(), { timeout: 10_000 }).toBe("Saved")
      await page.getByRole("button", { name: "History" }).click()
      const history = page.getByRole("dialog", { name: "History" })
      const revisions = history.getByRole("listbox", { name: "Revisions" })
      await expect.poll(() => revisions.getByRole("option").count()).toBeGreaterThanOrEqual(2)
      expect(await revisions.getByRole("option").first().textContent()).toContain("alice")
      // The first revision: the course as created, with an empty body.
      await revisions.getByRole("option").last().click()
      await expect.poll(() => history.getByRole("table").textContent()).toContain("New words.")
      expect(await seriousViolations(page)).toEqual([])
      await page.screenshot({ path: join(screenshots, "history.png") })
      // One Escape closes it, a revision selected (focus in the list) or not, and focus is back on "History".
      const historyButton = page.getByRole("button", { name: "History" })
      await page.keyboard.press("Escape")
      await history.waitFor({ state: "detached" })
      // React Aria gives focus back in an animation frame after the dialog is gone.
      await expect.poll(() => historyButton.evaluate((button) => button === document.activeElement)).toBe(true)
      await historyButton.click()
      await revisions.getByRole("option").last().click()
      await expect.poll(() => history.getByRole("table").textContent()).toContain("New words.")
      await history.getByRole("button", { name: "Restore" }).click()
      await history.waitFor({ state: "detached" })
      await expect.poll(async () => (await storedCourse(studio.url(), id)).content_html).toBe("")
      await context.close()
    })

    it("the sign-in form and the course list load neither the editors nor Tiptap, ProseMirror or dnd-kit, within 250 KB gzip; opening a course loads them", async () => {
      const context = await studio.browser().newContext({ viewport: { width: 1280, height: 860 } })
      const page = await studio.newPage(context)
      const loaded = recordScripts(page)
      await page.goto(`${studio.url()}/studio/`)
      await page.getByLabel("Admin token").fill(authors.alice)
      await page.getByRole("button", { name: "Sign in" }).click()
      await page.getByRole("heading", { name: "Courses" }).waitFor()
      await page.waitForLoadState("networkidle")
      const firstScreens = await loaded()
      expect(firstScreens.length).toBeGreaterThan(0)
      expect(firstScreens.filter((script) => script.markers.length > 0)).toEqual([])
      const firstViewGzip = firstScreens.reduce((sum, script) => sum + script.gzipBytes, 0)
      expect(firstViewGzip, `the first view's scripts, ${firstViewGzip} bytes gzip`).toBeLessThanOrEqual(firstViewGzipBudget)
      // The markers are real: the course editor's scripts, loaded when a course opens, hold every one.
      await newCourse(page, "Loaded when opened")
      await page.waitForLoadState("networkidle")
      const editorScripts = await loaded()
      expect(new Set(editorScripts.flatMap((script) => script.markers))).toEqual(new Set(Object.keys(editorMarkers)))
      await context.close()
    })

    it("a view whose code cannot be loaded (the Studio rebuilt meanwhile) says so; Reload loads it", async () => {
      const { context, page } = await openStudio(studio, "alice")
      const id = await newCourse(page, "After a rebuild")
      // A fresh page on the list, and the course editor's chunk gone, as after a rebuild.
      await page.goto(`${studio.url()}/studio/#/`)
      await page.reload()
      await page.getByRole("heading", { name: "Courses" }).waitFor()
      await page.route(/\/assets\/CourseEditor-[^/]+\.js$/, async (route) => {
        expectRefusal(page, `404 ${new URL(route.request().url()).pathname}`)
        await route.fulfill({ status: 404, contentType: "application/problem+json", body: "{}" })
      })
      expectConsoleError(page, /Failed to fetch dynamically imported module/)
      // Found by its title: other tests' courses may fill the list's first page.
      await page.getByLabel("Search courses").fill("after a rebuild")
      await page.getByRole("link", { name: "After a rebuild" }).click()
      await expect.poll(() => page.getByRole("alert").textContent()).toMatch(/^This view could not be shown/)
      expect(await seriousViolations(page)).toEqual([])
      await page.unroute(/\/assets\/CourseEditor-[^/]+\.js$/)
      await page.getByRole("button", { name: "Reload" }).click()
      await page.getByLabel("Course body").waitFor()
      expect(courseIdOf(page)).toBe(id)
      await context.close()
    })
  })
}
