import { describe, expect, it } from "vitest"
import { instantOfLocal, localOfInstant } from "../src/features/publishing/localDateTime.ts"

// Each assertion is in terms of the zone the process runs in, whichever it is.
describe("the author's date and time", () => {
  it("reads a datetime-local value in the browser's zone and writes it back unchanged", () => {
    const date = instantOfLocal("2026-12-01T09:30")!
    expect([date.getFullYear(), date.getMonth(), date.getDate(), date.getHours(), date.getMinutes()]).toEqual([2026, 11, 1, 9, 30])
    expect(localOfInstant(date)).toBe("2026-12-01T09:30")
  })

  it("refuses what is not a date and time: empty, impossible days, other shapes", () => {
    for (const value of ["", "2026-02-30T10:00", "2026-12-01", "2026-12-01T9:00", "2026-13-01T10:00", "tomorrow"]) {
      expect(instantOfLocal(value), value).toBeUndefined()
    }
  })
})
