/**
 * examples/browser-upload's server and Debian's chromium (playwright-core, never a
 * downloaded browser) for the browser tests: one of each per describe block.
 */
import { afterAll, beforeAll } from "@effect/vitest"
import { existsSync } from "node:fs"
import { type Browser, chromium } from "playwright-core"
import { start } from "../browser-upload/server.ts"

const executablePath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium"

/** Whether the browser tests run: chromium is there, or CI requires it (then its absence fails them). */
export const chromiumTestsRun = existsSync(executablePath) || process.env.COURSEKIT_REQUIRE_BROWSER === "1"

/** Starts the example and chromium before the block's tests and stops both after them. */
export const useExampleInChromium = () => {
  let browser: Browser | undefined
  let example: Awaited<ReturnType<typeof start>> | undefined
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
    example: (): Awaited<ReturnType<typeof start>> => example!
  }
}
