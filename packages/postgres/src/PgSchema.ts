/**
 * The PostgreSQL schema that holds all of Coursekit: its tables, their sequences,
 * indexes and triggers, its functions, and the migrations' bookkeeping. `coursekit`
 * unless the database layer is given another (`schema` of `PgDatabase.layer` and
 * `PgliteDatabase.layer`, `DATABASE_SCHEMA` in the standalone server). So Coursekit can
 * share a host's database: the host's own `courses` or `lessons` tables are never read
 * or written, and two instances with two schemas (two tenants, staging beside
 * production) share nothing, the catalogue version included.
 *
 * Every statement names its tables through {@link PgTables}, so none depends on the
 * connection's `search_path`. The functions that read tables pin their own
 * (`SET search_path`, migration 0013): a trigger runs under whatever `search_path` its
 * writer's session has.
 *
 * @since 0.2.0
 */
import { Context, Data, Layer } from "effect"
import type { SqlClient, Statement } from "effect/sql"

/** The schema when none is chosen. */
export const defaultSchema = "coursekit"

/**
 * A schema name Coursekit accepts: lower-case letters, digits and `_`, not starting with
 * a digit, at most 63 characters (PostgreSQL's limit), not `pg_…` or
 * `information_schema` (the system's). Such a name has nothing to escape and no dot for
 * a qualified name to split on; Coursekit quotes it in every statement, so even an SQL
 * keyword (`user`) works.
 */
export const schemaNamePattern = /^(?!pg_|information_schema$)[a-z_][a-z0-9_]{0,62}$/

/** A schema name outside {@link schemaNamePattern}. */
export class InvalidSchemaName extends Data.TaggedError("InvalidSchemaName")<{ readonly name: string }> {
  override get message() {
    return `${JSON.stringify(this.name)} is not a schema name Coursekit accepts: lower-case letters, digits and _, ` +
      `starting with a letter or _, at most 63 characters, not pg_… or information_schema`
  }
}

/** Why `name` is not a schema name Coursekit accepts, or undefined when it is one. */
export const invalidSchemaName = (name: string): InvalidSchemaName | undefined =>
  schemaNamePattern.test(name) ? undefined : new InvalidSchemaName({ name })

/** `name` when it is one Coursekit accepts; throws {@link InvalidSchemaName} otherwise. */
export const validSchemaName = (name: string): string => {
  const invalid = invalidSchemaName(name)
  if (invalid !== undefined) throw invalid
  return name
}

/**
 * The schema the repositories and migrations built after it use; {@link defaultSchema}
 * unless a layer sets it. Provide it to the migrations and the repositories alike (the
 * database layers do): one without it uses `coursekit`.
 */
export const PgSchema = Context.Reference<string>("@coursekit/postgres/PgSchema", {
  defaultValue: () => defaultSchema
})

/** Sets the schema; throws {@link InvalidSchemaName} for a name outside {@link schemaNamePattern}. */
export const layer = (schema: string): Layer.Layer<never> => Layer.succeed(PgSchema, validSchemaName(schema))

/** Every table Coursekit creates, the migrations' bookkeeping last. */
export const tableNames = [
  "courses",
  "coursekit_catalogue_version",
  "upload_intents",
  "media_files",
  "lessons",
  "purchases",
  "sections",
  "course_search_documents",
  "provider_cooldowns",
  "course_revisions",
  "lesson_revisions",
  "lesson_progress",
  "course_progress",
  "admin_sessions",
  "coursekit_migrations"
] as const

/** The name of one of Coursekit's tables. */
export type TableName = (typeof tableNames)[number]

/** Every function Coursekit creates. */
export const functionNames = [
  "coursekit_bump_catalogue_version",
  "coursekit_catalogue_token",
  "coursekit_visible_from",
  "coursekit_search_document_visibility",
  "coursekit_follow_course",
  "coursekit_bump_catalogue_version_if_changed",
  "coursekit_count_version"
] as const

/** The name of one of Coursekit's functions. */
export type FunctionName = (typeof functionNames)[number]

/** Coursekit's tables and functions in one schema, each as an identifier for `sql`: `"schema"."table"`. */
export type PgTables = { readonly [Name in TableName | FunctionName]: Statement.Identifier } & {
  /** The schema itself. */
  readonly schema: string
  /** `"schema"."name"` as text, for functions that take a name (`pg_get_serial_sequence`). */
  readonly qualified: (name: TableName) => string
}

/** The qualified names of Coursekit's objects in `schema`. */
export const tablesOf = (sql: SqlClient.SqlClient, schema: string): PgTables => {
  const names = Object.fromEntries(
    [...tableNames, ...functionNames].map((name) => [name, sql(`${schema}.${name}`)])
  ) as { readonly [Name in TableName | FunctionName]: Statement.Identifier }
  return { ...names, schema, qualified: (name) => `"${schema}"."${name}"` }
}
