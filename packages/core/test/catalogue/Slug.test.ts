import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import * as Slug from "../../src/catalogue/Slug.ts"

describe("Slug.fromTitle", () => {
  it.each([
    ["Intro to Rust", "intro-to-rust"],
    ["  Hello,   World!  ", "hello-world"],
    ["Crème brûlée für Anfänger", "creme-brulee-fur-anfanger"],
    ["Straße & Æsir, Œuvre, Øl, Łódź, Đorđe, Þór", "strasse-aesir-oeuvre-ol-lodz-dorde-thor"],
    ["Don't panic", "dont-panic"],
    ["C++ / C# basics", "c-c-basics"],
    ["ĦĮ Ǆ", "hi-dz"],
    ["🚀🚀🚀", ""],
    ["", ""],
    ["---", ""]
  ])("%j → %j", (title, slug) => {
    expect(Slug.fromTitle(title)).toBe(slug)
  })

  it("cuts long titles at a word boundary within 80 characters", () => {
    const slug = Slug.fromTitle("alpha ".repeat(20))
    expect(slug.length).toBeLessThanOrEqual(80)
    expect(slug).toBe(Array.from({ length: 13 }, () => "alpha").join("-"))
  })

  it("cuts one overlong word hard", () => {
    expect(Slug.fromTitle("a".repeat(200))).toBe("a".repeat(80))
  })

  it("always yields the slug shape within 80 characters, and is stable", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 300 }), (title) => {
        const slug = Slug.fromTitle(title)
        if (slug !== "") expect(slug).toMatch(Slug.pattern)
        expect(slug.length).toBeLessThanOrEqual(Slug.maxLength)
        expect(Slug.fromTitle(title)).toBe(slug)
        // A slug is its own slug: deriving again changes nothing.
        expect(Slug.fromTitle(slug)).toBe(slug)
      }),
      { numRuns: 2000 }
    )
  })

  it("keeps every ASCII letter and digit of the title, in order", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 60 }), (title) => {
        const kept = title.toLowerCase().replace(/[^a-z0-9]/g, "")
        expect(Slug.fromTitle(title).replace(/-/g, "")).toBe(kept)
      })
    )
  })
})

describe("Slug.candidate", () => {
  it("numbers candidates and keeps them within 80 characters", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), fc.integer({ min: 1, max: 100_000 }), (title, n) => {
        const base = Slug.fromTitle(title) || "course-1"
        const slug = Slug.candidate(base, n)
        expect(slug).toMatch(Slug.pattern)
        expect(slug.length).toBeLessThanOrEqual(Slug.maxLength)
        if (n >= 2) expect(slug).toMatch(new RegExp(`-${n}$`))
        else expect(slug).toBe(base)
      })
    )
  })

  it("the first candidate is the base itself", () => {
    expect(Slug.candidate("intro", 1)).toBe("intro")
    expect(Slug.candidate("intro", 2)).toBe("intro-2")
    expect(Slug.fallback(42)).toBe("course-42")
  })
})

describe("Slug.searchWords", () => {
  it.each([
    ["Crème BRÛLÉE, l'été", "creme brulee lete"],
    ["  Straße & Æsir  ", "strasse aesir"],
    ["C++ / C# basics", "c c basics"],
    ["🚀🚀🚀", ""],
    ["", ""]
  ])("%j → %j", (text, words) => {
    expect(Slug.searchWords(text)).toBe(words)
  })

  it("gives the slug's words: joined by hyphens they are the slug, below its length limit", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 60 }), (text) => {
        const words = Slug.searchWords(text)
        expect(words).toMatch(/^([a-z0-9]+( [a-z0-9]+)*)?$/)
        if (words.length <= Slug.maxLength) expect(words.replace(/ /g, "-")).toBe(Slug.fromTitle(text))
      }),
      { numRuns: 2000 }
    )
  })
})
