/**
 * examples/learner-page end to end in Debian's chromium (playwright-core): a course seeded
 * through the admin API (a preview lesson; a paid lesson whose video is a private MP4,
 * fixtures/lecture.mp4; a lesson drip releases 7 days after the purchase). A viewer signs
 * in with a viewer token and sees the outline's states (Open, Locked; after the purchase
 * Open and "Upcoming — opens <date>"); the video plays from its signed URL, its place is
 * saved every 10 s while it plays and on pause, and it resumes there; "Mark as done" on the
 * two open lessons moves the course's progress bar to 66, as the API's percent.
 */
import { describe, expect, it } from "@effect/vitest"
import { createClient } from "@coursekit/client"
import { UserId } from "@coursekit/core"
import type { Page, Request } from "playwright-core"
import { demoVideo, seedDemoCourse, start } from "../learner-page/server.ts"
import { chromiumTestsRun, useExampleInChromium } from "./ExampleInChromium.ts"

/** `GET /me/courses/{id}/progress` as sent on the wire. */
interface CourseProgressJson {
  readonly course_id: number
  readonly purchased: boolean
  readonly lessons_total: number
  readonly lessons_completed: number
  readonly percent: number
  readonly completed_at: string | null
  readonly next_lesson_id: number | null
  readonly lessons: ReadonlyArray<{ readonly lesson_id: number; readonly completed_at: string | null; readonly position_seconds: number; readonly available_at: string | null }>
}

if (chromiumTestsRun) {
  describe("examples/learner-page in chromium", () => {
    const running = useExampleInChromium(start)

    /** A viewer token for `user`, from the example's demo endpoint (HS256 with the service's JWT_SECRET). */
    const tokenFor = async (user: string) => {
      const response = await fetch(`${running.example().url}/demo/viewer-token`, { method: "POST", body: JSON.stringify({ user_id: user }) })
      expect(response.status).toBe(200)
      return ((await response.json()) as { token: string }).token
    }

    /** An API read as the holder of `token`. */
    const read = async <A>(path: string, token: string): Promise<A> => {
      const response = await fetch(`${running.example().url}${path}`, { headers: { authorization: `Bearer ${token}` } })
      expect(response.status, path).toBe(200)
      return (await response.json()) as A
    }

    /** The outline's item of the lesson titled `title`. */
    const lesson = (page: Page, title: string) => page.getByRole("listitem").filter({ has: page.getByText(title, { exact: true }) })
    /** Each lesson's state as the page writes it, in outline order. */
    const states = (page: Page) => page.locator("#outline .lesson .state").allTextContents()
    const bar = (page: Page) => page.getByRole("progressbar", { name: "Course progress" })

    /** The page's next progress write for `lessonId` (`PUT /me/lessons/{id}/progress`), with its body. */
    const progressWrite = (page: Page, lessonId: number, timeout: number) =>
      page.waitForRequest((request: Request) => request.method() === "PUT" && new URL(request.url()).pathname === `/me/lessons/${lessonId}/progress`, { timeout })
        .then(async (request) => ({ body: request.postDataJSON() as { position_seconds?: number; completed?: boolean }, status: (await request.response())?.status() }))

    it("signs a viewer in, shows the outline's states, plays and resumes the video saving its place, and marks lessons done", async () => {
      const example = running.example()
      const { course, welcome, moves, lifetimes } = await seedDemoCourse(example, demoVideo())
      const user = "learner-7"
      const token = await tokenFor(user)

      const page = await running.browser().newPage({ viewport: { width: 1280, height: 860 } })
      const errors: Array<string> = []
      page.on("pageerror", (error) => errors.push(error.message))
      await page.goto(`${example.url}/?course=${course.slug}`)

      // Signed in, not a buyer: the preview is open, the rest locked; nothing done.
      await page.getByLabel("Viewer token").fill(token)
      await page.getByRole("button", { name: "Sign in" }).click()
      await page.getByText(`Signed in as ${user}.`).waitFor()
      expect(await bar(page).getAttribute("aria-valuenow")).toBe("0")
      expect(await states(page)).toEqual(["Open", "Locked", "Locked"])
      expect(await page.textContent("#course-note")).toBe("You have not bought this course: only its preview lessons are open.")
      expect(await lesson(page, "Moves and borrows").getByRole("button").count()).toBe(0)
      expect(await lesson(page, welcome.title).getByRole("button", { name: "Mark as done" }).count()).toBe(1)
      // The API agrees: the paid lesson's progress is refused (403, no date: bought, it opens at once).
      const refused = await fetch(`${example.url}/me/lessons/${moves.id}/progress`, {
        method: "PUT",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ completed: true })
      })
      expect(refused.status).toBe(403)
      expect((await refused.json()).available_at).toBeNull()

      // The purchase (as a payment webhook records it); a reload keeps the viewer signed in.
      const admin = createClient({ baseUrl: example.url, adminToken: example.adminToken })
      await admin.purchases.grant({ params: { id: course.id, user_id: UserId.make(user) } })
      await admin.dispose()
      await page.reload()
      await page.getByText(`Signed in as ${user}.`).waitFor()
      const publicCourse = await read<{ readonly sections: ReadonlyArray<{ readonly lessons: ReadonlyArray<{ readonly id: number; readonly access: string; readonly available_at: string | null }> }> }>(
        `/public/courses/${course.slug}`,
        token
      )
      const upcoming = publicCourse.sections[1]!.lessons[0]!
      expect(upcoming).toMatchObject({ id: lifetimes.id, access: "upcoming" })
      const opensAt = new Date(upcoming.available_at!)
      // Seven days after the purchase, just now.
      expect(Math.abs(opensAt.getTime() - (Date.now() + 7 * 86_400_000))).toBeLessThan(120_000)
      const opensText = await page.evaluate((iso) => new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" }).format(new Date(iso)), upcoming.available_at!)
      expect(await states(page)).toEqual(["Open", "Open", `Upcoming — opens ${opensText}`])
      expect(new Date((await lesson(page, lifetimes.title).locator("time").getAttribute("datetime"))!).getTime()).toBe(opensAt.getTime())
      expect(await lesson(page, lifetimes.title).getByRole("button").count()).toBe(0)
      expect(await page.textContent("#course-note")).toBe("")
      const before = await read<CourseProgressJson>(`/me/courses/${course.id}/progress`, token)
      expect(before).toEqual({
        course_id: course.id,
        purchased: true,
        lessons_total: 3,
        lessons_completed: 0,
        percent: 0,
        completed_at: null,
        next_lesson_id: welcome.id,
        lessons: [
          { lesson_id: welcome.id, completed_at: null, position_seconds: 0, available_at: null },
          { lesson_id: moves.id, completed_at: null, position_seconds: 0, available_at: null },
          { lesson_id: lifetimes.id, completed_at: null, position_seconds: 0, available_at: upcoming.available_at }
        ]
      })

      // Play: the private video plays from its signed URL; while it plays its place is saved every 10 s.
      await lesson(page, moves.title).getByRole("button", { name: "Play" }).click()
      const src = (await page.getAttribute("#player", "src"))!
      expect(src).toMatch(new RegExp(`^${example.url.replace(/\./g, "\\.")}/files/private/media/[0-9a-f-]{36}\\.mp4\\?expires=\\d+&signature=[A-Za-z0-9_-]+$`))
      await page.waitForFunction(() => (document.getElementById("player") as HTMLVideoElement).currentTime > 0.5, undefined, { timeout: 15_000 })
      const periodic = await progressWrite(page, moves.id, 15_000)
      expect(periodic.status).toBe(200)
      expect(periodic.body.completed).toBeUndefined()
      // About 10 s in (less the time the video took to start).
      expect(periodic.body.position_seconds).toBeGreaterThan(5)
      expect(periodic.body.position_seconds).toBeLessThanOrEqual(12)
      expect(await page.evaluate(() => (document.getElementById("player") as HTMLVideoElement).paused)).toBe(false)

      // Pause, a second on: the place is saved at once (a place saved already is not sent again).
      await page.waitForFunction((after) => (document.getElementById("player") as HTMLVideoElement).currentTime > after, periodic.body.position_seconds! + 1)
      const onPause = progressWrite(page, moves.id, 5_000)
      const pausedAt = await page.evaluate(() => {
        const video = document.getElementById("player") as HTMLVideoElement
        video.pause()
        return video.currentTime
      })
      const paused = await onPause
      expect(paused.status).toBe(200)
      // Saved to a tenth of a second.
      expect(Math.abs(paused.body.position_seconds! - pausedAt)).toBeLessThanOrEqual(0.051)
      expect(paused.body.position_seconds).toBeGreaterThan(periodic.body.position_seconds!)
      const afterPause = await read<CourseProgressJson>(`/me/courses/${course.id}/progress`, token)
      const saved = afterPause.lessons.find((entry) => entry.lesson_id === moves.id)!.position_seconds
      expect(saved).toBeGreaterThan(0)
      expect(saved).toBe(paused.body.position_seconds)
      expect(afterPause.percent).toBe(0)

      // After a reload the video resumes there.
      await page.reload()
      await lesson(page, moves.title).getByText(`Stopped at 0:${String(Math.floor(saved)).padStart(2, "0")}`).waitFor()
      await lesson(page, moves.title).getByRole("button", { name: "Play" }).click()
      await page.getByText(/^Resumed at /).waitFor()
      const resumed = await page.evaluate(() => {
        const video = document.getElementById("player") as HTMLVideoElement
        const at = video.currentTime
        video.pause()
        return at
      })
      // It plays on from there until read: on a loaded machine for a second or two.
      expect(resumed).toBeGreaterThanOrEqual(saved)
      expect(resumed).toBeLessThan(saved + 3)

      // Mark as done, both open lessons: the bar follows the API's percent.
      await lesson(page, welcome.title).getByRole("button", { name: "Mark as done" }).click()
      await page.waitForFunction(() => document.querySelector("[role=progressbar]")!.getAttribute("aria-valuenow") === "33")
      // The redrawn lesson's button keeps the focus.
      expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Mark as not done")
      await lesson(page, moves.title).getByRole("button", { name: "Mark as done" }).click()
      await page.waitForFunction(() => document.querySelector("[role=progressbar]")!.getAttribute("aria-valuenow") === "66")
      expect(await bar(page).getAttribute("aria-valuenow")).toBe("66")
      expect(await page.textContent("#progress-text")).toBe("2 of 3 lessons done · 66%")
      expect(await states(page)).toEqual(["Done", "Done", `Upcoming — opens ${opensText}`])
      expect(await page.getByRole("button", { name: "Mark as done" }).count()).toBe(0)
      const after = await read<CourseProgressJson>(`/me/courses/${course.id}/progress`, token)
      expect(after).toMatchObject({ purchased: true, lessons_total: 3, lessons_completed: 2, percent: 66, completed_at: null, next_lesson_id: null })
      expect(after.lessons.map((entry) => entry.completed_at !== null)).toEqual([true, true, false])

      // Without ?course: the viewer's courses, each with their progress.
      await page.goto(`${example.url}/`)
      await page.getByRole("link", { name: course.title }).waitFor()
      expect(await page.locator("#course-list li").allTextContents()).toEqual([`${course.title}2 of 3 lessons done · 66%`])

      // A token the service refuses: signed out, told why.
      await page.getByRole("button", { name: "Sign out" }).click()
      await page.getByLabel("Viewer token").fill(`${token.split(".").slice(0, 2).join(".")}.not-the-signature`)
      await page.getByRole("button", { name: "Sign in" }).click()
      await page.getByText("The service refused this token (expired, malformed, or not signed for it). Sign in with another.").waitFor()
      expect(await page.getByRole("button", { name: "Sign out" }).isVisible()).toBe(false)

      expect(errors).toEqual([])
      await page.close()
    }, 120_000)
  })
}
