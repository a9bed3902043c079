import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import type { Root } from "hast"
import { fromParse5 } from "hast-util-from-parse5"
import { sanitize } from "hast-util-sanitize"
import { toHtml } from "hast-util-to-html"
import { parseFragment } from "parse5"
import { unified } from "unified"
import {
  defaultAllowList,
  mergeAllowLists,
  rehypeEnforceAllowList,
  rehypeParseFragment,
  rehypeSerializeHtml,
  serializeHtml,
  toSanitizeSchema
} from "../../src/index.ts"

const parse = (html: string) => unified().use(rehypeParseFragment).parse(html) as Root
const reference = (html: string) => fromParse5(parseFragment(html)) as Root

// Documents with every kind of attribute value hast distinguishes (boolean, overloaded
// boolean, number, space- and comma-separated lists, data-*, aria-*, prefixed), foreign
// content, templates, comments and text that needs escaping.
const attribute = fc.constantFrom(
  "class=\" a  b \"",
  "hidden",
  "hidden=\"HIDDEN\"",
  "download",
  "download=\"file.txt\"",
  "maxlength=\"5\"",
  "maxlength=\"x\"",
  "tabindex=\"-1\"",
  "headers=\"a b\"",
  "accept=\"image/png, image/jpeg\"",
  "coords=\"1,2,3\"",
  "srcset=\"a.png 1x, b.png 2x\"",
  "data-user-id=\"7\"",
  "aria-hidden=\"true\"",
  "xlink:href=\"#x\"",
  "viewBox=\"0 0 1 1\"",
  "title='say \"hi\" &amp; <go>'",
  "open",
  "constructor=\"x\"",
  "onclick=\"a&lt;b\"",
  "class=\"text-center font-bold evil\"",
  "class=\"evil\"",
  "target=\"_blank\"",
  "target=\"_self\"",
  "rel=\"nofollow opener\"",
  "style=\"x\"",
  "id=\"location\"",
  "start=\"3\"",
  "data-x=\"1\"",
  ...["javascript:alert(1)", " java\tscript:x", "JAVASCRIPT:x", "data:text/html,x", "https://e.com/a", "/rel", "a/b:c", "?q:x", "#h:x", "mailto:x@y.z", "HTTP://e.com"]
    .flatMap((url) => [`href="${url}"`, `src="${url}"`, `cite="${url}"`])
)
// ("a<3": a "<" that opens no tag; the serializer leaves out attribute names the parser
// can read from broken tags, such as "</p", which to-html would write.)
const text = fc.constantFrom("", " a ", "a<3", "&amp;&lt;", "x\u00a0y", "\n\n", "-->", "\"q\"")
const tags = ["p", "b", "span", "h2", "ol", "tr", "th", "iframe", "object", "code", "q", "div", "ul", "li", "table", "td", "a", "img", "br", "input", "details", "template", "svg", "circle", "foreignObject", "math", "mi", "style", "script", "textarea", "pre", "noscript", "xmp"]
const html: fc.Arbitrary<string> = fc.letrec((tie) => ({
  node: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    text,
    fc.constantFrom("<!-- c -->", "<br>", "<!DOCTYPE html>"),
    fc.tuple(fc.constantFrom(...tags), fc.array(attribute, { maxLength: 4 }), fc.array(tie("node"), { maxLength: 4 })).map(
      ([tag, attributes, children]) => `<${tag} ${attributes.join(" ")}>${children.join("")}</${tag}>`
    )
  )
})).node
const documents = fc.array(html, { maxLength: 5 }).map((parts) => parts.join(""))
const settings = { numRuns: Number(process.env.FC_RUNS ?? 400), ...(process.env.FC_SEED === "random" ? {} : { seed: 20261122 }) }

describe("rehypeParseFragment: the tree", () => {
  it("is the tree hast-util-from-parse5 builds, for every kind of attribute and content", () => {
    fc.assert(fc.property(documents, (document) => {
      assert.deepStrictEqual(parse(document), reference(document))
    }), settings)
  })

  it("keeps a tag name with a dot or hash as the parser read it (fromParse5 reads a selector)", () => {
    const tree = parse("<p.lead#x>t</p.lead#x>")
    assert.deepStrictEqual(tree.children[0], { type: "element", tagName: "p.lead#x", properties: {}, children: [{ type: "text", value: "t" }] })
  })
})

describe("rehypeEnforceAllowList", () => {
  // The in-place walk applies hast-util-sanitize's rules for the allow-list's schema:
  // rehype-sanitize's engine is the reference it is checked against.
  const withTemplates = mergeAllowLists(defaultAllowList, { tags: { template: "t", iframe: "i" }, attributes: { "*": { dataX: "d" } } })
  for (const [name, allowList] of [["default", defaultAllowList], ["merged", withTemplates]] as const) {
    it(`removes exactly what hast-util-sanitize removes (${name} allow-list)`, () => {
      const enforce = rehypeEnforceAllowList(allowList)()
      const schema = toSanitizeSchema(allowList)
      fc.assert(fc.property(documents, (document) => {
        const expected = sanitize(parse(document), schema) as Root
        for (const node of [expected]) protectNewWindows(node)
        assert.deepStrictEqual(enforce(parse(document)), expected)
      }), settings)
    })
  }
})

/** hast-util-sanitize does not add rel to new-window links; the stage does. */
const protectNewWindows = (node: Root | Root["children"][number]): void => {
  if (node.type === "element" && node.tagName === "a" && node.properties.target === "_blank") {
    node.properties.rel = ["noopener", "noreferrer"]
  }
  if ("children" in node) for (const child of node.children) protectNewWindows(child)
}

describe("rehypeSerializeHtml", () => {
  // hast-util-to-html escapes the text of xmp, noscript and iframe, which the parser reads raw
  // (so `&lt;` would come back as four characters): those are checked below instead.
  it("writes HTML that parses back into the tree hast-util-to-html's HTML parses into", () => {
    fc.assert(fc.property(documents.filter((document) => !/<(xmp|noscript|iframe|noembed|noframes|plaintext)/.test(document)), (document) => {
      const tree = parse(document)
      assert.deepStrictEqual(parse(serializeHtml(tree)), parse(toHtml(tree)))
    }), settings)
  })

  it.each<[string, string]>([
    ["<p>a &lt; b &amp;&amp; c&nbsp;d &gt; e</p>", "<p>a &lt; b &amp;&amp; c&nbsp;d &gt; e</p>"],
    // Current HTML escapes < and > in attribute values too, as browsers' innerHTML does.
    ["<p title='say \"hi\" &amp; <go>'>x</p>", "<p title=\"say &quot;hi&quot; &amp; &lt;go&gt;\">x</p>"],
    ["<details open><summary>s</summary></details>", "<details open=\"\"><summary>s</summary></details>"],
    ["<img src=\"a.png\" alt=\"\"><br><hr><input accept=\"image/png,image/jpeg\">", "<img src=\"a.png\" alt=\"\"><br><hr><input accept=\"image/png, image/jpeg\">"],
    ["<xmp>a &lt; <b></xmp><noscript><p>&amp;</p></noscript>", "<xmp>a &lt; <b></xmp><noscript><p>&amp;</p></noscript>"],
    ["<p class=\" a  b \" data-user-id=\"7\" aria-hidden=\"true\">x</p>", "<p class=\"a b\" data-user-id=\"7\" aria-hidden=\"true\">x</p>"],
    ["<style>a > b { x: \"&amp;\" }</style><script>if (a < b) {}</script>", "<style>a > b { x: \"&amp;\" }</style><script>if (a < b) {}</script>"],
    ["<template><p>in</p></template>", "<template><p>in</p></template>"],
    ["<textarea>a &lt;/textarea&gt;</textarea>", "<textarea>a &lt;/textarea&gt;</textarea>"],
    ["<svg viewBox=\"0 0 1 1\"><circle r=\"1\"></circle></svg>", "<svg viewBox=\"0 0 1 1\"><circle r=\"1\"></circle></svg>"],
    ["<!-- note -->x", "<!-- note -->x"],
    // Names the tokenizer keeps from broken markup are left out rather than written.
    ["<b a\"b=1 c<d=2>x</b>", "<b>x</b>"]
  ])("%j → %j", (input, expected) => {
    assert.strictEqual(unified().use(rehypeParseFragment).use(rehypeSerializeHtml).processSync(input).toString(), expected)
  })

  it("never lets a hand-built comment or raw node write markup", () => {
    const tree: Root = {
      type: "root",
      children: [
        { type: "comment", value: "--><img src=x onerror=alert(1)><!--" },
        { type: "raw", value: "<script>alert(1)</script>" } as unknown as Root["children"][number]
      ]
    }
    const html = serializeHtml(tree)
    assert.strictEqual(html, "<!----&gt;<img src=x onerror=alert(1)>&lt;!---->&lt;script&gt;alert(1)&lt;/script&gt;")
    assert.deepStrictEqual(parse(html).children.map((node) => node.type), ["comment", "text"])
  })
})
