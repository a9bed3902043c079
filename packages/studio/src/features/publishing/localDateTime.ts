/**
 * The author's date and time (`<input type="datetime-local">`'s `2026-12-01T09:00`, read
 * in the browser's time zone) as an instant, as RFC 3339 text with the offset the zone has
 * at that instant (what "Schedule…" sends), and back. A time a daylight-saving change
 * repeats or skips is read as the browser reads it (ECMAScript's "compatible" reading): a
 * repeated time is its first occurrence, a skipped one is read with the offset before the
 * change (02:30 on a night that jumps from 02:00 to 03:00 is 03:30).
 */

/** The instant of a local date-time value, or undefined when it is not one. */
export const instantOfLocal = (value: string): Date | undefined => {
  const match = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})$/.exec(value)
  if (match === null) return undefined
  const [year, month, day, hour, minute] = match.slice(1).map(Number) as [number, number, number, number, number]
  const date = new Date(year, month - 1, day, hour, minute)
  return Number.isNaN(date.getTime()) || date.getFullYear() !== year || date.getMonth() !== month - 1 || date.getDate() !== day ? undefined : date
}

const two = (value: number) => String(value).padStart(2, "0")

/**
 * A local date-time value as RFC 3339 with the browser's offset for that date and time
 * (not today's: `2026-07-01T10:00` in Paris is `2026-07-01T10:00:00+02:00`, `2026-12-01T10:00`
 * is `2026-12-01T10:00:00+01:00`), or undefined when it is not a date and time. The text
 * always names the instant the browser reads: a skipped time comes out as the wall-clock
 * time it became, with the offset after the change.
 */
export const offsetDateTimeOfLocal = (value: string): string | undefined => {
  const date = instantOfLocal(value)
  if (date === undefined) return undefined
  // Minutes east of UTC at that instant. Whole minutes since 1900 almost everywhere; a zone's
  // older local mean time (seconds too) is rounded, and the wall-clock time below follows it.
  const offset = Math.round(-date.getTimezoneOffset())
  const wall = new Date(date.getTime() + offset * 60_000)
  const sign = offset < 0 ? "-" : "+"
  return `${String(wall.getUTCFullYear()).padStart(4, "0")}-${two(wall.getUTCMonth() + 1)}-${two(wall.getUTCDate())}` +
    `T${two(wall.getUTCHours())}:${two(wall.getUTCMinutes())}:${two(wall.getUTCSeconds())}` +
    `${sign}${two(Math.floor(Math.abs(offset) / 60))}:${two(Math.abs(offset) % 60)}`
}

/** The local date-time value of an instant, for the field. */
export const localOfInstant = (date: Date): string =>
  `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())}T${two(date.getHours())}:${two(date.getMinutes())}`

/** The browser's time zone, to name it beside the field. */
export const browserTimeZone = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone
