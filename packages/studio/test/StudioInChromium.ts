/**
 * The Studio as an author meets it: `npm start` on the embedded defaults (a fresh
 * DATA_DIR, two named admin tokens), and Debian's chromium (playwright-core, never a
 * downloaded browser). One server and one browser per describe block.
 */
import { afterAll, beforeAll } from "@effect/vitest"
import axe from "axe-core"
import { existsSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { type Browser, type BrowserContext, type BrowserContextOptions, chromium, type Page } from "playwright-core"
import { startProcess, type StartedProcess } from "../../server/test/ServerProcess.ts"

const executablePath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium"

/** Whether the browser tests run: chromium is there, or CI requires it (then its absence fails them). */
export const chromiumTestsRun = existsSync(executablePath) || process.env.COURSEKIT_REQUIRE_BROWSER === "1"

/** The two authors' tokens (`ADMIN_TOKENS name=token`): revisions name them. */
export const authors = {
  alice: "studio-alice-token-0123456789abcdef",
  bob: "studio-bob-token-0123456789abcdef01"
} as const

export const useStudio = () => {
  let server: StartedProcess | undefined
  let browser: Browser | undefined
  let dataDir: string | undefined
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), "coursekit-studio-"))
    server = await startProcess("npm", ["start"], {
      DATA_DIR: dataDir,
      ADMIN_TOKENS: `alice=${authors.alice},bob=${authors.bob}`
    })
    browser = await chromium.launch({ executablePath, args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"] })
  }, 240_000)
  afterAll(async () => {
    await browser?.close()
    server?.child.kill("SIGTERM")
    await server?.exit
    if (dataDir !== undefined) rmSync(dataDir, { recursive: true, force: true })
  }, 60_000)
  return {
    url: (): string => server!.url,
    browser: (): Browser => browser!,
    output: (): ReadonlyArray<string> => server!.output
  }
}

/**
 * A new browser context (its own cookies) with a page on the Studio, signed in as `author`
 * unless told not to; `options` set more of the context (`timezoneId`, `locale`).
 */
export const openStudio = async (
  studio: ReturnType<typeof useStudio>,
  author: keyof typeof authors | undefined,
  options: BrowserContextOptions = {}
): Promise<{ readonly context: BrowserContext; readonly page: Page }> => {
  const context = await studio.browser().newContext({ viewport: { width: 1280, height: 860 }, ...options })
  const page = await context.newPage()
  // A page error or a refused resource (the CSP) is a failure of the Studio, not noise.
  page.on("pageerror", (error) => console.error(`page error: ${error.message}`))
  await page.goto(`${studio.url()}/studio/`)
  if (author !== undefined) {
    await page.getByLabel("Admin token").fill(authors[author])
    await page.getByRole("button", { name: "Sign in" }).click()
    await page.getByRole("heading", { name: "Courses" }).waitFor()
  }
  return { context, page }
}

/** axe-core's violations of impact serious or critical on the page as it is now. */
export const seriousViolations = async (page: Page) => {
  // Evaluated by the debugger, not a <script> element: the Studio's CSP refuses inline scripts.
  await page.evaluate(axe.source)
  const results = await page.evaluate(async () => {
    const run = (window as unknown as { axe: typeof axe }).axe.run
    return run(document, { resultTypes: ["violations"] })
  })
  return results.violations
    .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
    .map((violation) => `${violation.id}: ${violation.help} (${violation.nodes.map((node) => node.target.join(" ")).join("; ")})`)
}
