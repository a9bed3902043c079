/**
 * The Studio as an author meets it: `npm start` on the embedded defaults (a fresh
 * DATA_DIR, two named admin tokens), and Debian's chromium (playwright-core, never a
 * downloaded browser). One server and one browser per describe block.
 */
import { afterAll, afterEach, beforeAll, expect } from "@effect/vitest"
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

/**
 * How the Studio asks whether it is signed in (`useAdminAccess`): an admin-only read, which
 * a page signed out is refused. Chromium logs that refusal as an error; it is the one the
 * suites expect of every page without being told.
 */
const signedOutProbe = "401 /courses?limit=1&status=draft"

/** A page the suites watch: what went wrong in it, and the refusals and errors its flow expects. */
interface WatchedPage {
  readonly problems: Array<string>
  readonly expectedRefusals: Set<string>
  readonly expectedErrors: Array<RegExp>
}

const watchedPages = new WeakMap<Page, WatchedPage>()

/**
 * Says that `page`'s flow expects the API to refuse a request, as `"<status> <path and
 * query>"` (`"412 /courses/7"`): chromium logs every 4xx answer as an error in the console,
 * also those the Studio handles (a wrong token, a conflict), and any other fails the test.
 */
export const expectRefusal = (page: Page, refusal: string) => {
  watchedPages.get(page)!.expectedRefusals.add(refusal)
}

/** Says that `page`'s flow expects an error in the console matching `pattern` (what a test provokes on purpose). */
export const expectConsoleError = (page: Page, pattern: RegExp) => {
  watchedPages.get(page)!.expectedErrors.push(pattern)
}

/**
 * Watches `page` for anything going wrong: an error in the console (chromium also writes
 * there a resource it could not load and each Content-Security-Policy violation), an
 * uncaught exception, and each `securitypolicyviolation` event. A console line about a
 * refused request is a problem unless the flow expects that refusal (`expectRefusal`).
 */
const watch = async (page: Page): Promise<WatchedPage> => {
  const watched: WatchedPage = { problems: [], expectedRefusals: new Set([signedOutProbe]), expectedErrors: [] }
  watchedPages.set(page, watched)
  page.on("console", (message) => {
    if (message.type() !== "error") return
    const refused = /^Failed to load resource: the server responded with a status of (\d+)/.exec(message.text())
    const location = message.location().url
    const { pathname, search } = URL.canParse(location) ? new URL(location) : { pathname: location, search: "" }
    if (refused !== null && watched.expectedRefusals.has(`${refused[1]} ${pathname}${search}`)) return
    if (watched.expectedErrors.some((pattern) => pattern.test(message.text()))) return
    watched.problems.push(`console error: ${message.text()} (${location})`)
  })
  page.on("pageerror", (error) => watched.problems.push(`uncaught: ${error.stack ?? error.message}`))
  await page.exposeFunction("coursekitPolicyViolation", (violation: string) => watched.problems.push(`policy violation: ${violation}`))
  // Runs before the page's own scripts (through the debugger, so the policy does not apply to it).
  await page.addInitScript(() =>
    document.addEventListener("securitypolicyviolation", (event) => {
      const report = (window as unknown as { coursekitPolicyViolation: (violation: string) => void }).coursekitPolicyViolation
      void report(`${event.effectiveDirective} refused ${event.blockedURI} (${event.sample})`)
    })
  )
  return watched
}

/**
 * One `npm start` and one chromium for the describe block that calls it. `env` adds
 * variables to the server's (the AI models' `AI_PRIMARY_*`, …); it is read when the server
 * starts, after the hooks registered before this call ran (fakes started there).
 */
export const useStudio = (env: () => Readonly<Record<string, string>> = () => ({})) => {
  let server: StartedProcess | undefined
  let browser: Browser | undefined
  let dataDir: string | undefined
  // The pages opened by the running test: after it, not one of them may have reported a problem.
  const pages: Array<WatchedPage> = []
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), "coursekit-studio-"))
    server = await startProcess("npm", ["start"], {
      DATA_DIR: dataDir,
      ADMIN_TOKENS: `alice=${authors.alice},bob=${authors.bob}`,
      ...env()
    })
    browser = await chromium.launch({ executablePath, args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"] })
  }, 240_000)
  afterEach(() => {
    const problems = pages.splice(0).flatMap((page) => page.problems)
    expect(problems, "what the Studio's pages reported going wrong").toEqual([])
  })
  afterAll(async () => {
    await browser?.close()
    server?.child.kill("SIGTERM")
    await server?.exit
    if (dataDir !== undefined) rmSync(dataDir, { recursive: true, force: true })
  }, 60_000)
  return {
    url: (): string => server!.url,
    browser: (): Browser => browser!,
    output: (): ReadonlyArray<string> => server!.output,
    /** A new page in `context`, watched for problems until the test ends (`openStudio` opens its pages so). */
    newPage: async (context: BrowserContext): Promise<Page> => {
      const page = await context.newPage()
      pages.push(await watch(page))
      return page
    }
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
  // An error in the console, an uncaught exception or a policy violation fails the test (`useStudio`).
  const page = await studio.newPage(context)
  await page.goto(`${studio.url()}/studio/`)
  if (author !== undefined) {
    await page.getByLabel("Admin token").fill(authors[author])
    await page.getByRole("button", { name: "Sign in" }).click()
    await page.getByRole("heading", { name: "Courses" }).waitFor()
  }
  return { context, page }
}

/**
 * {@link openStudio} at the server's public URL (its start-up line names it), signed in as
 * `author`: uploads go to the storage address the server hands out, the page's own origin.
 */
export const openStudioAtPublicUrl = async (
  studio: ReturnType<typeof useStudio>,
  author: keyof typeof authors
): Promise<{ readonly context: BrowserContext; readonly page: Page; readonly publicUrl: string }> => {
  const { context, page } = await openStudio(studio, undefined)
  const publicUrl = /public URL (http:\/\/[^,\s]+)/.exec(studio.output().join("\n"))![1]!
  await page.goto(`${publicUrl}/studio/`)
  await page.getByLabel("Admin token").fill(authors[author])
  await page.getByRole("button", { name: "Sign in" }).click()
  await page.getByRole("heading", { name: "Courses" }).waitFor()
  return { context, page, publicUrl }
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
