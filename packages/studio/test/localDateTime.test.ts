import { PublishAtInput } from "@coursekit/core"
import { DateTime, Schema } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { instantOfLocal, localOfInstant, offsetDateTimeOfLocal } from "../src/features/publishing/localDateTime.ts"

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
      expect(offsetDateTimeOfLocal(value), value).toBeUndefined()
    }
  })

  it("names the same instant as RFC 3339 with an offset", () => {
    const text = offsetDateTimeOfLocal("2026-12-01T09:30")!
    expect(text).toMatch(/^2026-12-01T09:30:00[+-]\d{2}:\d{2}$/)
    expect(Date.parse(text)).toBe(instantOfLocal("2026-12-01T09:30")!.getTime())
  })
})

/**
 * The same in named zones: the process's zone is switched (Node reads `TZ` again when it
 * is assigned), then put back. Daylight-saving changes of 2026: Paris 29 March 02:00 → 03:00
 * and 25 October 03:00 → 02:00; New York 8 March 02:00 → 03:00 and 1 November 02:00 → 01:00.
 */
const inZone = (zone: string, cases: ReadonlyArray<readonly [local: string, sent: string, why: string]>) =>
  describe(`in ${zone}`, () => {
    const outer = process.env.TZ
    beforeAll(() => {
      process.env.TZ = zone
    })
    afterAll(() => {
      if (outer === undefined) delete process.env.TZ
      else process.env.TZ = outer
    })

    it("runs in that zone", () => {
      // As ICU names it (Asia/Kolkata is Asia/Calcutta to it).
      expect(Intl.DateTimeFormat().resolvedOptions().timeZone).toBe(new Intl.DateTimeFormat(undefined, { timeZone: zone }).resolvedOptions().timeZone)
    })

    it.each(cases)("%s is sent as %s (%s)", (local, sent) => {
      expect(offsetDateTimeOfLocal(local)).toBe(sent)
      // The instant the browser reads, and the one the API decodes, with the offset kept.
      expect(Date.parse(sent)).toBe(instantOfLocal(local)!.getTime())
      const decoded = Schema.decodeUnknownSync(PublishAtInput)(sent)
      expect(DateTime.toEpochMillis(decoded)).toBe(instantOfLocal(local)!.getTime())
      expect(DateTime.formatIsoOffset(decoded).slice(-6)).toBe(sent.slice(-6))
    })
  })

inZone("Europe/Paris", [
  ["2026-12-01T10:00", "2026-12-01T10:00:00+01:00", "winter"],
  ["2026-07-01T10:00", "2026-07-01T10:00:00+02:00", "summer: that date's offset, not today's"],
  ["2026-03-29T01:59", "2026-03-29T01:59:00+01:00", "the last minute before the clocks go forward"],
  ["2026-03-29T02:30", "2026-03-29T03:30:00+02:00", "a skipped time: read with the offset before, written as the time it is"],
  ["2026-03-29T03:00", "2026-03-29T03:00:00+02:00", "the first minute after"],
  ["2026-10-25T01:59", "2026-10-25T01:59:00+02:00", "before the clocks go back"],
  ["2026-10-25T02:30", "2026-10-25T02:30:00+02:00", "a repeated time: its first occurrence"],
  ["2026-10-25T03:00", "2026-10-25T03:00:00+01:00", "after the change"]
])

inZone("America/New_York", [
  ["2026-12-01T10:00", "2026-12-01T10:00:00-05:00", "winter"],
  ["2026-07-01T10:00", "2026-07-01T10:00:00-04:00", "summer"],
  ["2026-03-08T02:30", "2026-03-08T03:30:00-04:00", "a skipped time"],
  ["2026-11-01T01:30", "2026-11-01T01:30:00-04:00", "a repeated time: its first occurrence"],
  ["2026-11-01T02:00", "2026-11-01T02:00:00-05:00", "after the change"],
  ["2026-12-31T23:30", "2026-12-31T23:30:00-05:00", "a day whose UTC date is the next year's"]
])

inZone("Asia/Kolkata", [
  ["2026-12-01T10:00", "2026-12-01T10:00:00+05:30", "half an hour east"]
])

inZone("America/St_Johns", [
  ["2026-12-01T10:00", "2026-12-01T10:00:00-03:30", "half an hour west, in winter"],
  ["2026-07-01T10:00", "2026-07-01T10:00:00-02:30", "and in summer"]
])

inZone("UTC", [
  ["2026-12-01T10:00", "2026-12-01T10:00:00+00:00", "UTC has the offset +00:00"]
])
