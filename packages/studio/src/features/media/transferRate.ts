/**
 * An upload's speed and time left, from its progress over the last few seconds: a sliding
 * window, so that a burst (the first bytes into the socket's buffer) or a stall long ago
 * does not set the estimate for good. Plain logic, unit-tested (`transferRate.test.ts`).
 */

export interface Sample {
  /** Milliseconds on any monotonic clock (`performance.now()`). */
  readonly at: number
  readonly loaded: number
}

/** How far back the speed looks. */
export const windowMs = 5_000

/** `samples` with `sample` added and those older than the window (but the newest of them) dropped. */
export const addSample = (samples: ReadonlyArray<Sample>, sample: Sample): ReadonlyArray<Sample> => {
  const kept = [...samples, sample]
  let first = 0
  // Keep one sample at or beyond the window's start, so the window spans it whole.
  while (first + 1 < kept.length && sample.at - kept[first + 1]!.at >= windowMs) first++
  return kept.slice(first)
}

export interface Rate {
  /** Bytes per second; undefined until half a second of progress is known. */
  readonly bytesPerSecond: number | undefined
  /** Seconds until `total`, at that speed; undefined without a speed. */
  readonly secondsLeft: number | undefined
}

export const rateOf = (samples: ReadonlyArray<Sample>, total: number): Rate => {
  const first = samples[0]
  const last = samples.at(-1)
  if (first === undefined || last === undefined || last.at - first.at < 500) return { bytesPerSecond: undefined, secondsLeft: undefined }
  const bytesPerSecond = Math.max(0, (last.loaded - first.loaded) / ((last.at - first.at) / 1000))
  return { bytesPerSecond, secondsLeft: bytesPerSecond > 0 ? Math.max(0, (total - last.loaded) / bytesPerSecond) : undefined }
}

/** "3.2 MB/s" (kB = 1,000 bytes, as the docs count). */
export const formatSpeed = (bytesPerSecond: number): string => `${formatBytes(bytesPerSecond)}/s`

/** "512 B", "48.2 kB", "12.6 MB", "2.10 GB". */
export const formatBytes = (bytes: number): string => {
  if (bytes < 1000) return `${Math.round(bytes)} B`
  const units = ["kB", "MB", "GB", "TB"]
  let value = bytes / 1000
  let unit = 0
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000
    unit++
  }
  return `${value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2)} ${units[unit]}`
}

/** "45 s left", "3 min 5 s left", "1 h 2 min left". */
export const formatTimeLeft = (seconds: number): string => {
  const whole = Math.ceil(seconds)
  if (whole < 60) return `${whole} s left`
  if (whole < 3600) return `${Math.floor(whole / 60)} min ${whole % 60} s left`
  return `${Math.floor(whole / 3600)} h ${Math.floor((whole % 3600) / 60)} min left`
}
