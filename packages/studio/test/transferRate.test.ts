import { describe, expect, it } from "@effect/vitest"
import { addSample, formatBytes, formatSpeed, formatTimeLeft, rateOf, type Sample, windowMs } from "../src/features/media/transferRate.ts"

const fill = (samples: ReadonlyArray<Sample>) => samples.reduce<ReadonlyArray<Sample>>(addSample, [])

describe("transferRate", () => {
  it("no speed before half a second of progress", () => {
    expect(rateOf([], 100)).toEqual({ bytesPerSecond: undefined, secondsLeft: undefined })
    expect(rateOf(fill([{ at: 0, loaded: 0 }, { at: 499, loaded: 50 }]), 100).bytesPerSecond).toBeUndefined()
  })

  it("speed over the window, time left at that speed", () => {
    const samples = fill([{ at: 0, loaded: 0 }, { at: 1000, loaded: 1_000_000 }, { at: 2000, loaded: 2_000_000 }])
    expect(rateOf(samples, 10_000_000)).toEqual({ bytesPerSecond: 1_000_000, secondsLeft: 8 })
  })

  it("forgets what is older than the window: a burst at the start does not set the speed for good", () => {
    const samples = fill([
      { at: 0, loaded: 0 },
      { at: 100, loaded: 5_000_000 },
      { at: 1000 + windowMs, loaded: 5_000_000 },
      { at: 2000 + windowMs, loaded: 5_100_000 },
      { at: 2100 + windowMs, loaded: 5_110_000 }
    ])
    // The burst (0 → 100 ms) is gone; the newest sample at least a window old is kept.
    expect(samples[0]!.at).toBe(100)
    expect(rateOf(samples, 6_000_000).bytesPerSecond).toBeCloseTo(110_000 / 7)
  })

  it("stalled: speed 0, no time left", () => {
    expect(rateOf(fill([{ at: 0, loaded: 10 }, { at: 1000, loaded: 10 }]), 100)).toEqual({ bytesPerSecond: 0, secondsLeft: undefined })
  })

  it("formats", () => {
    expect(formatBytes(512)).toBe("512 B")
    expect(formatBytes(48_200)).toBe("48.2 kB")
    expect(formatBytes(209_715_200)).toBe("210 MB")
    expect(formatSpeed(3_200_000)).toBe("3.20 MB/s")
    expect(formatTimeLeft(44.2)).toBe("45 s left")
    expect(formatTimeLeft(185)).toBe("3 min 5 s left")
    expect(formatTimeLeft(3720)).toBe("1 h 2 min left")
  })
})
