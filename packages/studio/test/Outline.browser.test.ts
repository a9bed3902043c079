/**
 * The course outline and the lesson editor end to end in Debian's chromium against `npm
 * start` (StudioInChromium): sections and lessons added, moved by the keyboard's buttons
 * ("Move up", "Move down", the "Section" picker) and by a keyboard drag, across section
 * boundaries, each move stored as the outline shows it and announced in its live region;
 * a move from an outdated version refused and said so; a section with lessons deleted by
 * "Move its lessons out"; the lesson editor's autosave, "Free preview", publishing and
 * conflict dialog, and its way back to the course. Screenshots for docs/studio.md.
 */
import { describe, expect, it } from "@effect/vitest"
import { mkdirSync } from "node:fs"
import { join } from "node:path"
import type { Page } from "playwright-core"
import { authors, chromiumTestsRun, expectRefusal, openStudio, seriousViolations, useStudio } from "./StudioInChromium.ts"

const screenshots = join(import.meta.dirname, "../../../docs/studio")

interface StoredLesson {
  readonly id: number
  readonly title: string
  readonly section_id: number | null
  readonly position: number
  readonly content_html: string
  readonly is_preview: boolean
  readonly status: string
  readonly version: number
}

const admin = (author: keyof typeof authors) => ({ authorization: `Bearer ${authors[author]}` })

const storedLessons = async (url: string, courseId: number): Promise<ReadonlyArray<StoredLesson>> => {
  const response = await fetch(`${url}/courses/${courseId}/lessons`, { headers: admin("alice") })
  expect(response.status).toBe(200)
  return (await response.json()) as ReadonlyArray<StoredLesson>
}

const storedSections = async (url: string, courseId: number) => {
  const response = await fetch(`${url}/courses/${courseId}/sections`, { headers: admin("alice") })
  expect(response.status).toBe(200)
  return (await response.json()) as ReadonlyArray<{ readonly id: number; readonly title: string; readonly position: number }>
}

/** The course's order as the API stores it: the loose lessons, then each section's, by title. */
const storedOutline = async (url: string, courseId: number) => {
  const sections = await storedSections(url, courseId)
  const lessons = await storedLessons(url, courseId)
  const titlesIn = (sectionId: number | null) =>
    lessons.filter((lesson) => lesson.section_id === sectionId).sort((a, b) => a.position - b.position).map((lesson) => lesson.title)
  return [["(no section)", ...titlesIn(null)], ...[...sections].sort((a, b) => a.position - b.position).map((section) => [section.title, ...titlesIn(section.id)])]
}

/** The outline as the page shows it, in the same shape. */
const shownOutline = (page: Page) =>
  page.evaluate(() =>
    [...document.querySelectorAll(".outline-group")].map((group) => [
      group.closest(".outline-section")?.querySelector("h3")?.textContent ?? "(no section)",
      ...[...group.querySelectorAll(".outline-title")].map((link) => link.textContent ?? "")
    ])
  )

const courseIdOf = (page: Page) => Number(/#\/courses\/(\d+)/.exec(page.url())?.[1])

const newCourse = async (page: Page, title: string) => {
  await page.getByRole("button", { name: "New course" }).click()
  const dialog = page.getByRole("dialog", { name: "New course" })
  await dialog.getByLabel("Title").fill(title)
  await dialog.getByRole("button", { name: "Create" }).click()
  await page.getByRole("heading", { name: "Outline", exact: true }).waitFor()
  return courseIdOf(page)
}

const announcement = (page: Page) => page.getByRole("status", { name: "Outline changes" })

const addSection = async (page: Page, title: string) => {
  await page.getByRole("button", { name: "Add section" }).click()
  const dialog = page.getByRole("dialog", { name: "Add section" })
  await dialog.getByLabel("Section title").fill(title)
  await dialog.getByRole("button", { name: "Add", exact: true }).click()
  await expect.poll(() => announcement(page).textContent()).toMatch(new RegExp(`^Added section “${title}”`))
}

/** Adds a lesson in `section` ("No section" for a loose one) through the dialog. */
const addLesson = async (page: Page, title: string, section: string) => {
  await page.getByRole("button", { name: "Add lesson" }).click()
  const dialog = page.getByRole("dialog", { name: "Add lesson" })
  await dialog.getByLabel("Title").fill(title)
  await dialog.getByRole("button", { name: /Section/ }).click()
  await page.getByRole("option", { name: section, exact: true }).click()
  await dialog.getByRole("button", { name: "Add", exact: true }).click()
  await expect.poll(() => announcement(page).textContent()).toMatch(new RegExp(`^Added “${title}”`))
}

const lessonItem = (page: Page, title: string) => page.getByRole("listitem", { name: title, exact: true })

const saveStatus = (page: Page) => page.getByRole("status").filter({ hasText: /Saved|Saving|Unsaved|Not saved/ })

if (chromiumTestsRun) {
  describe("the Studio's outline and lesson editor in chromium", () => {
    const studio = useStudio()

    it("adds sections and lessons; Move up, Move down and the Section picker move them across section boundaries, each stored as shown and announced", async () => {
      mkdirSync(screenshots, { recursive: true })
      const { context, page } = await openStudio(studio, "alice")
      const id = await newCourse(page, "Bread at home")
      await addSection(page, "Starters")
      await addSection(page, "Loaves")
      await addLesson(page, "Welcome", "No section")
      await addLesson(page, "Feeding", "Starters")
      await addLesson(page, "Shaping", "Loaves")
      expect(await storedOutline(studio.url(), id)).toEqual([["(no section)", "Welcome"], ["Starters", "Feeding"], ["Loaves", "Shaping"]])
      // New lessons are drafts.
      expect((await storedLessons(studio.url(), id)).map((lesson) => lesson.status)).toEqual(["draft", "draft", "draft"])

      // The last loose lesson, down: the first of the next section. Focus stays on the button.
      await lessonItem(page, "Welcome").getByRole("button", { name: "Move down" }).click()
      await expect.poll(() => announcement(page).textContent()).toBe("Moved “Welcome” to position 1 in “Starters”.")
      expect(await storedOutline(studio.url(), id)).toEqual([["(no section)"], ["Starters", "Welcome", "Feeding"], ["Loaves", "Shaping"]])
      await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe("Move down")
      // The keyboard alone: Enter presses it again.
      await page.keyboard.press("Enter")
      await expect.poll(() => announcement(page).textContent()).toBe("Moved “Welcome” to position 2 in “Starters”.")
      // The first of a section, up: the last of the group above.
      await lessonItem(page, "Shaping").getByRole("button", { name: "Move up" }).click()
      await expect.poll(() => announcement(page).textContent()).toBe("Moved “Shaping” to position 3 in “Starters”.")
      // The Section picker, by the keyboard: to the end of the lessons without a section.
      await lessonItem(page, "Feeding").getByRole("button", { name: /Section/ }).focus()
      await page.keyboard.press("Enter")
      await page.getByRole("option", { name: "No section" }).waitFor()
      await page.keyboard.press("Home")
      await page.keyboard.press("Enter")
      await expect.poll(() => announcement(page).textContent()).toBe("Moved “Feeding” to position 1 among the lessons without a section.")
      // A section moves with its lessons.
      await page.getByRole("group", { name: "Loaves" }).getByRole("button", { name: "Move up" }).click()
      await expect.poll(() => announcement(page).textContent()).toBe("Moved section “Loaves” to position 1 of 2.")
      const expected = [["(no section)", "Feeding"], ["Loaves"], ["Starters", "Welcome", "Shaping"]]
      expect(await storedOutline(studio.url(), id)).toEqual(expected)
      expect(await shownOutline(page)).toEqual(expected)

      // A keyboard drag (dnd-kit): pick up Feeding by its handle, down into "Loaves", drop.
      const handle = page.getByRole("button", { name: "Drag “Feeding”" })
      await handle.focus()
      await page.keyboard.press("Space")
      // Picked up: dnd-kit marks its handle pressed.
      await expect.poll(() => handle.getAttribute("aria-pressed")).toBe("true")
      await page.keyboard.press("ArrowDown")
      await expect.poll(() => shownOutline(page)).toEqual([["(no section)"], ["Loaves", "Feeding"], ["Starters", "Welcome", "Shaping"]])
      await page.keyboard.press("Space")
      await expect.poll(() => announcement(page).textContent()).toBe("Moved “Feeding” to position 1 in “Loaves”.")
      expect(await storedOutline(studio.url(), id)).toEqual([["(no section)"], ["Loaves", "Feeding"], ["Starters", "Welcome", "Shaping"]])

      expect(await seriousViolations(page)).toEqual([])
      await page.getByRole("heading", { name: "Outline", exact: true }).scrollIntoViewIfNeeded()
      await page.screenshot({ path: join(screenshots, "outline.png") })

      // A section with lessons: the API refuses (409); "Move its lessons out" deletes it, its lessons made loose.
      const starters = (await storedSections(studio.url(), id)).find((section) => section.title === "Starters")!
      expectRefusal(page, `409 /courses/${id}/sections/${starters.id}`)
      await page.getByRole("group", { name: "Starters" }).getByRole("button", { name: "Delete" }).click()
      const confirm = page.getByRole("alertdialog", { name: "Delete section “Starters”?" })
      await confirm.getByRole("button", { name: "Delete" }).click()
      await expect.poll(() => confirm.getByRole("alert").textContent()).toMatch(/still has 2 lessons/)
      await confirm.getByRole("button", { name: "Move its lessons out" }).click()
      await expect.poll(() => announcement(page).textContent()).toMatch(/^Deleted section “Starters”/)
      expect(await storedOutline(studio.url(), id)).toEqual([["(no section)", "Welcome", "Shaping"], ["Loaves", "Feeding"]])

      // Rename, and delete a lesson after its confirmation.
      await lessonItem(page, "Shaping").getByRole("button", { name: "Rename" }).click()
      const rename = page.getByRole("dialog", { name: "Rename “Shaping”" })
      await rename.getByLabel("Title").fill("Shaping a boule")
      await rename.getByRole("button", { name: "Rename" }).click()
      await expect.poll(() => announcement(page).textContent()).toBe("Renamed “Shaping” to “Shaping a boule”.")
      await lessonItem(page, "Welcome").getByRole("button", { name: "Delete" }).click()
      await page.getByRole("alertdialog", { name: "Delete “Welcome”?" }).getByRole("button", { name: "Delete" }).click()
      await expect.poll(() => announcement(page).textContent()).toBe("Deleted “Welcome”.")
      expect(await storedOutline(studio.url(), id)).toEqual([["(no section)", "Shaping a boule"], ["Loaves", "Feeding"]])
      await context.close()
    })

    it("a move made from an outdated version is refused (412): the outline is read again, says so, and the next move goes through", async () => {
      const { context, page } = await openStudio(studio, "alice")
      const id = await newCourse(page, "Two authors' outline")
      await addLesson(page, "One", "No section")
      await addLesson(page, "Two", "No section")
      const two = (await storedLessons(studio.url(), id)).find((lesson) => lesson.title === "Two")!
      // Bob renames it meanwhile.
      const renamed = await fetch(`${studio.url()}/courses/${id}/lessons/${two.id}`, {
        method: "PATCH",
        headers: { ...admin("bob"), "content-type": "application/json" },
        body: JSON.stringify({ title: "Two, by Bob" })
      })
      expect(renamed.status).toBe(200)
      expectRefusal(page, `412 /courses/${id}/lessons/${two.id}`)
      await lessonItem(page, "Two").getByRole("button", { name: "Move up" }).click()
      await expect.poll(() => announcement(page).textContent()).toBe(
        "“Two” changed since the outline was read, so nothing was changed. The outline now shows what is stored: check it and try again."
      )
      expect(await shownOutline(page)).toEqual([["(no section)", "One", "Two, by Bob"]])
      expect(await storedOutline(studio.url(), id)).toEqual([["(no section)", "One", "Two, by Bob"]])
      await lessonItem(page, "Two, by Bob").getByRole("button", { name: "Move up" }).click()
      await expect.poll(() => announcement(page).textContent()).toBe("Moved “Two, by Bob” to position 1 among the lessons without a section.")
      expect(await storedOutline(studio.url(), id)).toEqual([["(no section)", "Two, by Bob", "One"]])
      await context.close()
    })

    it("the lesson editor: Lesson title and Lesson body autosaved, Free preview and Publish stored, its conflict dialog, and back to the course", async () => {
      const { context, page } = await openStudio(studio, "alice")
      const id = await newCourse(page, "Lessons to write")
      await addLesson(page, "Untitled yet", "No section")
      await page.getByRole("link", { name: "Untitled yet" }).click()
      await page.getByLabel("Lesson title").waitFor()
      const lessonId = Number(/#\/courses\/\d+\/lessons\/(\d+)$/.exec(page.url())?.[1])
      const stored = async () => (await storedLessons(studio.url(), id)).find((lesson) => lesson.id === lessonId)!
      await page.getByLabel("Lesson title").fill("Mixing the dough")
      await page.getByRole("textbox", { name: "Lesson body" }).click()
      await page.keyboard.type("Flour, water, salt.")
      await expect.poll(() => saveStatus(page).textContent(), { timeout: 10_000 }).toBe("Saved")
      expect([(await stored()).title, (await stored()).content_html]).toEqual(["Mixing the dough", "<p>Flour, water, salt.</p>"])

      await page.getByRole("checkbox", { name: "Free preview" }).focus()
      await page.keyboard.press("Space")
      await expect.poll(async () => (await stored()).is_preview).toBe(true)
      await page.getByRole("group", { name: "Publishing" }).getByRole("button", { name: "Publish" }).click()
      await expect.poll(async () => (await stored()).status).toBe("published")
      expect(await seriousViolations(page)).toEqual([])
      await page.screenshot({ path: join(screenshots, "lesson-editor.png") })

      // Bob changes the body; Alice's next save gets the lesson's conflict dialog.
      const theirs = await fetch(`${studio.url()}/courses/${id}/lessons/${lessonId}`, {
        method: "PATCH",
        headers: { ...admin("bob"), "content-type": "application/json" },
        body: JSON.stringify({ content_html: "<p>Bob's dough.</p>" })
      })
      expect(theirs.status).toBe(200)
      expectRefusal(page, `412 /courses/${id}/lessons/${lessonId}`)
      await page.getByRole("textbox", { name: "Lesson body" }).click()
      await page.keyboard.type(" Knead.")
      const dialog = page.getByRole("alertdialog", { name: "This lesson changed since you opened it" })
      await dialog.waitFor({ timeout: 10_000 })
      await expect.poll(() => dialog.getByRole("table").textContent()).toContain("Bob's dough.")
      await dialog.getByRole("button", { name: "Use theirs" }).click()
      await expect.poll(() => page.getByRole("textbox", { name: "Lesson body" }).textContent()).toBe("Bob's dough.")
      expect((await stored()).content_html).toBe("<p>Bob's dough.</p>")

      // Back to the course, whose outline shows the lesson as stored.
      await page.getByRole("navigation", { name: "Breadcrumbs" }).getByRole("link", { name: "Lessons to write" }).click()
      await lessonItem(page, "Mixing the dough").waitFor()
      expect(await lessonItem(page, "Mixing the dough").textContent()).toContain("Free preview")
      await context.close()
    })
  })
}
