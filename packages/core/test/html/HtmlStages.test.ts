import { describe, expect, it } from "@effect/vitest"
import rehypeStringify from "rehype-stringify"
import { unified } from "unified"
import {
  defaultAllowList,
  rehypeEnforceAllowList,
  rehypeNormalizeStructure,
  rehypeParseFragment,
  rehypeStripModelWrapping
} from "../../src/index.ts"

// Each stage is a plain unified plugin: usable alone, in any rehype processor.
const strip = unified().use(rehypeParseFragment).use(rehypeStripModelWrapping).use(rehypeStringify)
const normalize = unified().use(rehypeParseFragment).use(rehypeNormalizeStructure).use(rehypeStringify)
const enforce = unified().use(rehypeParseFragment).use(rehypeEnforceAllowList(defaultAllowList)).use(rehypeStringify)
const run = (processor: { processSync: (html: string) => unknown }, html: string) => String(processor.processSync(html))

describe("the stages alone", () => {
  it("rehypeStripModelWrapping removes only the wrapping", () => {
    expect(run(strip, "Sure!\n```html\n<p onclick=\"x\"> a </p>\n```")).toBe("<p onclick=\"x\"> a </p>")
  })

  it("rehypeNormalizeStructure cleans structure and keeps attributes (that is stage 3's job)", () => {
    expect(run(normalize, "<p></p><p  style=\"x\">  a   <span>b</span> </p><!-- c -->")).toBe("<p style=\"x\">a b</p>")
  })

  it("rehypeEnforceAllowList enforces the allow-list and keeps structure as it is", () => {
    expect(run(enforce, "<p style=\"x\" class=\"font-bold x\"> a </p><p></p><script>s</script>"))
      .toBe("<p class=\"font-bold\"> a </p><p></p>")
  })
})
