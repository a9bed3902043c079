/**
 * The author's date and time (`<input type="datetime-local">`'s `2026-12-01T09:00`, read
 * in the browser's time zone) as an instant, and back. An hour a daylight-saving change
 * skips or repeats is read as the browser reads it (the later of a repeated hour).
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

/** The local date-time value of an instant, for the field. */
export const localOfInstant = (date: Date): string =>
  `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())}T${two(date.getHours())}:${two(date.getMinutes())}`

/** The browser's time zone, to name it beside the field. */
export const browserTimeZone = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone
