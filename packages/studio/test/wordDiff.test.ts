// @vitest-environment jsdom
import { describe, expect, it } from "vitest"
import { textOfHtml, wordDiff } from "../src/features/history/wordDiff.ts"

const joined = (parts: ReturnType<typeof wordDiff>, keep: "before" | "after") =>
  parts.filter((part) => part._tag === "same" || part._tag === (keep === "before" ? "removed" : "added")).map((part) => part.text).join("")

describe("the word diff", () => {
  it("marks the words only one side has, keeping the rest in order", () => {
    expect(wordDiff("Learn Rust ownership fast", "Learn Rust borrowing fast today")).toEqual([
      { _tag: "same", text: "Learn Rust " },
      { _tag: "added", text: "borrowing" },
      { _tag: "removed", text: "ownership" },
      { _tag: "same", text: " fast" },
      { _tag: "added", text: " today" }
    ])
  })

  it("gives back each side exactly from its parts, whatever the texts", () => {
    const samples = ["", "a", "a b c", "one  two\nthree", "x y x y x", "the cat sat on the mat", "  leading and trailing  "]
    for (const before of samples) {
      for (const after of samples) {
        const parts = wordDiff(before, after)
        expect(joined(parts, "before")).toBe(before)
        expect(joined(parts, "after")).toBe(after)
      }
    }
  })

  it("equal texts are one unchanged part; texts too long for the table still split into their common ends and a changed middle", () => {
    expect(wordDiff("same text", "same text")).toEqual([{ _tag: "same", text: "same text" }])
    const long = (word: string) => Array.from({ length: 3000 }, (_, index) => `${word}${index}`).join(" ")
    const parts = wordDiff(`start ${long("a")} end`, `start ${long("b")} end`)
    expect(parts.map((part) => part._tag)).toEqual(["same", "removed", "added", "same"])
    expect(parts[0]!.text).toBe("start ")
    expect(parts[3]!.text).toBe(" end")
  })

  it("reads an HTML body as its text, a block per line", () => {
    expect(textOfHtml("<h2>Intro</h2><p>Hello <strong>world</strong></p><ul><li>one</li><li>two</li></ul>")).toBe("Intro\nHello world\none\ntwo")
  })
})
