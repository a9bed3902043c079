/**
 * "Generate with AI" end to end in Debian's chromium against `npm start` (StudioInChromium),
 * its models two loopback fakes speaking OpenAI's and Gemini's wire formats (the server's
 * own test fakes): an answer streamed block by block and stopped mid-way (the fake sees
 * its connection closed), a finished one inserted at the cursor of the course body, a
 * failed primary with the secondary answering replacing a lesson's body, and an `error`
 * event whose message is shown with the blocks that arrived. What Insert and Replace wrote
 * is checked as the API stores it after autosave, with its revision. Screenshot for
 * docs/studio.md.
 */
import { FakeGemini, FakeGeminiServer } from "@coursekit/llm-gemini/testing"
import { FakeOpenAi, FakeOpenAiServer } from "@coursekit/llm-openai/testing"
import { ModelAnswer } from "@coursekit/core/testing"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Layer, ManagedRuntime } from "effect"
import { mkdirSync } from "node:fs"
import { join } from "node:path"
import type { Page } from "playwright-core"
import { authors, chromiumTestsRun, openStudio, seriousViolations, useStudio } from "./StudioInChromium.ts"

const screenshots = join(import.meta.dirname, "../../../docs/studio")

const admin = { authorization: `Bearer ${authors.alice}`, "content-type": "application/json" }

/** The two fake models for the describe block: OpenAI-compatible first, Gemini second. */
const useFakeModels = () => {
  const runtime = ManagedRuntime.make(Layer.mergeAll(FakeOpenAiServer.layer({ model: "gpt-studio" }), FakeGeminiServer.layer()))
  let fakes: { readonly openai: FakeOpenAiServer.FakeOpenAiServer; readonly gemini: FakeGeminiServer.FakeGeminiServer } | undefined
  beforeAll(async () => {
    fakes = await runtime.runPromise(Effect.gen(function*() {
      return { openai: yield* FakeOpenAi, gemini: yield* FakeGemini }
    }))
  })
  afterAll(() => runtime.dispose())
  return {
    openai: () => fakes!.openai,
    gemini: () => fakes!.gemini,
    /** The server's variables: both models priced, no cool-down (each test scripts its own failures). */
    env: (): Record<string, string> => ({
      AI_PRIMARY_PROVIDER: "openai",
      AI_PRIMARY_MODEL: "gpt-studio",
      AI_PRIMARY_API_KEY: "sk-studio-fake-key-0123456789",
      AI_PRIMARY_BASE_URL: fakes!.openai.baseUrl,
      AI_PRIMARY_PRICE_INPUT: "0.15",
      AI_PRIMARY_PRICE_OUTPUT: "0.6",
      AI_SECONDARY_PROVIDER: "google",
      AI_SECONDARY_MODEL: "gemini-studio",
      AI_SECONDARY_API_KEY: "AIza-studio-fake-key-0123456789",
      AI_SECONDARY_BASE_URL: fakes!.gemini.baseUrl,
      AI_SECONDARY_PRICE_INPUT: "0.3",
      AI_SECONDARY_PRICE_OUTPUT: "2.5",
      AI_TIMEOUT_MS: "10000",
      AI_COOLDOWN_MS: "0"
    })
  }
}

const api = async (url: string, path: string, init: { readonly method?: string; readonly body?: unknown } = {}) => {
  const response = await fetch(`${url}${path}`, {
    method: init.method ?? "GET",
    headers: admin,
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) })
  })
  expect(response.status, `${init.method ?? "GET"} ${path}`).toBeLessThan(300)
  return response.json() as Promise<any>
}

const saveStatus = (page: Page) => page.getByRole("status").filter({ hasText: /Saved|Saving|Unsaved|Not saved/ })
const panel = (page: Page) => page.getByRole("region", { name: "Generate with AI" })
const generated = (page: Page) => panel(page).getByRole("region", { name: "Generated text" })
const panelStatus = (page: Page) => panel(page).locator(".assistant-status")
/** The panel's facts as shown: "Provider" → "openai", … */
const shownFacts = (page: Page) =>
  panel(page).locator(".assistant-outcome dl").evaluate((list) => {
    const facts: Record<string, string> = {}
    for (const term of list.querySelectorAll("dt")) facts[term.textContent ?? ""] = term.nextElementSibling?.textContent ?? ""
    return facts
  })
const shownAttempts = (page: Page) => panel(page).getByRole("list", { name: "Attempts" }).getByRole("listitem").allTextContents()
/** The blocks shown in "Generated text", as HTML. */
const shownBlocks = (page: Page) => generated(page).locator(".assistant-block").evaluateAll((blocks) => blocks.map((block) => block.innerHTML))

const generate = async (page: Page, prompt: string) => {
  await panel(page).getByLabel("Prompt").fill(prompt)
  await panel(page).getByRole("button", { name: "Generate" }).click()
}

if (chromiumTestsRun) {
  describe("Generate with AI in chromium, against loopback fake models", () => {
    const models = useFakeModels()
    const studio = useStudio(models.env)

    it("the course editor: blocks shown as they stream in; Stop aborts the request and keeps them; a finished answer with its provider, model, attempts and cost; Insert at the cursor, autosaved with a revision", async () => {
      mkdirSync(screenshots, { recursive: true })
      const course = await api(studio.url(), "/courses", { method: "POST", body: { title: "Rust ownership", content_html: "<p>First line.</p><p>Last line.</p>" } })
      const { context, page } = await openStudio(studio, "alice")
      await page.goto(`${studio.url()}/studio/#/courses/${course.id}`)
      await page.getByRole("textbox", { name: "Course body" }).waitFor()

      const toggle = page.getByRole("button", { name: "Generate with AI" })
      expect(await toggle.getAttribute("aria-expanded")).toBe("false")
      await toggle.click()
      expect(await toggle.getAttribute("aria-expanded")).toBe("true")

      // A slow answer: about 0.6 s a block, twelve blocks.
      const openai = models.openai()
      const parts = Array.from({ length: 12 }, (_, i) => `<h2>Part ${i + 1}</h2><p>Each value has one owner (${i + 1}).</p>`)
      openai.script.answerWith(ModelAnswer.text(parts.join("\n"), { chunkChars: 8, chunkDelayMs: 100 }))
      const abandonedBefore = openai.script.abandoned
      await generate(page, "A lesson on ownership")
      await expect.poll(() => generated(page).textContent(), { timeout: 15_000 }).toContain("Part 2")
      // Visible before `done`: still generating, no provider yet (only `done` names it).
      expect(await panelStatus(page).textContent()).toMatch(/^Generating…/)
      expect(await panel(page).getByRole("button", { name: "Stop" }).isVisible()).toBe(true)
      expect(await panel(page).locator("dt", { hasText: "Provider" }).count()).toBe(0)
      expect((await shownBlocks(page)).slice(0, 3)).toEqual(["<h2>Part 1</h2>", "<p>Each value has one owner (1).</p>", "<h2>Part 2</h2>"])

      await panel(page).getByRole("button", { name: "Stop" }).click()
      // The server saw the abort: it aborted the model's request.
      await expect.poll(() => openai.script.abandoned, { timeout: 10_000 }).toBeGreaterThan(abandonedBefore)
      const kept = await shownBlocks(page)
      expect(kept.length).toBeGreaterThanOrEqual(3)
      expect(kept.length).toBeLessThan(24)
      expect(await panelStatus(page).textContent()).toBe(`Stopped: ${kept.length} blocks kept.`)
      await page.waitForTimeout(1_000)
      expect(await shownBlocks(page)).toEqual(kept)
      expect(kept).toEqual(parts.flatMap((part) => part.split(/(?<=<\/h2>)/)).slice(0, kept.length))

      // A whole answer, then Insert where the cursor is: after "First line.".
      openai.script.answerWith(ModelAnswer.text("<h2>Ownership</h2>\n<p>Each value has <strong>one</strong> owner.</p>", { chunkChars: 8, chunkDelayMs: 20 }))
      await generate(page, "A lesson on ownership, shorter")
      await expect.poll(() => panelStatus(page).textContent(), { timeout: 15_000 }).toBe("Done: 2 blocks.")
      expect(await shownFacts(page)).toEqual({ Provider: "openai", Model: "gpt-studio", Attempts: "1", Cost: "$0.0000075" })
      expect(await shownAttempts(page)).toEqual([expect.stringMatching(/^openai gpt-studio: success \(\d+ ms, \$0\.0000075\)$/)])
      expect(await shownBlocks(page)).toEqual(["<h2>Ownership</h2>", "<p>Each value has <strong>one</strong> owner.</p>"])

      const body = page.getByRole("textbox", { name: "Course body" })
      await body.getByText("First line.").click()
      await page.keyboard.press("End")
      await panel(page).getByRole("button", { name: "Insert" }).click()
      await expect.poll(() => body.innerHTML()).toContain("<h2>Ownership</h2>")
      await expect.poll(() => saveStatus(page).textContent(), { timeout: 10_000 }).toBe("Saved")
      const stored = await api(studio.url(), `/courses/${course.id}`)
      expect(stored.content_html).toBe("<p>First line.</p><h2>Ownership</h2><p>Each value has <strong>one</strong> owner.</p><p>Last line.</p>")
      const revisions = await api(studio.url(), `/courses/${course.id}/revisions`)
      expect(revisions[0]).toMatchObject({ version: stored.version, author: "alice", autosave: true, changed: ["content_html"] })
      await context.close()
    })

    it("the lesson editor: the primary fails, the secondary answers; the attempts, provider, model and cost shown; Replace replaces the body, autosaved with a revision", async () => {
      const course = await api(studio.url(), "/courses", { method: "POST", body: { title: "Borrowing", content_html: "<p>Course.</p>" } })
      const lesson = await api(studio.url(), `/courses/${course.id}/lessons`, { method: "POST", body: { title: "References", content_html: "<p>Old body.</p>" } })
      const { context, page } = await openStudio(studio, "alice")
      await page.goto(`${studio.url()}/studio/#/courses/${course.id}/lessons/${lesson.id}`)
      const body = page.getByRole("textbox", { name: "Lesson body" })
      await body.waitFor()

      models.openai().script.answerWith(ModelAnswer.status(500))
      const answer = "<h2>Borrowing</h2><p>A reference borrows a value.</p><ul><li>Shared: <code>&amp;T</code></li><li>Mutable: <code>&amp;mut T</code></li></ul>"
      models.gemini().script.answerWith(ModelAnswer.text(answer, { chunkChars: 12, chunkDelayMs: 20 }))
      await page.getByRole("button", { name: "Generate with AI" }).click()
      await generate(page, "A lesson on references and borrowing")
      await expect.poll(() => panelStatus(page).textContent(), { timeout: 15_000 }).toBe("Done: 3 blocks.")
      expect(await shownFacts(page)).toEqual({ Provider: "google", Model: "gemini-studio", Attempts: "2", Cost: "$0.000028" })
      expect(await shownAttempts(page)).toEqual([
        expect.stringMatching(/^openai gpt-studio: server error, the provider answered HTTP 500 \(\d+ ms\)$/),
        expect.stringMatching(/^google gemini-studio: success \(\d+ ms, \$0\.000028\)$/)
      ])
      expect(await generated(page).getByRole("heading", { name: "Borrowing" }).isVisible()).toBe(true)

      expect(await seriousViolations(page)).toEqual([])
      await panel(page).scrollIntoViewIfNeeded()
      await page.screenshot({ path: join(screenshots, "assistant.png") })

      await panel(page).getByRole("button", { name: "Replace" }).click()
      await expect.poll(() => body.textContent()).not.toContain("Old body.")
      await expect.poll(() => saveStatus(page).textContent(), { timeout: 10_000 }).toBe("Saved")
      const stored = (await api(studio.url(), `/courses/${course.id}/lessons`)).find((each: { id: number }) => each.id === lesson.id)
      // The body is the answer, nothing of the old one left.
      expect(stored.content_html).toBe(answer)
      const revisions = await api(studio.url(), `/courses/${course.id}/lessons/${lesson.id}/revisions`)
      expect(revisions[0]).toMatchObject({ version: stored.version, author: "alice", autosave: true, changed: ["content_html"] })

      // Undone like typing: the old body back, and saved.
      await body.click()
      await page.keyboard.press("Control+z")
      await expect.poll(() => body.textContent()).toBe("Old body.")
      await expect.poll(async () => (await api(studio.url(), `/courses/${course.id}/lessons`)).find((each: { id: number }) => each.id === lesson.id).content_html, { timeout: 10_000 }).toBe("<p>Old body.</p>")
      await context.close()
    })

    it("an error event after blocks went out: its message shown, the blocks that arrived kept and still usable; Close stops a generation", async () => {
      const course = await api(studio.url(), "/courses", { method: "POST", body: { title: "Lifetimes", content_html: "<p>Start.</p>" } })
      const { context, page } = await openStudio(studio, "alice")
      await page.goto(`${studio.url()}/studio/#/courses/${course.id}`)
      await page.getByRole("textbox", { name: "Course body" }).waitFor()

      // A blank prompt is named, and nothing is asked.
      const asked = models.openai().script.received.length
      await page.getByRole("button", { name: "Generate with AI" }).click()
      await expect.poll(() => page.evaluate(() => document.activeElement?.closest("label, .react-aria-TextField")?.textContent)).toContain("Prompt")
      await panel(page).getByRole("button", { name: "Generate" }).click()
      expect(await panel(page).getByText("Write what the text should be about.").isVisible()).toBe(true)
      expect(models.openai().script.received.length).toBe(asked)

      models.openai().script.answerWith(ModelAnswer.breakAfter("<h2>Lifetimes</h2><p>A lifetime is a scope.</p><p>Then the model", { status: 500 }, { chunkChars: 8, chunkDelayMs: 20 }))
      await generate(page, "A lesson on lifetimes")
      const alert = panel(page).getByRole("alert")
      await alert.waitFor({ timeout: 15_000 })
      expect(await alert.textContent()).toMatch(/incomplete/)
      expect(await panel(page).getByText("Write what the text should be about.").count()).toBe(0)
      expect(await shownBlocks(page)).toEqual(["<h2>Lifetimes</h2>", "<p>A lifetime is a scope.</p>"])
      expect(await panelStatus(page).textContent()).toBe("Failed: 2 blocks kept.")
      expect(await shownAttempts(page)).toEqual([expect.stringMatching(/^openai gpt-studio: server error/)])
      expect(await panel(page).getByRole("button", { name: "Insert" }).isEnabled()).toBe(true)
      expect(await seriousViolations(page)).toEqual([])

      // Close while generating stops the generation too.
      const openai = models.openai()
      openai.script.answerWith(ModelAnswer.text(Array.from({ length: 12 }, (_, i) => `<p>Slow ${i}.</p>`).join(""), { chunkChars: 4, chunkDelayMs: 100 }))
      const abandonedBefore = openai.script.abandoned
      await generate(page, "A long lesson on lifetimes")
      await expect.poll(() => generated(page).textContent(), { timeout: 15_000 }).toContain("Slow 0.")
      await panel(page).getByRole("button", { name: "Close" }).click()
      expect(await panel(page).count()).toBe(0)
      await expect.poll(() => openai.script.abandoned, { timeout: 10_000 }).toBeGreaterThan(abandonedBefore)
      await context.close()
    })
  })
}
