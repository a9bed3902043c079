import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { exportedNames, pinnedFile } from "../exported-names.ts"

describe("the packages' public names", () => {
  it("are the pinned ones: every entry point exports exactly the names, values and types, scripts/exported-names.json lists", () => {
    const pinned = JSON.parse(readFileSync(pinnedFile, "utf8")) as Record<string, ReadonlyArray<string>>
    const names = exportedNames()
    // A few well-known names, so an empty reading cannot pass against an empty file.
    expect(names["@coursekit/core"]).toEqual(expect.arrayContaining(["Courses", "CourseRepo", "Slug", "Slug.pattern", "HtmlSanitizer"]))
    expect(names["@coursekit/core/testing"]).toEqual(expect.arrayContaining(["courseRepoSuite"]))
    expect(names).toEqual(pinned)
  }, 120_000)
})
