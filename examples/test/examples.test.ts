import { describe, expect, it } from "@effect/vitest"
import { execFileSync } from "node:child_process"
import { resolve } from "node:path"

const root = resolve(import.meta.dirname, "../..")
const run = (file: string) =>
  execFileSync(process.execPath, ["--conditions=@coursekit/source", "--import", "tsx", file], {
    cwd: root,
    encoding: "utf8"
  })

describe("examples", () => {
  it("01-catalogue-in-memory prints both slugs and the next cursor", () => {
    const output = run("examples/01-catalogue-in-memory.ts")
    expect(output).toContain("creme-brulee-for-beginners creme-brulee-for-beginners-2")
    expect(output).toContain("first page: Crème brûlée for beginners; next cursor: 2")
  })
})
