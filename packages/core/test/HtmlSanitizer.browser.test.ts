/**
 * The sanitizer's output loaded into a real browser (Debian's chromium, driven by
 * playwright-core): attack vectors must not execute or keep a handler or script URL,
 * and benign course HTML must keep its structure and allowed classes.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { existsSync } from "node:fs"
import { type Browser, chromium, type Page } from "playwright-core"
import { HtmlSanitizer } from "../src/index.ts"

const executablePath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium"
const required = process.env.COURSEKIT_REQUIRE_BROWSER === "1"

const sanitizer = Effect.runSync(Effect.provide(
  Effect.gen(function*() {
    return yield* HtmlSanitizer
  }),
  HtmlSanitizer.layer
))
const sanitize = (html: string) => Effect.runSync(sanitizer.sanitizeAuthored(html))
const sanitizeModel = (html: string) => Effect.runSync(sanitizer.sanitizeModelOutput(html))

// Every payload reports through __pwn(id) instead of alert(), so execution is observable.
const attacks: ReadonlyArray<readonly [string, string]> = [
  ["script", "<script>__pwn('script')</script>"],
  ["script, upper case", "<SCRIPT>__pwn('script-upper')</SCRIPT>"],
  ["script split by a comment", "<scr<!-- -->ipt>__pwn('split')</script>"],
  ["img onerror", "<img src=x onerror=\"__pwn('img-onerror')\">"],
  ["img onerror, no quotes, slash", "<img/src=x/onerror=__pwn('img-slash')>"],
  ["svg onload", "<svg onload=\"__pwn('svg-onload')\"></svg>"],
  ["svg animate onbegin", "<svg><animate onbegin=\"__pwn('animate')\" attributeName=x dur=1s></animate></svg>"],
  ["body onload", "<body onload=\"__pwn('body-onload')\"><p>x</p></body>"],
  ["details ontoggle", "<details open ontoggle=\"__pwn('ontoggle')\"><summary>s</summary>d</details>"],
  ["input autofocus onfocus", "<input autofocus onfocus=\"__pwn('onfocus')\">"],
  ["video source onerror", "<video><source onerror=\"__pwn('source')\"></video>"],
  ["marquee onstart", "<marquee onstart=\"__pwn('marquee')\">m</marquee>"],
  ["javascript: link", "<a href=\"javascript:__pwn('js-link')\">click</a>"],
  ["javascript: mixed case", "<a href=\"JaVaScRiPt:__pwn('js-case')\">click</a>"],
  ["javascript: entity", "<a href=\"&#x6A;avascript:__pwn('js-entity')\">click</a>"],
  ["javascript: tab inside", "<a href=\"java&#9;script:__pwn('js-tab')\">click</a>"],
  ["javascript: leading space", "<a href=\" javascript:__pwn('js-space')\">click</a>"],
  ["javascript: new window", "<a href=\"javascript:__pwn('js-blank')\" target=\"_blank\">click</a>"],
  ["data: link", "<a href=\"data:text/html,<script>__pwn('data')</script>\">click</a>"],
  ["vbscript: link", "<a href=\"vbscript:msgbox(1)\">click</a>"],
  ["iframe javascript", "<iframe src=\"javascript:parent.__pwn('iframe')\"></iframe>"],
  ["iframe srcdoc", "<iframe srcdoc=\"<script>parent.__pwn('srcdoc')</script>\"></iframe>"],
  ["object data", "<object data=\"javascript:__pwn('object')\"></object>"],
  ["embed src", "<embed src=\"javascript:__pwn('embed')\">"],
  ["form formaction", "<form><button formaction=\"javascript:__pwn('formaction')\">b</button></form>"],
  ["meta refresh", "<meta http-equiv=\"refresh\" content=\"0;url=javascript:__pwn('meta')\">"],
  ["base href", "<base href=\"javascript:__pwn('base')//\"><a href=\"x\">rel</a>"],
  ["style import", "<style>@import 'javascript:__pwn(1)';</style><p>s</p>"],
  ["style attribute", "<p style=\"background:url(javascript:__pwn('style'))\">p</p>"],
  ["noscript mXSS", "<noscript><p title=\"</noscript><img src=x onerror=__pwn('noscript')>\"></p></noscript>"],
  ["math mtext mXSS", "<math><mtext><table><mglyph><style><img src=x onerror=__pwn('mglyph')></style></mglyph></table></mtext></math>"],
  ["svg foreignObject", "<svg><foreignObject><img src=x onerror=__pwn('foreign')></foreignObject></svg>"],
  ["xmp", "<xmp><img src=x onerror=__pwn('xmp')></xmp>"],
  ["template", "<template><img src=x onerror=__pwn('template')></template>"],
  ["textarea escape", "<textarea></textarea><img src=x onerror=__pwn('textarea')>"],
  ["title escape", "<title></title><img src=x onerror=__pwn('title')>"],
  ["DOM clobbering", "<img name=\"getElementById\"><form id=\"location\"></form><a id=\"__pwn\" href=\"#\">c</a><img name=\"cookie\">"],
  ["deep nesting", `${"<div>".repeat(10_000)}<img src=x onerror=__pwn('deep')>${"</div>".repeat(10_000)}`],
  ["huge attribute", `<p title="${"a".repeat(1_000_000)}" onclick="__pwn('huge')">huge</p>`],
  ["model output with fence", "Sure!\n```html\n<p>ok</p><img src=x onerror=__pwn('fenced')>\n```"]
]

const benign = `
<h2>Loops</h2>
<p class="text-center font-bold">Repeat <b>work</b> with <a href="https://example.com/docs" target="_blank">loops</a>.</p>
<ul class="list-disc ml-6"><li>for</li><li>while</li></ul>
<ol start="3"><li>three</li><li>four</li></ol>
<table class="table-auto w-full"><thead><tr><th>Loop</th><th>Use</th></tr></thead><tbody><tr><td>for</td><td>counts</td></tr></tbody></table>
<details><summary>Solution</summary><pre><code>for (let i = 0; i &lt; 3; i++) {}</code></pre></details>
<figure><img src="/images/loop.png" alt="A loop" width="320" height="200"><figcaption>A loop</figcaption></figure>
<blockquote>Repetition is the mother of learning.</blockquote>`

let browser: Browser | undefined

const open = async (html: string): Promise<Page> => {
  const page = await browser!.newPage()
  await page.addInitScript(() => {
    const w = window as unknown as { __pwned: Array<string>; __pwn: (id: string) => void; alert: (x: unknown) => void }
    w.__pwned = []
    w.__pwn = (id: string) => void w.__pwned.push(String(id))
    w.alert = (x: unknown) => void w.__pwned.push(`alert:${String(x)}`)
  })
  // Served from an http origin (intercepted, nothing leaves the machine), so the page has
  // cookies and storage like a real course page.
  await page.route("http://coursekit.test/**", (route) =>
    route.fulfill({
      contentType: "text/html; charset=utf-8",
      body: `<!doctype html><html><body><main id="content">${html}</main></body></html>`
    }))
  await page.goto("http://coursekit.test/course")
  return page
}

/** Clicks every link and button and focuses every element, then reports what ran. */
const exercise = async (page: Page) => {
  await page.evaluate(() => {
    for (const element of document.querySelectorAll("#content *")) {
      if (element instanceof HTMLElement) {
        element.focus()
        if (element.tagName === "A" || element.tagName === "BUTTON") element.click()
      }
    }
  })
  await page.waitForTimeout(200)
  return page.evaluate(() => {
    const pwned = (window as unknown as { __pwned: Array<string> }).__pwned
    const handlers: Array<string> = []
    const scriptUrls: Array<string> = []
    for (const element of document.querySelectorAll("#content *")) {
      for (const attribute of element.attributes) {
        if (/^on/i.test(attribute.name)) handlers.push(`${element.tagName}.${attribute.name}`)
        if (/^\s*(javascript|vbscript|data):/i.test(attribute.value)) scriptUrls.push(`${element.tagName}.${attribute.name}`)
      }
    }
    return {
      pwned,
      handlers,
      scriptUrls,
      scripts: document.querySelectorAll("#content script, #content iframe, #content object, #content embed").length,
      getElementById: typeof document.getElementById,
      cookie: typeof document.cookie
    }
  })
}

const available = existsSync(executablePath)

if (available || required) {
  describe("sanitized HTML in a real browser (chromium)", () => {
    beforeAll(async () => {
      browser = await chromium.launch({
        executablePath,
        args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"]
      })
    }, 60_000)
    afterAll(async () => {
      await browser?.close()
    })

    it("the payloads themselves do execute unsanitized (the harness can see an attack)", async () => {
      const page = await open("<img src=x onerror=\"__pwn('control')\"><a href=\"javascript:__pwn('control-link')\">c</a>")
      const result = await exercise(page)
      await page.close()
      expect(result.pwned).toContain("control")
      expect(result.pwned).toContain("control-link")
    })

    for (const [name, payload] of attacks) {
      it(`nothing executes: ${name}`, async () => {
        for (const cleaned of [sanitize(payload), sanitizeModel(payload)]) {
          const page = await open(cleaned)
          const result = await exercise(page)
          await page.close()
          expect(result.pwned, cleaned.slice(0, 300)).toEqual([])
          expect(result.handlers).toEqual([])
          expect(result.scriptUrls).toEqual([])
          expect(result.scripts).toBe(0)
          expect(result.getElementById).toBe("function")
          expect(result.cookie).toBe("string")
        }
      }, 30_000)
    }

    it("chromium reads the output back and serializes it byte for byte the same", async () => {
      const outputs = [
        sanitize(benign),
        sanitize("<p title='say \"hi\" &amp; <go>'>a &lt; b &amp;&amp; c&nbsp;d &gt; e</p><details open><summary>s</summary></details>"),
        ...attacks.flatMap(([, payload]) => [sanitize(payload), sanitizeModel(payload)]).filter((html) => html.length < 100_000)
      ]
      const page = await open("")
      const reserialized = await page.evaluate((htmls) =>
        htmls.map((html) => {
          const template = document.createElement("template")
          template.innerHTML = html
          return template.innerHTML
        }), outputs)
      await page.close()
      expect(reserialized).toEqual(outputs)
    })

    it("benign course HTML keeps its structure and allowed classes", async () => {
      const page = await open(sanitize(benign))
      const shape = await page.evaluate(() => {
        const root = document.querySelector("#content")!
        const count = (selector: string) => root.querySelectorAll(selector).length
        return {
          headings: count("h2"),
          items: count("ul > li") + count("ol > li"),
          cells: count("table td") + count("table th"),
          details: count("details > summary") + count("details pre > code"),
          link: root.querySelector("a")?.getAttribute("rel") ?? "",
          linkTarget: root.querySelector("a")?.getAttribute("href") ?? "",
          image: root.querySelector("figure > img")?.getAttribute("alt") ?? "",
          classes: root.querySelector("p")?.className ?? "",
          table: root.querySelector("table")?.className ?? "",
          start: root.querySelector("ol")?.getAttribute("start") ?? "",
          code: root.querySelector("code")?.textContent ?? ""
        }
      })
      await page.close()
      expect(shape).toEqual({
        headings: 1,
        items: 4,
        cells: 4,
        details: 2,
        link: "noopener noreferrer",
        linkTarget: "https://example.com/docs",
        image: "A loop",
        classes: "text-center font-bold",
        table: "table-auto w-full",
        start: "3",
        code: "for (let i = 0; i < 3; i++) {}"
      })
    })
  })
}
