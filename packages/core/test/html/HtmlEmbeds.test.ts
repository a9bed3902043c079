import { assert, describe, it } from "@effect/vitest"
import { Cause, Effect, Exit } from "effect"
import { defaultAllowList, type HtmlAllowList, HtmlSanitizer, makeEmbedAttributes, mergeAllowLists, toSanitizeSchema } from "../../src/index.ts"

const sanitizerWith = (allowList: HtmlAllowList) =>
  Effect.runSync(Effect.provide(
    Effect.gen(function*() {
      return yield* HtmlSanitizer
    }),
    HtmlSanitizer.layerWith(allowList)
  ))
const sanitizer = sanitizerWith(defaultAllowList)
const authored = (html: string) => Effect.runSync(sanitizer.sanitizeAuthored(html))
const model = (html: string) => Effect.runSync(sanitizer.sanitizeModelOutput(html))

const player = "sandbox=\"allow-scripts allow-same-origin allow-popups allow-popups-to-escape-sandbox\" " +
  "allow=\"encrypted-media; fullscreen; picture-in-picture\" allowfullscreen=\"\" " +
  "referrerpolicy=\"strict-origin-when-cross-origin\" loading=\"lazy\""
const embed = (src: string) => `<iframe src="${src}" ${player}></iframe>`
const youtube = (id: string, query = "") => embed(`https://www.youtube-nocookie.com/embed/${id}${query}`)

/** `html` sanitizes to `expected` by both entry points, and `expected` to itself. */
const assertSanitizes = (html: string, expected: string) => {
  assert.strictEqual(authored(html), expected, html)
  assert.strictEqual(model(html), expected, html)
  assert.strictEqual(authored(expected), expected)
  assert.strictEqual(model(expected), expected)
}

describe("embeds: allowed players", () => {
  it.each<[string, string, string]>([
    ["YouTube, rewritten to the no-cookie host", "https://www.youtube.com/embed/dQw4w9WgXcQ", youtube("dQw4w9WgXcQ")],
    ["youtube.com", "https://youtube.com/embed/dQw4w9WgXcQ", youtube("dQw4w9WgXcQ")],
    ["the no-cookie host itself", "https://www.youtube-nocookie.com/embed/a_b-C", youtube("a_b-C")],
    ["youtube-nocookie.com", "https://youtube-nocookie.com/embed/a_b-C", youtube("a_b-C")],
    ["an upper-case scheme and host (the URL parser lower-cases both)", "HTTPS://WWW.YouTube.COM/embed/Abc", youtube("Abc")],
    ["the default port, written out", "https://www.youtube.com:443/embed/Abc", youtube("Abc")],
    ["start and end kept; other parameters and the fragment dropped", "https://www.youtube.com/embed/Abc?si=track&start=30&autoplay=1&end=90#t=5", youtube("Abc", "?start=30&amp;end=90")],
    ["a parameter whose value does not match is dropped", "https://www.youtube.com/embed/Abc?start=30s&end=9", youtube("Abc", "?end=9")],
    ["only the first of a repeated parameter", "https://www.youtube.com/embed/Abc?start=1&start=2", youtube("Abc", "?start=1")],
    ["Vimeo's player, with the hash unlisted videos need", "https://player.vimeo.com/video/76979871?h=8272103f6e&autoplay=1", embed("https://player.vimeo.com/video/76979871?h=8272103f6e")],
    ["a character reference in the scheme (the HTML parser decodes it first)", "https&#58;//www.youtube.com/embed/Abc", youtube("Abc")]
  ])("%s", (_name, src, expected) => {
    assertSanitizes(`<iframe src="${src}"></iframe>`, expected)
  })

  it("the sanitizer writes the element afresh: the author's attributes and fallback content go", () => {
    assertSanitizes(
      "<iframe src=\"https://www.youtube.com/embed/Abc\" sandbox=\"allow-top-navigation allow-forms\" allow=\"camera; microphone; autoplay\" " +
        "allowfullscreen style=\"position:fixed\" onload=\"alert(1)\" class=\"w-full\" id=\"x\" name=\"getElementById\" width=\"560\" " +
        "referrerpolicy=\"unsafe-url\" loading=\"eager\" credentialless csp=\"x\">Your browser <b>cannot</b> show this.</iframe>",
      youtube("Abc")
    )
  })

  it("an embed stays where it is: in a paragraph, list, table cell, details, figure", () => {
    const frame = "<iframe src=\"https://youtube.com/embed/Abc\"></iframe>"
    assertSanitizes(`<p>Watch ${frame} first.</p>`, `<p>Watch ${youtube("Abc")} first.</p>`)
    assertSanitizes(`<ul><li>${frame}</li></ul>`, `<ul><li>${youtube("Abc")}</li></ul>`)
    assertSanitizes(`<table><tr><td>${frame}</td></tr></table>`, `<table><tbody><tr><td>${youtube("Abc")}</td></tr></tbody></table>`)
    assertSanitizes(`<details><summary>Video</summary>${frame}</details>`, `<details><summary>Video</summary>${youtube("Abc")}</details>`)
    assertSanitizes(`<figure>${frame}<figcaption>Loops</figcaption></figure>`, `<figure>${youtube("Abc")}<figcaption>Loops</figcaption></figure>`)
    assertSanitizes(`<center>${frame}</center>`, youtube("Abc"))
  })

  it("nested iframes: the inner one is the outer one's fallback text, and goes with it", () => {
    assertSanitizes(
      "<p><iframe src=\"https://youtube.com/embed/Abc\"><iframe src=\"https://evil.example/\"></iframe></iframe>after</p>",
      `<p>${youtube("Abc")}after</p>`
    )
  })
})

// Each class of bypass sanitize-html's allowedIframeHostnames had (CVE-2021-26539: IDN;
// CVE-2021-26540: backslash and relative URLs) and the other ways to name a second host.
const refused: ReadonlyArray<readonly [string, string]> = [
  ["a longer host ending elsewhere", "https://www.youtube.com.evil.example/embed/Abc"],
  ["the host as a path", "https://evil.example/www.youtube.com/embed/Abc"],
  ["the host as user info", "https://youtube.com@evil.example/embed/Abc"],
  ["the host as user and password", "https://www.youtube.com:443@evil.example/embed/Abc"],
  ["user info on the allowed host", "https://user:pw@www.youtube.com/embed/Abc"],
  ["a percent-encoded dot joining another host", "https://www.youtube.com%2eevil.example/embed/Abc"],
  ["a backslash before user info", "https://www.youtube.com\\@evil.example/embed/Abc"],
  ["backslashes for slashes", "https:\\\\www.youtube.com\\embed\\Abc"],
  ["a backslash-relative URL (CVE-2021-26540)", "/\\evil.example/embed/Abc"],
  ["a protocol-relative URL", "//www.youtube.com/embed/Abc"],
  ["a relative URL", "/embed/Abc"],
  ["a path-relative URL", "embed/Abc"],
  ["a Cyrillic look-alike (CVE-2021-26539)", "https://www.\u0443outube.com/embed/Abc"],
  ["a look-alike already in punycode", "https://www.xn--outube-vrf.com/embed/Abc"],
  ["full-width letters", "https://\uff57\uff57\uff57.youtube.com/embed/Abc"],
  ["an ideographic full stop", "https://www\u3002youtube\u3002com/embed/Abc"],
  ["a trailing dot", "https://www.youtube.com./embed/Abc"],
  ["a similar host", "https://www.youtube.co/embed/Abc"],
  ["a subdomain of an allowed host", "https://evil.www.youtube.com/embed/Abc"],
  ["http", "http://www.youtube.com/embed/Abc"],
  ["HTTP in capitals", "HTTP://www.youtube.com/embed/Abc"],
  ["https without slashes", "https:www.youtube.com/embed/Abc"],
  ["https with one slash", "https:/www.youtube.com/embed/Abc"],
  ["javascript:", "javascript:parent.alert(1)"],
  ["JaVaScRiPt: with the host in a comment", "JaVaScRiPt:alert(1)//https://www.youtube.com/embed/Abc"],
  ["data:", "data:text/html,<script>alert(1)</script>"],
  ["another port", "https://www.youtube.com:8443/embed/Abc"],
  ["a leading space", " https://www.youtube.com/embed/Abc"],
  ["a tab in the scheme, as a character reference", "ht&#9;tps://www.youtube.com/embed/Abc"],
  ["a newline in the host, as a character reference", "https://www.you&#10;tube.com/embed/Abc"],
  ["a NUL, as a character reference", "https://www.youtube.com&#0;.evil.example/embed/Abc"],
  ["a backslash, as a character reference", "https://www.youtube.com&#92;@evil.example/embed/Abc"],
  ["a non-breaking space", "https://www.youtube.com/embed/Abc&nbsp;"],
  ["a watch page, not the player", "https://www.youtube.com/watch?v=Abc"],
  ["an empty video id", "https://www.youtube.com/embed/"],
  ["an id with a slash", "https://www.youtube.com/embed/Abc/def"],
  ["an id with an encoded slash", "https://www.youtube.com/embed/Abc%2fdef"],
  ["dot segments leaving the embed path", "https://www.youtube.com/embed/Abc/../../redirect"],
  ["an id of 65 characters", `https://www.youtube.com/embed/${"a".repeat(65)}`],
  ["a Vimeo path that is not a number", "https://player.vimeo.com/video/abc"],
  ["Vimeo's site instead of its player", "https://vimeo.com/video/76979871"],
  ["a 3 KB URL", `https://www.youtube.com/embed/Abc?x=${"a".repeat(3000)}`]
]

describe("embeds: refused iframes are dropped with their content", () => {
  it.each(refused)("%s", (_name, src) => {
    assertSanitizes(`<p>a<iframe src="${src}">fallback <b>text</b></iframe>b</p>`, "<p>ab</p>")
  })

  it.each<[string, string]>([
    ["srcdoc beside an allowed src", "<iframe srcdoc=\"<script>alert(1)</script>\" src=\"https://www.youtube.com/embed/Abc\"></iframe>"],
    ["an empty srcdoc", "<iframe srcdoc src=\"https://www.youtube.com/embed/Abc\"></iframe>"],
    ["no src", "<iframe>fallback</iframe>"],
    ["an empty src", "<iframe src=\"\">fallback</iframe>"],
    ["an allowed player inside a link", "<a href=\"https://example.com/\"><iframe src=\"https://www.youtube.com/embed/Abc\"></iframe></a>"],
    ["inside svg", "<svg><foreignObject><iframe src=\"https://www.youtube.com/embed/Abc\"></iframe></foreignObject></svg>"],
    ["inside math", "<math><mtext><iframe src=\"https://www.youtube.com/embed/Abc\"></iframe></mtext></math>"],
    ["inside template", "<template><iframe src=\"https://www.youtube.com/embed/Abc\"></iframe></template>"],
    ["inside noscript", "<noscript><iframe src=\"https://www.youtube.com/embed/Abc\"></iframe></noscript>"],
    ["inside object", "<object><iframe src=\"https://www.youtube.com/embed/Abc\"></iframe></object>"],
    ["frame and frameset", "<frameset><frame src=\"https://www.youtube.com/embed/Abc\"></frameset>"],
    ["embed and object with a player URL", "<embed src=\"https://www.youtube.com/embed/Abc\"><object data=\"https://www.youtube.com/embed/Abc\"></object>"]
  ])("%s", (_name, html) => {
    assertSanitizes(html, "")
  })
})

describe("makeEmbedAttributes: the player an editor writes", () => {
  const attributesOf = makeEmbedAttributes(defaultAllowList.embeds)
  /** An iframe with `attributes`, written as the sanitizer writes attribute values. */
  const written = (attributes: Readonly<Record<string, string>>) =>
    `<iframe ${Object.entries(attributes).map(([name, value]) => `${name}="${value.replaceAll("&", "&amp;")}"`).join(" ")}></iframe>`

  it.each<[string]>([
    ["https://www.youtube.com/embed/dQw4w9WgXcQ"],
    ["HTTPS://WWW.YouTube.COM/embed/Abc?si=track&start=30&autoplay=1&end=90#t=5"],
    ["https://www.youtube-nocookie.com/embed/a_b-C"],
    ["https://player.vimeo.com/video/76979871?h=8272103f6e&autoplay=1"]
  ])("%s: exactly the attributes, in the order, the sanitizer writes", (src) => {
    const attributes = attributesOf(src)
    assert.isDefined(attributes)
    assert.strictEqual(written(attributes!), authored(`<iframe src="${src.replaceAll("&", "&amp;")}" width="560"></iframe>`))
  })

  it.each(refused)("%s: none, as the sanitizer drops it", (_name, src) => {
    // The sanitizer reads character references in the source first; these are the values it judges.
    const decoded = src.replaceAll("&#9;", "\t").replaceAll("&#10;", "\n").replaceAll("&#0;", "\ufffd").replaceAll("&#92;", "\\").replaceAll("&nbsp;", "\u00a0")
    assert.isUndefined(attributesOf(decoded))
  })
})

describe("embeds: the providers are data", () => {
  const lessons = {
    reason: "Our own lesson videos.",
    hosts: ["Videos.Example.ORG"],
    path: /\/player\/[a-z0-9]+/g,
    query: { t: /[0-9]+/ },
    sandbox: ["allow-scripts"],
    allow: ["picture-in-picture"]
  }

  it("mergeAllowLists adds a provider (hosts normalized, patterns matched in whole, no fullscreen without it in allow)", () => {
    const extended = sanitizerWith(mergeAllowLists(defaultAllowList, { embeds: { lessons } }))
    const run = (html: string) => Effect.runSync(extended.sanitizeAuthored(html))
    const expected = "<iframe src=\"https://videos.example.org/player/intro?t=12\" sandbox=\"allow-scripts\" allow=\"picture-in-picture\" " +
      "referrerpolicy=\"strict-origin-when-cross-origin\" loading=\"lazy\"></iframe>"
    // Twice: a /g pattern's lastIndex must not carry over from one document to the next.
    for (let round = 0; round < 2; round++) {
      assert.strictEqual(run("<iframe src=\"https://videos.example.org/player/intro?t=12&u=1\"></iframe>"), expected)
    }
    assert.strictEqual(run(expected), expected)
    assert.strictEqual(run("<iframe src=\"https://videos.example.org/x/player/intro\"></iframe>"), "")
    assert.strictEqual(run("<iframe src=\"https://videos.example.org/player/intro/more\"></iframe>"), "")
    assert.strictEqual(run("<iframe src=\"https://videos.example.org/player/intro?t=12x\"></iframe>"), expected.replace("?t=12", ""))
    assert.strictEqual(run("<iframe src=\"https://www.youtube.com/embed/Abc\"></iframe>"), youtube("Abc"))
  })

  it("mergeAllowLists removes a default provider by setting it to null", () => {
    const allowList = mergeAllowLists(defaultAllowList, { embeds: { youtube: null } })
    assert.deepStrictEqual(Object.keys(allowList.embeds), ["vimeo"])
    const withoutYouTube = sanitizerWith(allowList)
    const run = (html: string) => Effect.runSync(withoutYouTube.sanitizeAuthored(html))
    assert.strictEqual(run("<iframe src=\"https://www.youtube.com/embed/Abc\"></iframe>"), "")
    assert.strictEqual(run("<iframe src=\"https://www.youtube-nocookie.com/embed/Abc\">x</iframe>"), "")
    assert.strictEqual(run("<iframe src=\"https://player.vimeo.com/video/1\"></iframe>"), embed("https://player.vimeo.com/video/1"))
  })

  it("with no provider, every iframe is dropped, even one that tags lists", () => {
    const none = mergeAllowLists(defaultAllowList, { embeds: { youtube: null, vimeo: null }, tags: { iframe: "Listed by mistake." } })
    assert.notInclude(toSanitizeSchema(none).tagNames ?? [], "iframe")
    assert.include(toSanitizeSchema(none).strip ?? [], "iframe")
    const run = (html: string) => Effect.runSync(sanitizerWith(none).sanitizeAuthored(html))
    assert.strictEqual(run("<p>a<iframe src=\"https://www.youtube.com/embed/Abc\">fallback</iframe>b</p>"), "<p>ab</p>")
    assert.strictEqual(run("<p>a<iframe src=\"https://evil.example/\">fallback</iframe>b</p>"), "<p>ab</p>")
  })

  it.each<[string, string]>([
    ["a host with a path", "videos.example.org/x"],
    ["a host with a port", "videos.example.org:8443"],
    ["a host with user info", "me@videos.example.org"],
    ["a trailing dot", "videos.example.org."],
    ["an empty host", ""]
  ])("a provider naming %s is a defect when the sanitizer is built", (_name, host) => {
    const allowList = mergeAllowLists(defaultAllowList, { embeds: { lessons: { ...lessons, hosts: [host] } } })
    const exit = Effect.runSyncExit(Effect.provide(Effect.void, HtmlSanitizer.layerWith(allowList)))
    assert.isTrue(Exit.isFailure(exit))
    if (Exit.isFailure(exit)) assert.include(Cause.pretty(exit.cause), "is not a host name")
  })
})

describe("SVG and MathML stay dropped with their content", () => {
  it("even with embeds configured", () => {
    assertSanitizes("<svg><text>t</text><iframe src=\"https://youtube.com/embed/Abc\"></iframe></svg><math><mi>x</mi></math><p>kept</p>", "<p>kept</p>")
  })
})
