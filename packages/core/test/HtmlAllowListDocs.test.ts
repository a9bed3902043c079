import { describe, expect, it } from "@effect/vitest"
import { readFileSync } from "node:fs"
import { resolve } from "node:path"
import { defaultAllowList } from "../src/index.ts"

const docs = readFileSync(resolve(import.meta.dirname, "../../../docs/html-sanitization.md"), "utf8")

describe("docs/html-sanitization.md", () => {
  it("lists every tag, attribute, class, scheme and dropped element of the default allow-list, with its reason", () => {
    for (const [tag, why] of Object.entries(defaultAllowList.tags)) expect(docs).toContain(`| \`${tag}\` | ${why} |`)
    for (const [tag, attributes] of Object.entries(defaultAllowList.attributes)) {
      for (const [name, why] of Object.entries(attributes)) expect(docs).toContain(`| \`${tag}\` | \`${name}\` | ${why} |`)
    }
    for (const [cls, why] of Object.entries(defaultAllowList.classes)) expect(docs).toContain(`| \`${cls}\` | ${why} |`)
    for (const [attribute, schemes] of Object.entries(defaultAllowList.protocols)) {
      expect(docs).toContain(`| \`${attribute}\` | ${schemes.map((scheme) => `\`${scheme}\``).join(", ")} |`)
    }
    expect(docs).toContain(defaultAllowList.dropWithContent.map((tag) => `\`${tag}\``).join(", "))
  })

  it("lists nothing the allow-list does not hold", () => {
    const tagRows = [...docs.matchAll(/^\| `([a-z0-9-]+)` \| [^`|][^|]*\|$/gm)].map((match) => match[1]!)
    for (const name of tagRows) {
      expect([...Object.keys(defaultAllowList.tags), ...Object.keys(defaultAllowList.classes)]).toContain(name)
    }
  })
})
