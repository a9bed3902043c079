/**
 * An example's server (examples/browser-upload's unless told which) and Debian's chromium
 * (playwright-core, never a downloaded browser) for the browser tests: one of each per
 * describe block.
 */
import { afterAll, beforeAll } from "@effect/vitest"
import { existsSync } from "node:fs"
import { type Browser, chromium } from "playwright-core"
import { start as startBrowserUpload } from "../browser-upload/server.ts"
import type { FrontServer } from "../shared/FrontServer.ts"

const executablePath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium"

/** Whether the browser tests run: chromium is there, or CI requires it (then its absence fails them). */
export const chromiumTestsRun = existsSync(executablePath) || process.env.COURSEKIT_REQUIRE_BROWSER === "1"

/** Starts the example (`start` on a free port) and chromium before the block's tests and stops both after them. */
export const useExampleInChromium = (start: (port: number) => Promise<FrontServer> = startBrowserUpload) => {
  let browser: Browser | undefined
  let example: FrontServer | undefined
  beforeAll(async () => {
    example = await start(0)
    browser = await chromium.launch({ executablePath, args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"] })
  }, 120_000)
  afterAll(async () => {
    await browser?.close()
    await example?.close()
  })
  return {
    browser: (): Browser => browser!,
    example: (): FrontServer => example!
  }
}
