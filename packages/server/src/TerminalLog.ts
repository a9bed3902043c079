/**
 * The standalone server's log when a person reads it (issue #37): on a terminal, each line
 * is its message as text — the start-up lines read as a short banner (where it listens,
 * the API docs, the Studio, the data directory) — with the admin token generated on the
 * first start on a line of its own, warnings and errors marked. Anything else reading the
 * output (a supervisor, a log shipper), and `LOG_FORMAT=json`, gets JSON lines
 * (`Logger.consoleJson`), the token under `annotations.adminToken`.
 *
 * @since 0.1.0
 */
import { Cause, Logger, References } from "effect"

/** Whether to write text: `auto` on a terminal. */
export const writesText = (format: "auto" | "json", isTerminal: boolean) => format === "auto" && isTerminal

const textOf = (message: unknown): string =>
  Array.isArray(message) ? message.map(textOf).join(" ") : typeof message === "string" ? message : String(message)

const marks: Partial<Record<string, string>> = { Warn: "warning: ", Error: "error: ", Fatal: "error: " }

/** The line a log entry becomes on a terminal (without its newline). */
export const lineOf = (entry: {
  readonly message: unknown
  readonly logLevel: string
  readonly annotations: Readonly<Record<string, unknown>>
  readonly cause?: string | undefined
}): string => {
  const lines = [`${marks[entry.logLevel] ?? ""}${textOf(entry.message)}`]
  const token = entry.annotations["adminToken"]
  if (typeof token === "string") lines.push(`  Admin token: ${token}`)
  if (entry.cause !== undefined && entry.cause !== "") lines.push(`  ${entry.cause.replaceAll("\n", "\n  ")}`)
  return lines.join("\n")
}

/** Writes {@link lineOf} each entry to standard output (standard error for warnings and errors). */
export const logger = Logger.make((options) => {
  const line = lineOf({
    message: options.message,
    logLevel: options.logLevel,
    annotations: options.fiber.getRef(References.CurrentLogAnnotations),
    cause: options.cause.reasons.length === 0 ? undefined : Cause.pretty(options.cause)
  })
  const stream = options.logLevel in marks ? process.stderr : process.stdout
  stream.write(`${line}\n`)
})
