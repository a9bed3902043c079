/**
 * The allow-list section of docs/html-sanitization.md is generated from
 * `defaultAllowList`: this test renders it and fails when the docs differ.
 * `COURSEKIT_WRITE_DOCS=1` writes the rendered section into the docs first.
 */
import { describe, expect, it } from "@effect/vitest"
import { readFileSync, writeFileSync } from "node:fs"
import { resolve } from "node:path"
import { defaultAllowList, type HtmlAllowList } from "../../src/index.ts"

const path = resolve(import.meta.dirname, "../../../../docs/html-sanitization.md")
const heading = "## The default allow-list"

const code = (value: string) => `\`${value}\``
/** A table cell: a `|` would end it early. */
const cell = (value: string) => value.replaceAll("|", "\\|")
const codes = (values: ReadonlyArray<string>) => values.length === 0 ? "—" : values.map(code).join(", ")
const pattern = (regex: RegExp) => code(cell(regex.source))

/** The generated section, from its heading to the end of the file. */
const allowListSection = (allowList: HtmlAllowList): string => {
  const lines: Array<string> = [
    heading,
    "",
    "This section is generated from `defaultAllowList`; a test fails when they differ",
    "(`COURSEKIT_WRITE_DOCS=1 sh scripts/node24.sh npx vitest run --project core HtmlAllowListDocs` rewrites it).",
    "",
    "### Tags",
    "",
    "| Tag | Why it is allowed |",
    "|---|---|",
    ...Object.entries(allowList.tags).map(([tag, why]) => `| ${code(tag)} | ${why} |`),
    "",
    "### Attributes",
    "",
    "| Tag | Attribute | Why it is allowed |",
    "|---|---|---|",
    ...Object.entries(allowList.attributes).flatMap(([tag, attributes]) =>
      Object.entries(attributes).map(([name, why]) => `| ${code(tag)} | ${code(name)} | ${why} |`)
    ),
    "",
    "### Classes",
    "",
    "| Class | Why it is allowed |",
    "|---|---|",
    ...Object.entries(allowList.classes).map(([name, why]) => `| ${code(name)} | ${why} |`),
    "",
    "### URL schemes",
    "",
    "| Attribute | Schemes (relative URLs always allowed) |",
    "|---|---|",
    ...Object.entries(allowList.protocols).map(([attribute, schemes]) => `| ${code(attribute)} | ${codes(schemes)} |`),
    "",
    "### Embed providers",
    "",
    "Every kept `iframe` also gets `referrerpolicy=\"strict-origin-when-cross-origin\"`, `loading=\"lazy\"`",
    "and, when `allow` names `fullscreen`, `allowfullscreen`. Paths and query values must match in whole.",
    "",
    "| Provider | Hosts accepted | Host written | Path | Query parameters kept | `sandbox` | `allow` | Why it is allowed |",
    "|---|---|---|---|---|---|---|---|",
    ...Object.entries(allowList.embeds).map(([name, provider]) =>
      [
        "",
        code(name),
        codes(provider.hosts),
        provider.rewriteHost === undefined ? "the one in `src`" : code(provider.rewriteHost),
        pattern(provider.path),
        Object.keys(provider.query).length === 0
          ? "none"
          : Object.entries(provider.query).map(([parameter, value]) => `${code(parameter)} (${pattern(value)})`).join(", "),
        codes(provider.sandbox),
        code(provider.allow.join("; ")),
        provider.reason,
        ""
      ].join(" | ").trim()
    ),
    "",
    "### Dropped with their content",
    "",
    allowList.dropWithContent.map(code).join(", "),
    "",
    "### Kept only inside",
    "",
    "| Tag | Required ancestor |",
    "|---|---|",
    ...Object.entries(allowList.ancestors).map(([tag, ancestors]) => `| ${code(tag)} | ${codes(ancestors)} |`),
    ""
  ]
  return lines.join("\n")
}

describe("docs/html-sanitization.md", () => {
  it("holds the allow-list section generated from the default allow-list, and nothing else after it", () => {
    const expected = allowListSection(defaultAllowList)
    const before = readFileSync(path, "utf8")
    const start = before.indexOf(`\n${heading}\n`)
    expect(start).toBeGreaterThan(0)
    if (process.env.COURSEKIT_WRITE_DOCS === "1") writeFileSync(path, `${before.slice(0, start + 1)}${expected}`)
    const docs = readFileSync(path, "utf8")
    expect(docs.slice(docs.indexOf(`\n${heading}\n`) + 1)).toBe(expected)
  })

  it("renders every entry with its reason (a check on the renderer itself)", () => {
    const section = allowListSection(defaultAllowList)
    for (const [tag, why] of Object.entries(defaultAllowList.tags)) expect(section).toContain(`| \`${tag}\` | ${why} |`)
    for (const [cls, why] of Object.entries(defaultAllowList.classes)) expect(section).toContain(`| \`${cls}\` | ${why} |`)
    expect(section).toContain("| `youtube` | `www.youtube.com`, `youtube.com`, `www.youtube-nocookie.com`, `youtube-nocookie.com` | `www.youtube-nocookie.com` | `^\\/embed\\/[A-Za-z0-9_-]{1,64}$` |")
    expect(section).toContain("| `vimeo` | `player.vimeo.com` | the one in `src` | `^\\/video\\/[0-9]{1,20}$` | `h` (`^[0-9A-Za-z]{1,32}$`) |")
    expect(section).toContain(defaultAllowList.dropWithContent.map((tag) => `\`${tag}\``).join(", "))
  })
})
