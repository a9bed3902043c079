/**
 * The real Studio (built here from packages/studio) in Debian's chromium (playwright-core,
 * never a downloaded browser), served by the standalone server with its policy: the app
 * starts, from the root and from a client route, with not one Content-Security-Policy
 * violation or error in its console; and the policy does in a browser what it says — no
 * inline script or event handler, no `style` attribute (set in markup or by
 * `setAttribute`) while the DOM's style objects still apply, frames only of the video
 * players. (`eval` cannot be tried from
 * here: code the test runs through DevTools is not held to the page's policy; the exact
 * header, without 'unsafe-eval', is StudioHttp.test.ts's.)
 */
import { assert, describe, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { type Browser, chromium, type Page } from "playwright-core"
import { buildRealStudio } from "./StudioBuilds.ts"
import { layerTestServer, TestServer } from "./TestServer.ts"

class Chromium extends Context.Service<Chromium, Browser>()("test/Chromium") {
  static readonly layer = Layer.effect(
    Chromium,
    Effect.acquireRelease(
      Effect.promise(() =>
        chromium.launch({
          executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
          args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]
        })
      ),
      (browser) => Effect.promise(() => browser.close())
    )
  )
}

/** What the page reports of the policy: each violation's directive and blocked URL. */
interface Violation {
  readonly directive: string
  readonly blocked: string
}

/** The Studio signed out asks whether it is signed in with an admin-only read: the one refusal (a console line) expected. */
const signedOutProbe = /^Failed to load resource: the server responded with a status of 401 .*\/courses\?limit=1&status=draft$/

/**
 * A fresh page at `url` that records every policy violation (the recorder runs before the
 * page's own scripts) and, in `problems`, every error in its console (where chromium also
 * writes violations and refused resources) but the signed-out probe's, and every uncaught
 * exception.
 */
const openRecorded = (browser: Browser, url: string) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const page = await browser.newPage()
      const problems: Array<string> = []
      page.on("console", (message) => {
        const line = `${message.text()} ${message.location().url}`
        if (message.type() === "error" && !signedOutProbe.test(line)) problems.push(line)
      })
      page.on("pageerror", (error) => problems.push(`uncaught: ${error.message}`))
      await page.addInitScript(() => {
        const seen: Array<{ directive: string; blocked: string }> = []
        ;(globalThis as { __violations?: typeof seen }).__violations = seen
        document.addEventListener("securitypolicyviolation", (event) => seen.push({ directive: event.effectiveDirective, blocked: event.blockedURI }))
      })
      await page.goto(url)
      return { page, problems: problems as ReadonlyArray<string> }
    }),
    ({ page }) => Effect.promise(() => page.close())
  )

const violationsOf = (page: Page) =>
  Effect.promise(() => page.evaluate(() => (globalThis as unknown as { __violations: Array<Violation> }).__violations.slice()))

/** Waits until what the page did on load has been reported: violation events are dispatched after the task that caused them, effects after a frame. */
const settled = (page: Page) =>
  Effect.promise(() => page.evaluate(() => new Promise((done) => requestAnimationFrame(() => setTimeout(done, 300)))))

describe("Coursekit Studio in chromium", () => {
  const server = Layer.unwrap(Effect.map(Effect.promise(buildRealStudio), (dir) => layerTestServer({ studioEnabled: true, studioDir: dir })))
  layer(Layer.merge(server, Chromium.layer), { timeout: 180_000, excludeTestServices: true })((it) => {
    it.effect("the built app starts at /studio/ and at a client route, without one policy violation or error in the console", () =>
      Effect.gen(function*() {
        const { url } = yield* TestServer
        const browser = yield* Chromium
        for (const path of ["/studio/", "/studio/courses/12"]) {
          const { page, problems } = yield* openRecorded(browser, url + path)
          yield* Effect.promise(() => page.getByRole("heading", { name: "Coursekit Studio" }).waitFor({ timeout: 15_000 }))
          yield* settled(page)
          assert.deepStrictEqual(yield* violationsOf(page), [], path)
          assert.deepStrictEqual(problems, [], path)
          // The page's base is the Studio's root, whatever the depth it was served at.
          assert.strictEqual(yield* Effect.promise(() => page.evaluate(() => document.baseURI)), `${url}/studio/`)
        }
      }).pipe(Effect.scoped))

    it.effect("the policy refuses inline script and handlers, style attributes and other frames; style objects and the video players pass", () =>
      Effect.gen(function*() {
        const { url } = yield* TestServer
        const { page } = yield* openRecorded(yield* Chromium, `${url}/studio/`)
        const outcome = yield* Effect.promise(() =>
          page.evaluate(async () => {
            const colorOf = (element: Element) => getComputedStyle(element).color
            // The color a paragraph has from the app's own stylesheet: what a refused style leaves.
            const plain = document.body.appendChild(document.createElement("p"))
            const byObject = document.body.appendChild(document.createElement("p"))
            byObject.style.color = "rgb(1, 2, 3)"
            const byAttribute = document.body.appendChild(document.createElement("p"))
            byAttribute.setAttribute("style", "color: rgb(4, 5, 6)")
            const holder = document.body.appendChild(document.createElement("div"))
            holder.innerHTML = `<p style="color: rgb(7, 8, 9)">x</p>`
            const handler = document.body.appendChild(document.createElement("button"))
            handler.setAttribute("onclick", "globalThis.__handlerRan = true")
            handler.click()
            const inline = document.createElement("script")
            inline.textContent = "globalThis.__inlineRan = true"
            document.body.appendChild(inline)
            for (const src of ["https://www.youtube-nocookie.com/embed/abc", "https://player.vimeo.com/video/1", "https://example.com/embed"]) {
              const frame = document.createElement("iframe")
              frame.src = src
              document.body.appendChild(frame)
            }
            // Violation events are dispatched after the task that caused them.
            await new Promise((done) => setTimeout(done, 500))
            return {
              plain: colorOf(plain),
              styleObject: colorOf(byObject),
              styleAttribute: colorOf(byAttribute),
              styleInMarkup: colorOf(holder.firstElementChild!),
              handlerRan: (globalThis as { __handlerRan?: boolean }).__handlerRan === true,
              inlineRan: (globalThis as { __inlineRan?: boolean }).__inlineRan === true
            }
          })
        )
        assert.notInclude(["rgb(1, 2, 3)", "rgb(4, 5, 6)", "rgb(7, 8, 9)"], outcome.plain)
        assert.deepStrictEqual(outcome, {
          plain: outcome.plain,
          styleObject: "rgb(1, 2, 3)",
          styleAttribute: outcome.plain,
          styleInMarkup: outcome.plain,
          handlerRan: false,
          inlineRan: false
        })
        const violations = yield* violationsOf(page)
        assert.deepStrictEqual(
          violations.map((violation) => violation.directive).sort(),
          ["frame-src", "script-src-attr", "script-src-elem", "style-src-attr", "style-src-attr"]
        )
        assert.deepStrictEqual(violations.filter((violation) => violation.directive === "frame-src").map((violation) => violation.blocked), ["https://example.com"])
      }).pipe(Effect.scoped))
  })
})
