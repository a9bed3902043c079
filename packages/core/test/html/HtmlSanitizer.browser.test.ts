/**
 * The sanitizer's output loaded into a real browser (Debian's chromium, driven by
 * playwright-core): attack vectors must not execute or keep a handler or script URL,
 * embed bypasses must leave no frame, an allowed embed must render with exactly the
 * forced attributes, and benign course HTML must keep its structure and allowed classes.
 * Nothing is fetched from the network: every request but the page's own is aborted.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { existsSync } from "node:fs"
import { type Browser, chromium, type Page } from "playwright-core"
import { HtmlSanitizer } from "../../src/index.ts"
import { benignCourseHtml } from "../../src/testing/index.ts"

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

// Embed bypasses: each must leave no iframe (and no fallback text) behind. Payloads that a
// browser would run report through __pwn like the attacks above.
const embedAttacks: ReadonlyArray<readonly [string, string]> = [
  ["look-alike host (longer)", "<iframe src=\"https://www.youtube.com.evil.example/embed/Abc\">fallback</iframe>"],
  ["host as a path", "<iframe src=\"https://evil.example/www.youtube.com/embed/Abc\">fallback</iframe>"],
  ["host as user info", "<iframe src=\"https://youtube.com@evil.example/embed/Abc\">fallback</iframe>"],
  ["user info on the allowed host", "<iframe src=\"https://user:pw@www.youtube.com/embed/Abc\">fallback</iframe>"],
  ["backslash before user info", "<iframe src=\"https://www.youtube.com\\@evil.example/embed/Abc\">fallback</iframe>"],
  ["backslash-relative URL (CVE-2021-26540)", "<iframe src=\"/\\evil.example/embed/Abc\">fallback</iframe>"],
  ["protocol-relative URL", "<iframe src=\"//www.youtube.com/embed/Abc\">fallback</iframe>"],
  ["Cyrillic look-alike (CVE-2021-26539)", "<iframe src=\"https://www.\u0443outube.com/embed/Abc\">fallback</iframe>"],
  ["look-alike in punycode", "<iframe src=\"https://www.xn--outube-vrf.com/embed/Abc\">fallback</iframe>"],
  ["full-width letters", "<iframe src=\"https://\uff57\uff57\uff57.youtube.com/embed/Abc\">fallback</iframe>"],
  ["trailing dot", "<iframe src=\"https://www.youtube.com./embed/Abc\">fallback</iframe>"],
  ["another port", "<iframe src=\"https://www.youtube.com:8443/embed/Abc\">fallback</iframe>"],
  ["http", "<iframe src=\"http://www.youtube.com/embed/Abc\">fallback</iframe>"],
  ["javascript:, mixed case", "<iframe src=\"JaVaScRiPt:parent.__pwn('iframe-case')\">fallback</iframe>"],
  ["javascript: with the player URL in a comment", "<iframe src=\"javascript:parent.__pwn('iframe-comment')//https://www.youtube.com/embed/Abc\">fallback</iframe>"],
  ["javascript: behind a tab reference", "<iframe src=\"java&#9;script:parent.__pwn('iframe-tab')\">fallback</iframe>"],
  ["data: URL", "<iframe src=\"data:text/html,<script>parent.__pwn('iframe-data')</script>\">fallback</iframe>"],
  ["srcdoc beside an allowed src", "<iframe srcdoc=\"<script>parent.__pwn('srcdoc-embed')</script>\" src=\"https://www.youtube.com/embed/Abc\">fallback</iframe>"],
  ["allowed player inside a link", "<a href=\"https://example.com/\"><iframe src=\"https://www.youtube.com/embed/Abc\">fallback</iframe></a>"],
  ["allowed player inside svg", "<svg><foreignObject><iframe src=\"https://www.youtube.com/embed/Abc\">fallback</iframe></foreignObject></svg>"],
  ["watch page instead of the player", "<iframe src=\"https://www.youtube.com/watch?v=Abc\">fallback</iframe>"],
  ["dot segments out of the embed path", "<iframe src=\"https://www.youtube.com/embed/Abc/../../redirect?url=evil\">fallback</iframe>"]
]

// The corpus's short lesson: its shape is checked below.
const benign = benignCourseHtml.loops

let browser: Browser | undefined

/**
 * A page showing `html`. Nothing leaves the machine: every request but the page's own is
 * aborted, and `csp` (if given) is sent with the page, e.g. to keep frames from loading.
 */
const open = async (html: string, csp?: string): Promise<Page> => {
  const page = await browser!.newPage()
  await page.route((url) => url.host !== "coursekit.test", (route) => route.abort())
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
      headers: csp === undefined ? {} : { "content-security-policy": csp },
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

    it("an unsanitized srcdoc frame does execute (the harness can see a frame attack)", async () => {
      const page = await open("<iframe srcdoc=\"<script>parent.__pwn('srcdoc-control')</script>\"></iframe>")
      await page.waitForFunction(() => (window as unknown as { __pwned: Array<string> }).__pwned.length > 0, undefined, { timeout: 5_000 })
      const result = await exercise(page)
      await page.close()
      expect(result.pwned).toContain("srcdoc-control")
    })

    for (const [name, payload] of embedAttacks) {
      it(`no frame survives: ${name}`, async () => {
        for (const cleaned of [sanitize(payload), sanitizeModel(payload)]) {
          const page = await open(cleaned)
          const result = await exercise(page)
          const left = await page.evaluate(() => ({
            frames: document.querySelectorAll("#content iframe, #content frame, #content object, #content embed").length,
            text: document.querySelector("#content")!.textContent
          }))
          await page.close()
          expect(result.pwned, cleaned).toEqual([])
          expect(result.handlers).toEqual([])
          expect(result.scriptUrls).toEqual([])
          expect(left).toEqual({ frames: 0, text: "" })
        }
      }, 30_000)
    }

    it("an allowed embed renders an iframe with exactly the attributes the sanitizer forces", async () => {
      const cleaned = sanitize(
        "<p>Watch <iframe src=\"https://www.youtube.com/embed/dQw4w9WgXcQ?start=30&si=track#t=1\" width=\"560\" style=\"position:fixed\" " +
          "sandbox=\"allow-top-navigation allow-forms\" allow=\"camera; autoplay\" referrerpolicy=\"unsafe-url\" loading=\"eager\" " +
          "onload=\"__pwn('embed-onload')\" name=\"getElementById\">fallback</iframe> and " +
          "<iframe src=\"https://player.vimeo.com/video/76979871?h=8272103f6e&autoplay=1\"></iframe></p>"
      )
      // The players must not load (no network in tests): the page's CSP blocks every frame.
      const page = await open(cleaned, "frame-src 'none'")
      const result = await exercise(page)
      const frames = await page.evaluate(() =>
        [...document.querySelectorAll("#content iframe")].map((frame) => {
          const iframe = frame as HTMLIFrameElement
          return {
            attributes: iframe.getAttributeNames().map((name) => [name, iframe.getAttribute(name)]),
            sandbox: [...iframe.sandbox],
            allow: iframe.allow,
            allowFullscreen: iframe.allowFullscreen,
            referrerPolicy: iframe.referrerPolicy,
            loading: iframe.loading,
            host: new URL(iframe.src).host,
            children: iframe.childNodes.length,
            parent: iframe.parentElement!.tagName
          }
        })
      )
      await page.close()
      expect(result.pwned).toEqual([])
      expect(result.handlers).toEqual([])
      const sandbox = ["allow-scripts", "allow-same-origin", "allow-popups", "allow-popups-to-escape-sandbox"]
      const forced = (src: string) => [
        ["src", src],
        ["sandbox", sandbox.join(" ")],
        ["allow", "encrypted-media; fullscreen; picture-in-picture"],
        ["allowfullscreen", ""],
        ["referrerpolicy", "strict-origin-when-cross-origin"],
        ["loading", "lazy"]
      ]
      const common = {
        sandbox,
        allow: "encrypted-media; fullscreen; picture-in-picture",
        allowFullscreen: true,
        referrerPolicy: "strict-origin-when-cross-origin",
        loading: "lazy",
        children: 0,
        parent: "P"
      }
      expect(frames).toEqual([
        { ...common, attributes: forced("https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ?start=30"), host: "www.youtube-nocookie.com" },
        { ...common, attributes: forced("https://player.vimeo.com/video/76979871?h=8272103f6e"), host: "player.vimeo.com" }
      ])
    })

    it("chromium reads the output back and serializes it byte for byte the same", async () => {
      const outputs = [
        ...Object.values(benignCourseHtml).map(sanitize),
        sanitize("<p>a <iframe src=\"https://youtube.com/embed/Abc?start=1&end=2\">x</iframe> b</p><iframe src=\"https://player.vimeo.com/video/1\"></iframe>"),
        ...embedAttacks.map(([, payload]) => sanitize(payload)),
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
