/**
 * Why the standalone server could not start, as one line that says what is wrong and
 * what to do — printed instead of a stack trace (the operator needs the fix, not our
 * call stack). Secrets never appear: a database URL is shown without its password.
 *
 * @since 0.1.0
 */
import type { DataDirectoryLock } from "@coursekit/postgres"
import { Cause, Option, Redacted } from "effect"
import { hostname } from "node:os"
import type { ServerSettings } from "./ServerConfig.ts"

const configurationDoc = "docs/configuration.md lists every variable"

/** One line: newlines and runs of spaces collapsed, no trailing period doubled. */
const oneLine = (text: string) => text.replace(/\s+/g, " ").trim().replace(/\.$/, "")

const codeOf = (error: unknown): string | undefined => {
  const code = (error as { code?: unknown } | null | undefined)?.code
  return typeof code === "string" ? code : undefined
}

const messageOf = (error: unknown): string =>
  error instanceof Error || (typeof error === "object" && error !== null && "message" in error)
    ? String((error as { message: unknown }).message)
    : String(error)

const tagOf = (error: unknown): string | undefined => {
  const tag = (error as { _tag?: unknown } | null | undefined)?._tag
  return typeof tag === "string" ? tag : undefined
}

/** `postgres://user@host:5432/db`, never the password or the query (which may hold one). */
const databaseTarget = (settings: ServerSettings | undefined): string => {
  if (settings === undefined || Option.isNone(settings.databaseUrl)) return "DATABASE_URL"
  try {
    const url = new URL(Redacted.value(settings.databaseUrl.value))
    const user = url.username === "" ? "" : `${decodeURIComponent(url.username)}@`
    return `DATABASE_URL (${url.protocol}//${user}${url.host}${url.pathname})`
  } catch {
    return "DATABASE_URL (not a URL)"
  }
}

/** The reason behind a driver error: the innermost message worth showing. */
const causeText = (error: unknown): string => {
  const reason = (error as { reason?: unknown }).reason
  const inner = reason !== undefined && typeof reason === "object" ? reason : error
  const cause = (inner as { cause?: unknown }).cause
  const code = codeOf(cause)
  switch (code) {
    case "ECONNREFUSED":
      return "connection refused (nothing listens there)"
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return "the host name does not resolve"
    case "ETIMEDOUT":
    case "EHOSTUNREACH":
    case "ENETUNREACH":
      return "the host does not answer"
  }
  const own = messageOf(inner).replace(/^PgConnection: /, "")
  const deeper = cause === undefined ? "" : messageOf(cause)
  return oneLine(deeper !== "" && deeper !== own && !own.includes(deeper) ? `${own}: ${deeper}` : own)
}

const listenFailure = (cause: unknown, settings: ServerSettings | undefined): string => {
  const where = settings === undefined ? "the configured address" : `${settings.host}:${settings.port}`
  switch (codeOf(cause)) {
    case "EADDRINUSE":
      return `Port ${settings?.port ?? ""} is already in use (${where}). Stop the process that holds it, or set PORT to a free port (PORT=0 picks one)`
    case "EACCES":
      return `Not allowed to listen on ${where}. Use a PORT above 1023, or give the service the right to bind low ports`
    case "EADDRNOTAVAIL":
      return `HOST ${settings?.host ?? ""} is not an address of this machine. Set HOST to one of its addresses, or 0.0.0.0 for all`
    default:
      return `Cannot listen on ${where}: ${oneLine(messageOf(cause))}. Check HOST and PORT`
  }
}

/**
 * The line to print for a start-up failure `cause` (`settings` when the configuration
 * was read). Unexpected failures get a line too, naming the error; the full cause is
 * for the debug log.
 */
export const describe = (cause: Cause.Cause<unknown>, settings?: ServerSettings): string => {
  const error = Cause.squash(cause)
  const dataDir = settings?.dataDir ?? "DATA_DIR"
  switch (tagOf(error)) {
    case "ConfigError": {
      const text = oneLine(messageOf(error).replace(/^SchemaError\(|\)$/g, ""))
      const variable = /at \["(\w+)"\]/.exec(text)?.[1]
      const what = text.replace(/\s*at \["\w+"\]/, "")
      if (variable === undefined) return `The configuration is not valid: ${what}. Fix it (${configurationDoc})`
      // A required variable that is absent reads as a string expected where there is none.
      return /^Expected string$/.test(what)
        ? `${variable} is required by this configuration but not set. Set ${variable} (${configurationDoc})`
        : `${variable} is not valid: ${what}. Fix or unset ${variable} (${configurationDoc})`
    }
    case "ServeError":
      return listenFailure((error as { cause?: unknown }).cause, settings)
    case "DataDirectoryInUse": {
      const { holder } = error as DataDirectoryLock.DataDirectoryInUse
      const who = holder === undefined
        ? "another process that is locking it right now"
        : `process ${holder.pid}${holder.host === hostname() ? "" : ` on host ${holder.host}`} (since ${holder.since})`
      return `DATA_DIR ${dataDir} is in use by ${who}: one process owns a data directory. Stop that process first, or give this one another DATA_DIR`
    }
    case "DataDirectoryLockError":
    case "PgliteStartError":
      return `The embedded database in ${dataDir} cannot be opened: ${oneLine(messageOf(error))}. Check that DATA_DIR is a directory the service's user can write, or set DATABASE_URL`
    case "SqlError": {
      const reason = tagOf((error as { reason?: unknown }).reason)
      if (settings !== undefined && Option.isNone(settings.databaseUrl)) {
        return `The embedded database in ${dataDir} failed: ${causeText(error)}. Check DATA_DIR (or move it aside to start afresh)`
      }
      return reason === "ConnectionError" || reason === "AuthenticationError"
        ? `Cannot connect to the database at ${databaseTarget(settings)}: ${causeText(error)}. Check that PostgreSQL runs there and that DATABASE_URL (user, password, database) is right`
        : `The database at ${databaseTarget(settings)} refused a statement at start-up: ${causeText(error)}. Check the user's rights on that database`
    }
    case "MigrationError":
      return `The database migrations failed: ${oneLine(messageOf(error))}. Check ${databaseTarget(settings)} and the user's rights to create tables`
    case "PlatformError":
      return `Cannot use ${dataDir}: ${oneLine(messageOf(error))}. Check that DATA_DIR (and STORAGE_DIR) are directories the service's user can write`
    case "StorageError":
      return `The object storage is not usable: ${causeText(error)}. Check STORAGE and its settings (STORAGE_DIR, or the S3_* variables)`
    case "AdminTokenFileInvalid":
      return oneLine(messageOf(error))
    case "SessionSecretTooShort":
      return `${oneLine(messageOf(error))}. Set SESSION_SECRET to 32 or more random characters (the same on every instance), ` +
        `or unset it and delete ${dataDir}/session-secret to have one generated`
    case "JwtOptionsInvalid":
      return `Viewer tokens cannot be configured: ${oneLine(messageOf(error))}. Fix JWT_SECRET or JWKS_URL`
    default:
      return `Could not start: ${oneLine(messageOf(error))}`
  }
}
