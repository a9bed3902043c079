import { assert, describe, it } from "@effect/vitest"
import { DateTime, Effect, Option, Schema } from "effect"
import { Base64Url } from "effect/encoding"
import {
  bodyTextMaxLength,
  type CatalogueAudience,
  type CourseId,
  CourseListItem,
  Courses,
  type CourseSearchPage,
  decodeSearchCursor,
  encodeSearchCursor,
  publicAudience,
  RecordVariants,
  SearchQuery,
  searchAudience,
  searchDocument,
  searchTerms,
  wordMaxLength
} from "../../src/index.ts"
import { htmlText } from "../../src/html/htmlText.ts"


/** The keys of a list item the public is shown: the list item's, without the admins'. */
const publicListKeys = RecordVariants.columnsOf(CourseListItem).filter((key) => !RecordVariants.adminOnlyKeys(CourseListItem).includes(key)).sort()

describe("searchTerms", () => {
  it("are the distinct words of the query, in order", () => {
    assert.deepStrictEqual(searchTerms("Crème brûlée, CRÈME & more"), ["creme", "brulee", "more"])
    assert.deepStrictEqual(searchTerms("!!! ... ***"), [])
    assert.deepStrictEqual(searchTerms("'creme' & 'brulee':* | !x"), ["creme", "brulee", "x"])
  })
})

describe("SearchQuery", () => {
  const decode = Schema.decodeUnknownExit(SearchQuery)
  it("trims and accepts 1 to 200 characters with a letter or digit", () => {
    assert.deepStrictEqual(decode("  creme brulee  "), decode("creme brulee"))
    assert.isTrue(decode("x".repeat(200))._tag === "Success")
    assert.isTrue(decode(`  ${"x".repeat(200)}  `)._tag === "Success")
  })

  it.each([
    ["", "q must not be empty"],
    ["   ", "q must not be empty"],
    ["!!! ***", "q must contain a letter or a digit"],
    ["🚀", "q must contain a letter or a digit"],
    ["x".repeat(201), "q must be at most 200 characters"],
    ["a\u0000b", "q must not contain NUL characters or unpaired surrogates"],
    ["a\uD800b", "q must not contain NUL characters or unpaired surrogates"]
  ])("refuses %j: %s", (q, message) => {
    const exit = decode(q)
    assert.isTrue(exit._tag === "Failure")
    assert.include(String(exit), message)
  })
})

describe("search cursors", () => {
  it("round-trip as opaque base64url text", () => {
    const cursor = { score: 7, id: 42 as CourseId }
    const text = encodeSearchCursor(cursor)
    assert.match(text, /^[A-Za-z0-9_-]+$/)
    assert.notInclude(text, "42")
    assert.deepStrictEqual(decodeSearchCursor(text), Option.some(cursor))
  })

  it.each([
    "",
    "abc",
    "!!!!",
    "x".repeat(65),
    Base64Url.encode("7"),
    Base64Url.encode("7.42.1"),
    Base64Url.encode("-1.42"),
    Base64Url.encode("07.42"),
    Base64Url.encode("7.0"),
    Base64Url.encode("7.042"),
    Base64Url.encode("7.2147483648"),
    Base64Url.encode("2147483648.1"),
    Base64Url.encode("1e3.42"),
    Base64Url.encode("7.42\u0000"),
    `${Base64Url.encode("7.42")}\u0000`
  ])("refuse %j", (text) => {
    assert.isTrue(Option.isNone(decodeSearchCursor(text)))
  })

  it("are read only as written: another spelling of the same cursor is refused", () => {
    const text = encodeSearchCursor({ score: 7, id: 42 as CourseId })
    assert.strictEqual(text, "Ny40Mg")
    // Padded, other unused low bits in the last character, a line break: each decodes to "7.42".
    for (const spelling of [`${text}==`, `${text.slice(0, -1)}h`, `${text.slice(0, 2)}\n${text.slice(2)}`]) {
      assert.isTrue(Option.isNone(decodeSearchCursor(spelling)), JSON.stringify(spelling))
    }
    assert.isTrue(Option.isSome(decodeSearchCursor(text)))
  })
})

describe("htmlText", () => {
  it("is the text a reader sees: references decoded, blocks separate words, inline elements do not", () => {
    assert.strictEqual(
      htmlText(`<h2>Knead</h2><p>the <a href="https://x.example" class="c">dough</a> <b>Cr</b>&egrave;me<br>one</p><!-- note --><ul><li>a</li><li>b</li></ul>`)
        .replace(/\s+/g, " ").trim(),
      "Knead the dough Crème one a b"
    )
    assert.strictEqual(htmlText(`<p>x<script>secret()</script><style>p{}</style><img alt="pic" src="y.png"></p>`).trim(), "x")
  })

  it("walks deep nesting without recursion", () => {
    assert.strictEqual(htmlText(`${"<div>".repeat(20_000)}deep${"</div>".repeat(20_000)}`).trim(), "deep")
  })
})

describe("searchDocument", () => {
  it("holds the distinct words of each field; the body's are cut at a word after its first 200,000 characters", () => {
    const body = Array.from({ length: 50_000 }, (_, i) => `w${i}`).join(" ")
    const document = searchDocument({ title: "Crème brûlée, crème", description: null, content_html: `<p>${body}</p>` })
    assert.deepStrictEqual(document.title, ["creme", "brulee"])
    assert.deepStrictEqual(document.description, [])
    const text = document.body.join(" ")
    assert.isAtMost(text.length, bodyTextMaxLength)
    assert.isTrue(body.startsWith(text) && body[text.length] === " ", "cut at a word boundary")
    assert.isAbove(text.length, bodyTextMaxLength - 10)
  })

  it("leaves out words longer than 100 characters", () => {
    const document = searchDocument({ title: `${"a".repeat(wordMaxLength)} ${"b".repeat(wordMaxLength + 1)} c`, content_html: "" })
    assert.deepStrictEqual(document.title, ["a".repeat(wordMaxLength), "c"])
  })
})

describe("Courses.search", () => {
  const withCourses = Effect.provide(Courses.layerMemory("https://cdn.example.com/"))

  it.effect("pages with opaque cursors, shows list items, and never drafts, even to whoever asks", () =>
    Effect.gen(function*() {
      const catalogue = yield* Courses
      const created: Array<CourseId> = []
      for (let i = 1; i <= 7; i++) {
        created.push((yield* catalogue.create({ title: `Crème brûlée ${i}`, content_html: i % 2 === 0 ? "<p>custard</p>" : "" })).id)
      }
      yield* catalogue.create({ title: "Crème brûlée draft", content_html: "", status: "draft" })
      const seen: Array<CourseId> = []
      let cursor: string | undefined
      let pages = 0
      do {
        const page = yield* catalogue.search({ query: "creme brulee", cursor, limit: 3 })
        for (const item of page.items) {
          assert.deepStrictEqual(Object.keys(item).sort(), publicListKeys)
          assert.notIncludeMembers(Object.keys(item), ["content_html", "status", "publish_at", "thumbnail_key"])
        }
        seen.push(...page.items.map((item) => item.id))
        cursor = page.next
        pages++
      } while (cursor !== undefined)
      assert.deepStrictEqual(seen, created)
      assert.strictEqual(pages, 3)
      const custard = yield* catalogue.search({ query: "CUSTARD crème", cursor: undefined, limit: 10 })
      assert.deepStrictEqual(custard.items.map((item) => item.id), [created[1], created[3], created[5]])
      assert.isUndefined(custard.next)
    }).pipe(withCourses))

  it.effect("an admin's search finds drafts and scheduled courses by status, shown as the admin list shows them", () =>
    Effect.gen(function*() {
      const catalogue = yield* Courses
      const draft = yield* catalogue.create({ title: "Crème brûlée draft", content_html: "", status: "draft" })
      const scheduled = yield* catalogue.create({
        title: "Crème brûlée soon",
        content_html: "",
        publish_at: DateTime.makeUnsafe("2999-01-01T00:00:00Z")
      })
      const published = yield* catalogue.create({ title: "Crème brûlée", content_html: "" })
      const search = (audience?: CatalogueAudience) =>
        catalogue.search({ query: "creme brulee", cursor: undefined, limit: 10, ...(audience === undefined ? {} : { audience }) })
      const ids = (page: CourseSearchPage) => page.items.map((item) => item.id)
      assert.deepStrictEqual(ids(yield* search()), [published.id])
      assert.deepStrictEqual(yield* search(publicAudience), yield* search())
      assert.deepStrictEqual(ids(yield* search(searchAudience("all"))), [draft.id, scheduled.id, published.id])
      assert.deepStrictEqual(ids(yield* search(searchAudience("draft"))), [draft.id])
      assert.deepStrictEqual(ids(yield* search(searchAudience("scheduled"))), [scheduled.id])
      assert.deepStrictEqual(ids(yield* search(searchAudience("published"))), [published.id])
      // The admin list's items: with status, publish_at and version; the public's without.
      const admin = (yield* search(searchAudience("all"))).items
      for (const item of admin) assert.deepStrictEqual(Object.keys(item).sort(), [...RecordVariants.columnsOf(CourseListItem)].sort())
      assert.deepStrictEqual(admin.map((item) => item.status), ["draft", "published", "published"])
      assert.deepStrictEqual(admin.map((item) => item.publish_at === null || item.publish_at === undefined ? null : DateTime.formatIso(item.publish_at)), [
        null,
        "2999-01-01T00:00:00.000Z",
        null
      ])
      for (const item of (yield* search()).items) assert.deepStrictEqual(Object.keys(item).sort(), publicListKeys)
      // Pages by the same cursor.
      const first = yield* catalogue.search({ query: "creme brulee", cursor: undefined, limit: 2, audience: searchAudience("all") })
      assert.deepStrictEqual(ids(first), [draft.id, scheduled.id])
      const second = yield* catalogue.search({ query: "creme brulee", cursor: first.next, limit: 2, audience: searchAudience("all") })
      assert.deepStrictEqual([ids(second), second.next], [[published.id], undefined])
    }).pipe(withCourses))

  it.effect("a cursor it did not write is an InvalidSearchCursor; a query without words finds nothing", () =>
    Effect.gen(function*() {
      const catalogue = yield* Courses
      yield* catalogue.create({ title: "Anything", content_html: "" })
      for (const cursor of ["garbage", "", Base64Url.encode("1.2.3")]) {
        const error = yield* Effect.flip(catalogue.search({ query: "anything", cursor, limit: 10 }))
        assert.strictEqual(error._tag, "InvalidSearchCursor")
        assert.include(error.message, "cursor")
      }
      assert.deepStrictEqual(yield* catalogue.search({ query: "!!!", cursor: undefined, limit: 10 }), { items: [], next: undefined })
    }).pipe(withCourses))
})
