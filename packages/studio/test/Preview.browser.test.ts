/**
 * Preview as learner (issue #35) in Debian's chromium against `npm start`
 * (StudioInChromium): a course made through the API (a free preview, a paid lesson, a
 * drip lesson, a draft lesson, in a section and loose) previewed as a visitor and as a
 * buyer, each checked against what the API answers the public and the preview; a draft
 * course marked "Not public yet"; axe-core on the view. The screenshot for docs/studio.md.
 */
import { describe, expect, it } from "@effect/vitest"
import { mkdirSync } from "node:fs"
import { join } from "node:path"
import type { Page } from "playwright-core"
import { authors, chromiumTestsRun, openStudio, seriousViolations, useStudio } from "./StudioInChromium.ts"

const screenshots = join(import.meta.dirname, "../../../docs/studio")

const admin = { authorization: `Bearer ${authors.alice}`, "content-type": "application/json" }

const post = async <A>(url: string, body: unknown): Promise<A> => {
  const response = await fetch(url, { method: "POST", headers: admin, body: JSON.stringify(body) })
  expect(response.status, `POST ${url}`).toBe(201)
  return (await response.json()) as A
}

interface Created {
  readonly id: number
  readonly slug: string
}

/** A course with a loose free preview and a section holding a paid, a drip and a draft lesson. */
const storedCourse = async (url: string, title: string, status: "draft" | "published", publishAt: string | null = null) => {
  const course = await post<Created>(`${url}/courses`, {
    title,
    description: "Bake a loaf a week.",
    content_html: "<p>Flour, water, salt and patience.</p>",
    status,
    publish_at: publishAt
  })
  const section = await post<Created>(`${url}/courses/${course.id}/sections`, { title: "Week 1" })
  const lessons = `${url}/courses/${course.id}/lessons`
  await post(lessons, { title: "Welcome", content_html: "<p>Everyone may read this welcome.</p>", is_preview: true })
  await post(lessons, { title: "Feeding the starter", content_html: "<p>Only buyers read the feeding schedule.</p>", section_id: section.id })
  await post(lessons, {
    title: "Shaping",
    content_html: "<p>Released a week after the purchase.</p>",
    section_id: section.id,
    available_after_days: 7
  })
  await post(lessons, { title: "Scoring", content_html: "<p>Still being written.</p>", section_id: section.id, status: "draft" })
  return course
}

const lessonCard = (page: Page, title: string) => page.getByRole("article", { name: new RegExp(`^\\d+\\. ${title}$`) })

if (chromiumTestsRun) {
  describe("Preview as learner in chromium", () => {
    const studio = useStudio()

    it("shows the public course page as a visitor and as a buyer, the draft lesson marked not public yet", async () => {
      mkdirSync(screenshots, { recursive: true })
      const url = studio.url()
      const course = await storedCourse(url, "Sourdough at home", "published")
      const { page } = await openStudio(studio, "alice")
      page.setDefaultTimeout(10_000)
      await page.goto(`${url}/studio/#/courses/${course.id}`)
      await page.getByRole("button", { name: "Preview as learner" }).click()
      await page.getByRole("heading", { name: "Preview as learner", level: 1 }).waitFor()
      expect(page.url()).toMatch(new RegExp(`#/courses/${course.id}/preview$`))

      // As a visitor (the default): what GET /public/courses/{slug} shows anonymous visitors.
      const audience = page.getByRole("radiogroup", { name: "See the course as" })
      await expect.poll(() => audience.getByRole("radio", { name: "Visitor" }).isChecked()).toBe(true)
      await page.getByRole("heading", { name: "Sourdough at home", level: 2 }).waitFor()
      const publicPage = (await (await fetch(`${url}/public/courses/${course.slug}`)).json()) as {
        readonly lessons: ReadonlyArray<{ readonly title: string; readonly access: string }>
        readonly sections: ReadonlyArray<{ readonly lessons: ReadonlyArray<{ readonly title: string; readonly access: string }> }>
      }
      expect([...publicPage.lessons, ...publicPage.sections.flatMap((section) => section.lessons)].map(({ access, title }) => [title, access]))
        .toEqual([["Welcome", "preview"], ["Feeding the starter", "locked"], ["Shaping", "locked"]])
      await expect.poll(() => lessonCard(page, "Welcome").textContent()).toContain("Free preview")
      await expect.poll(() => lessonCard(page, "Welcome").textContent()).toContain("Everyone may read this welcome.")
      await expect.poll(() => lessonCard(page, "Feeding the starter").textContent()).toBe("1. Feeding the starterLocked")
      await expect.poll(() => lessonCard(page, "Shaping").textContent()).toBe("2. ShapingLocked")
      // The draft lesson is not on the public page; the preview shows it, marked.
      await expect.poll(() => lessonCard(page, "Scoring").textContent()).toBe("3. ScoringLockedNot public yet (Draft)")
      // The course is published: no banner.
      expect(await page.getByRole("note", { name: "Not public yet" }).count()).toBe(0)
      expect(await page.getByText("Only buyers read the feeding schedule.").count()).toBe(0)
      expect(await seriousViolations(page)).toEqual([])

      // As a buyer: the paid lesson opens, the drip lesson is upcoming a week from now.
      await audience.getByText("Buyer", { exact: true }).click()
      await expect.poll(() => lessonCard(page, "Feeding the starter").textContent()).toBe("1. Feeding the starterOpenOnly buyers read the feeding schedule.")
      const asBuyer = (await (await fetch(`${url}/admin/courses/${course.id}/preview?as=buyer`, { headers: admin })).json()) as {
        readonly course: { readonly sections: ReadonlyArray<{ readonly lessons: ReadonlyArray<{ readonly title: string; readonly available_at: string | null }> }> }
      }
      const opensAt = asBuyer.course.sections[0]!.lessons.find((lesson) => lesson.title === "Shaping")!.available_at!
      const inAWeek = Date.now() + 7 * 24 * 3600 * 1000
      expect(Math.abs(Date.parse(opensAt) - inAWeek)).toBeLessThan(60_000)
      const shaping = await lessonCard(page, "Shaping").textContent()
      expect(shaping).toMatch(/^2\. ShapingOpens /)
      expect(shaping).not.toContain("Released a week after the purchase.")
      await expect.poll(() => lessonCard(page, "Scoring").textContent()).toBe("3. ScoringOpenNot public yet (Draft)Still being written.")
      await expect.poll(() => lessonCard(page, "Welcome").textContent()).toContain("Free preview")
      expect(await seriousViolations(page)).toEqual([])
      await page.screenshot({ path: join(screenshots, "preview.png"), fullPage: true })

      // And back: the switch is the only thing that changed.
      await audience.getByText("Visitor", { exact: true }).click()
      await expect.poll(() => lessonCard(page, "Feeding the starter").textContent()).toBe("1. Feeding the starterLocked")
    }, 60_000)

    it("marks a draft or a scheduled course not public yet (the public page answers 404 for both)", async () => {
      const url = studio.url()
      const course = await storedCourse(url, "Macarons", "draft")
      expect((await fetch(`${url}/public/courses/${course.slug}`)).status).toBe(404)
      // Paris, in British English: the scheduled date reads as the author's.
      const { page } = await openStudio(studio, "alice", { timezoneId: "Europe/Paris", locale: "en-GB" })
      page.setDefaultTimeout(10_000)
      await page.goto(`${url}/studio/#/courses/${course.id}/preview`)
      const banner = page.getByRole("note", { name: "Not public yet" })
      await expect.poll(() => banner.textContent()).toBe(
        "Not public yet. This course is a draft: learners cannot open it until it is published."
      )
      await expect.poll(() => lessonCard(page, "Welcome").textContent()).toContain("Everyone may read this welcome.")
      await page.getByRole("radiogroup", { name: "See the course as" }).getByText("Buyer", { exact: true }).click()
      await expect.poll(() => lessonCard(page, "Feeding the starter").textContent()).toContain("Only buyers read the feeding schedule.")
      expect(await seriousViolations(page)).toEqual([])
      await page.screenshot({ path: join(screenshots, "preview-draft.png"), fullPage: true })

      // A scheduled course says until when, in the author's time zone.
      const scheduled = await storedCourse(url, "Croissants", "published", "2099-12-01T09:00:00.000Z")
      expect((await fetch(`${url}/public/courses/${scheduled.slug}`)).status).toBe(404)
      await page.goto(`${url}/studio/#/courses/${scheduled.id}/preview`)
      await page.getByRole("heading", { name: "Croissants", level: 2 }).waitFor()
      await expect.poll(() => page.getByRole("note", { name: "Not public yet" }).textContent()).toBe(
        "Not public yet. This course is scheduled for 1 Dec 2099, 10:00; until then learners cannot open it."
      )
    }, 60_000)
  })
}
