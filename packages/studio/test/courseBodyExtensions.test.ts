/**
 * The Studio's rich-text editor keeps what the sanitizer keeps (issue #34). Over the
 * sanitizer's benign corpus, a stored body opened in the editor and saved unchanged is
 * the stored body again, once sanitized by the server's sanitizer (and even before); the
 * editor's HTML of hostile input holds nothing the sanitizer's allow-list stage would
 * remove; and the few things the editor writes differently are pinned here with why.
 */
import "./jsdomGlobals.ts"
import {
  defaultAllowList,
  HtmlSanitizer,
  mergeAllowLists,
  rehypeEnforceAllowList,
  rehypeParseFragment,
  rehypeSerializeHtml
} from "@coursekit/core"
import { benignCourseHtml } from "@coursekit/core/testing"
import { Editor } from "@tiptap/core"
import { DOMParser } from "@tiptap/pm/model"
import { Effect } from "effect"
import { unified } from "unified"
import { describe, expect, it } from "vitest"
import { courseBodyExtensions, roundTrip } from "../src/features/editor/courseBodyExtensions.ts"

// The sanitizer the API runs on every stored body (in process here; the server runs the same pipelines in workers).
const sanitizer = Effect.runSync(Effect.provide(
  Effect.gen(function*() {
    return yield* HtmlSanitizer
  }),
  HtmlSanitizer.layer
))
const sanitize = (html: string) => Effect.runSync(sanitizer.sanitizeAuthored(html))

/** The sanitizer's allow-list stage alone: what it would remove, without the structure pass's tidying. */
const allowListStage = unified().use(rehypeParseFragment).use(rehypeEnforceAllowList(defaultAllowList)).use(rehypeSerializeHtml).freeze()
const enforceAllowList = (html: string) => String(allowListStage.processSync(html))

const player = "sandbox=\"allow-scripts allow-same-origin allow-popups allow-popups-to-escape-sandbox\" " +
  "allow=\"encrypted-media; fullscreen; picture-in-picture\" allowfullscreen=\"\" " +
  "referrerpolicy=\"strict-origin-when-cross-origin\" loading=\"lazy\""

describe("opening and saving a stored body unchanged changes nothing (the benign corpus)", () => {
  for (const [name, document] of Object.entries(benignCourseHtml)) {
    it(`${name}: the editor's HTML, sanitized, is the stored body; it is the stored body even before`, () => {
      const stored = sanitize(document)
      const saved = roundTrip(stored)
      expect(sanitize(saved)).toBe(stored)
      expect(saved).toBe(stored)
    })
  }

  it("a mounted editor (the view, its node views) writes the same, and injects no <style>", () => {
    for (const document of Object.values(benignCourseHtml)) {
      const stored = sanitize(document)
      const element = window.document.createElement("div")
      window.document.body.append(element)
      // No <style> element: the Studio's CSP refuses inline styles (editor.css has the rules).
      const editor = new Editor({ element, extensions: courseBodyExtensions(), content: stored, injectCSS: false })
      expect(editor.getHTML()).toBe(stored)
      expect(window.document.querySelectorAll("style")).toHaveLength(0)
      editor.destroy()
      element.remove()
    }
  })
})

describe("the editor never offers what the sanitizer removes", () => {
  it.each<[string, string, string]>([
    ["a script, with its content", "<p>a<script>alert(1)</script>b</p>", "<p>ab</p>"],
    ["a style element", "<style>p { color: red }</style><p>k</p>", "<p>k</p>"],
    ["handlers, styles, ids and classes not listed", "<p onclick=\"alert(1)\" style=\"color:red\" id=\"x\" class=\"text-center evil\">x</p>", "<p class=\"text-center\">x</p>"],
    ["formatting written as styles", "<p style=\"font-weight:bold\">x <span style=\"font-style:italic\">y</span></p>", "<p>x y</p>"],
    ["data attributes", "<div id=\"x\" data-x=\"1\">d</div>", "<div>d</div>"],
    ["unlisted tags (their text stays)", "<p><del>x</del> <font color=\"red\">y</font> <marquee>z</marquee></p>", "<p>x y z</p>"],
    ["an image's handler", "<img src=x onerror=alert(1)>", "<img src=\"x\">"],
    ["a data: image", "<img src=\"data:image/png;base64,AAAA\" alt=\"d\">", "<img alt=\"d\">"],
    ["javascript: links (the link stays, without its URL, as the sanitizer keeps it)", "<p><a href=\"javascript:alert(1)\">x</a> <a href=\" JaVaScRiPt:alert(1)\">y</a></p>", "<p><a>x</a> <a>y</a></p>"],
    ["a target but _blank, rel tokens not listed", "<p><a href=\"https://ok.example\" target=\"_self\" rel=\"opener nofollow\">x</a></p>", "<p><a href=\"https://ok.example\" rel=\"nofollow\">x</a></p>"],
    ["a new window's rel, replaced", "<p><a href=\"/x\" target=\"_blank\" rel=\"nofollow\">x</a></p>", "<p><a href=\"/x\" target=\"_blank\" rel=\"noopener noreferrer\">x</a></p>"],
    ["an iframe of another host, with its fallback", "<iframe src=\"https://evil.example/embed/x\">fallback</iframe><p>k</p>", "<p>k</p>"],
    ["a look-alike host", "<p>a<iframe src=\"https://www.youtube.com.evil.example/embed/Abc\">f</iframe>b</p>", "<p>ab</p>"],
    ["a player beside a srcdoc", "<p>a<iframe srcdoc=\"<script>parent.alert(1)</script>\" src=\"https://www.youtube.com/embed/Abc\">f</iframe>b</p>", "<p>ab</p>"],
    ["a player inside a link", "<p><a href=\"https://e.example/\">a<iframe src=\"https://www.youtube.com/embed/Abc\"></iframe></a></p>", "<p><a href=\"https://e.example/\">a</a></p>"],
    ["a player inside svg", "<svg><foreignObject><iframe src=\"https://www.youtube.com/embed/Abc\"></iframe></foreignObject></svg><p>kept</p>", "<p>kept</p>"],
    [
      "a player's own attributes and parameters (written as the sanitizer writes a player)",
      "<iframe src=\"https://www.youtube.com/embed/Abc?autoplay=1&amp;start=5\" width=\"560\" style=\"position:fixed\" sandbox=\"allow-top-navigation\" onload=\"alert(1)\"></iframe>",
      `<iframe src="https://www.youtube-nocookie.com/embed/Abc?start=5" ${player}></iframe>`
    ],
    ["a form", "<form><input value=\"x\"><button>go</button></form><p>k</p>", "<p>k</p>"],
    ["a cell's style", "<table><tr><td style=\"width:10px\" colspan=\"2\">x</td></tr></table>", "<table><tbody><tr><td colspan=\"2\">x</td></tr></tbody></table>"],
    ["a toggle handler", "<details open ontoggle=\"alert(1)\"><summary>s</summary>d</details>", "<details open=\"\"><summary>s</summary>d</details>"],
    ["a summary outside details (the sanitizer unwraps it)", "<p>a</p><summary>s</summary>", "<p>a</p><p>s</p>"],
    ["a caption outside a figure (the sanitizer unwraps it)", "<p>a</p><figcaption>c</figcaption>", "<p>a</p><p>c</p>"]
  ])("%s", (_name, input, expected) => {
    const saved = roundTrip(input)
    expect(saved).toBe(expected)
    // The allow-list stage alone removes nothing of it.
    expect(enforceAllowList(saved)).toBe(saved)
  })
})

describe("what the editor writes otherwise (none of it in the corpus)", () => {
  it.each<[string, string, string]>([
    // ProseMirror's document holds blocks; only containers take implicit paragraphs (a new document starts with a paragraph).
    ["loose inline content at the top level gets a paragraph", "Hello <b>world</b>", "<p>Hello <b>world</b></p>"],
    // Marks are a set in ProseMirror, written in the schema's order (Marks.ts).
    ["marks nest in one order", "<p><em><strong>x</strong> y</em></p>", "<p><strong><em>x</em></strong><em> y</em></p>"],
    // Tiptap's numbered list has start 1 by default and writes it only otherwise.
    ["start=\"1\" is not written", "<ol start=\"1\"><li>a</li></ol>", "<ol><li>a</li></ol>"],
    // ProseMirror collapses spaces outside preformatted blocks; the sanitizer keeps them in code.
    ["spaces in inline code collapse", "<p><code>a  b</code></p>", "<p><code>a b</code></p>"],
    // A code block holds text only.
    ["marks inside preformatted text go", "<pre><code>a <b>b</b></code></pre>", "<pre><code>a b</code></pre>"],
    // Attributes are node attributes: written in the allow-list's order, class first.
    ["attributes in the allow-list's order", "<p><img alt=\"a\" src=\"/x.png\" class=\"w-full\"></p>", "<p><img class=\"w-full\" src=\"/x.png\" alt=\"a\"></p>"]
  ])("%s", (_name, input, expected) => {
    const saved = roundTrip(input)
    expect(saved).toBe(expected)
    // What it writes is stored as it is: the next save changes nothing.
    expect(sanitize(saved)).toBe(saved)
    expect(roundTrip(saved)).toBe(saved)
  })

  it("an empty document is an empty paragraph, which the sanitizer stores as nothing", () => {
    expect(roundTrip("")).toBe("<p></p>")
    expect(sanitize(roundTrip(""))).toBe("")
  })
})

describe("the schema is read from the allow-list", () => {
  const schema = new Editor({ element: null, extensions: courseBodyExtensions(), injectCSS: false }).schema
  const rules = DOMParser.fromSchema(schema).rules.filter((rule) => "tag" in rule)

  it("every tag of the allow-list, and the players, are read; every element dropped with its content is skipped", () => {
    const read = new Set(rules.filter((rule) => rule.ignore !== true).map((rule) => rule.tag))
    expect(Object.keys(defaultAllowList.tags).filter((tag) => !read.has(tag))).toEqual([])
    expect(read.has("iframe")).toBe(true)
    const skipped = new Set(rules.filter((rule) => rule.ignore === true).map((rule) => rule.tag))
    expect(defaultAllowList.dropWithContent.filter((tag) => !skipped.has(tag))).toEqual([])
  })

  it("classes and players follow the allow-list given (an extended one keeps more)", () => {
    const extended = mergeAllowLists(defaultAllowList, {
      classes: { "text-red-600": "Warnings." },
      embeds: {
        lessons: { reason: "Our videos.", hosts: ["videos.example.org"], path: /\/player\/[a-z]+/, query: {}, sandbox: ["allow-scripts"], allow: [] }
      }
    })
    const html = "<p class=\"text-red-600 text-lg\">w</p><iframe src=\"https://videos.example.org/player/intro\"></iframe>"
    expect(roundTrip(html)).toBe("<p class=\"text-lg\">w</p>")
    expect(roundTrip(html, extended)).toBe(
      "<p class=\"text-red-600 text-lg\">w</p>" +
        "<iframe src=\"https://videos.example.org/player/intro\" sandbox=\"allow-scripts\" allow=\"\" referrerpolicy=\"strict-origin-when-cross-origin\" loading=\"lazy\"></iframe>"
    )
  })
})

describe("editing keeps HTML's shapes", () => {
  // Mounted: a headless editor runs no plugins.
  const editorWith = (content: string) =>
    new Editor({ element: window.document.createElement("div"), extensions: courseBodyExtensions(), content, injectCSS: false })

  it("a new document is made of paragraphs", () => {
    const editor = editorWith("")
    editor.chain().insertContent("Hello").splitBlock().insertContent("world").run()
    expect(editor.getHTML()).toBe("<p>Hello</p><p>world</p>")
  })

  it("a new item of a tight list is tight", () => {
    const editor = editorWith("<ul><li>for</li><li>while</li></ul>")
    // After "for".
    editor.chain().setTextSelection(6).splitListItem("listItem").insertContent("do").run()
    expect(editor.getHTML()).toBe("<ul><li>for</li><li>do</li><li>while</li></ul>")
  })

  it("a link set over a player leaves the player out (the sanitizer drops one inside a link)", () => {
    const editor = editorWith("<p>a<iframe src=\"https://www.youtube.com/embed/Abc\"></iframe>b</p>")
    editor.chain().selectAll().setLink({ href: "https://example.com/" }).run()
    const saved = editor.getHTML()
    expect(saved).toBe(`<p><a href="https://example.com/">a</a><iframe src="https://www.youtube-nocookie.com/embed/Abc" ${player}></iframe><a href="https://example.com/">b</a></p>`)
    expect(sanitize(saved)).toBe(saved)
  })

  it("a link is set only to a URL the sanitizer keeps; a class only if it is allowed", () => {
    const editor = editorWith("<p>a</p>")
    editor.chain().selectAll().setLink({ href: "javascript:alert(1)" }).run()
    expect(editor.getHTML()).toBe("<p>a</p>")
    editor.chain().selectAll().setLink({ href: "https://example.com/" }).setMark("span", { class: "text-lg evil" }).run()
    expect(editor.getHTML()).toBe("<p><a href=\"https://example.com/\"><span class=\"text-lg\">a</span></a></p>")
  })
})
