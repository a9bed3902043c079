/**
 * The versioned schema of Coursekit's PostgreSQL tables, one file per step under
 * `migrations/`, applied in id order at start. PostgreSQL and the embedded PGlite run
 * the same steps. Concurrent starts are safe: they queue on an advisory lock, and the
 * migrator locks its table.
 *
 * Everything is created in Coursekit's schema (`PgSchema`), which is created when
 * missing. The steps run with the transaction's own `search_path` set to that schema
 * (`SET LOCAL`), so a released step keeps its text and still creates nothing outside it;
 * the connection's `search_path` is never read. A database laid out before schemas
 * (Coursekit's tables in `public`, found by `public.coursekit_migrations`) is moved into
 * the schema first, in the same transaction.
 *
 * @since 0.1.0
 */
import { Effect, Layer } from "effect"
import { Migrator, SqlClient, type SqlError } from "effect/sql"
import createCourses from "./migrations/0001_create_courses.ts"
import catalogueVersion from "./migrations/0002_catalogue_version.ts"
import uploads from "./migrations/0003_uploads.ts"
import lessonsPurchases from "./migrations/0004_lessons_purchases.ts"
import courseDescription from "./migrations/0005_course_description.ts"
import lessonVideoReference from "./migrations/0006_lesson_video_reference.ts"
import multipartUploads from "./migrations/0007_multipart_uploads.ts"
import publishing from "./migrations/0008_publishing.ts"
import sections from "./migrations/0009_sections.ts"
import courseSearch from "./migrations/0010_course_search.ts"
import providerCooldowns from "./migrations/0011_provider_cooldowns.ts"
import cataloguePerStatement from "./migrations/0012_catalogue_version_per_statement.ts"
import functionSearchPath from "./migrations/0013_function_search_path.ts"
import opaqueCatalogueToken from "./migrations/0014_opaque_catalogue_token.ts"
import recordVersions from "./migrations/0015_record_versions.ts"
import revisions from "./migrations/0016_revisions.ts"
import learnerProgress from "./migrations/0017_learner_progress.ts"
import adminSessions from "./migrations/0018_admin_sessions.ts"
import { indexMissing } from "./PgCourseSearch.ts"
import * as PgSchema from "./PgSchema.ts"

/** Every migration, keyed `<id>_<name>`. Append; never edit a released step. */
export const migrations = {
  "0001_create_courses": createCourses,
  "0002_catalogue_version": catalogueVersion,
  "0003_uploads": uploads,
  "0004_lessons_purchases": lessonsPurchases,
  "0005_course_description": courseDescription,
  "0006_lesson_video_reference": lessonVideoReference,
  "0007_multipart_uploads": multipartUploads,
  "0008_publishing": publishing,
  "0009_sections": sections,
  "0010_course_search": courseSearch,
  "0011_provider_cooldowns": providerCooldowns,
  "0012_catalogue_version_per_statement": cataloguePerStatement,
  "0013_function_search_path": functionSearchPath,
  "0014_opaque_catalogue_token": opaqueCatalogueToken,
  "0015_record_versions": recordVersions,
  "0016_revisions": revisions,
  "0017_learner_progress": learnerProgress,
  "0018_admin_sessions": adminSessions
}

/** Table where applied migrations are recorded, in Coursekit's schema. */
export const migrationsTable = "coursekit_migrations"

// The plain migrator: no schema dump, so it needs no file system or child processes.
const runMigrator = Migrator.make({})

/**
 * The step that created each of Coursekit's tables and functions: a layout from before
 * schemas is moved only as far as its own applied steps made it, so a host's table that
 * happens to bear a later step's name (`public.sections`) stays where it is.
 */
const createdBy: { readonly [Name in PgSchema.TableName | PgSchema.FunctionName]: number } = {
  courses: 1,
  coursekit_catalogue_version: 2,
  coursekit_bump_catalogue_version: 2,
  upload_intents: 3,
  media_files: 3,
  lessons: 4,
  purchases: 4,
  coursekit_catalogue_token: 8,
  sections: 9,
  course_search_documents: 10,
  coursekit_visible_from: 10,
  coursekit_search_document_visibility: 10,
  coursekit_follow_course: 10,
  provider_cooldowns: 11,
  coursekit_bump_catalogue_version_if_changed: 12,
  coursekit_count_version: 15,
  course_revisions: 16,
  lesson_revisions: 16,
  lesson_progress: 17,
  course_progress: 17,
  admin_sessions: 18,
  // The migrator's own table, there before any step.
  coursekit_migrations: 0
}

/** The last step of the layout before schemas: from 0013 on, Coursekit lives in its schema. */
const lastStepBeforeSchemas = 12

/**
 * Moves a layout from before schemas into `schema`: Coursekit's tables in `public`, as
 * an earlier version left them (`public.coursekit_migrations` whose last step is at most
 * 0012), while `schema` holds no Coursekit yet. Each table its applied steps created
 * (with its rows, indexes, constraints, triggers and identity sequence) and each of
 * their functions is moved by `ALTER … SET SCHEMA`: nothing is copied and no id changes.
 * A `public` that a current Coursekit runs in (`DATABASE_SCHEMA=public`: step 0013
 * applied) is never taken. Reads only the catalog unless there is something to move, so
 * a role without rights on `public` starts. Answers whether it moved anything.
 */
const adoptPublicLayout = (schema: string) =>
  Effect.gen(function*() {
    if (schema === "public") return false
    const sql = yield* SqlClient.SqlClient
    // From the catalog, not `to_regclass`: naming `public.…` needs USAGE on it.
    const found = yield* sql<{ readonly schema: string }>`
      SELECT n.nspname AS schema FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE c.relname = ${migrationsTable} AND c.relkind = 'r' AND n.nspname IN (${"public"}, ${schema})
    `
    if (found.length !== 1 || found[0]!.schema !== "public") return false
    const [applied] = yield* sql<{ readonly last: number | null }>`
      SELECT max(migration_id)::integer AS last FROM public.coursekit_migrations
    `
    const last = applied?.last ?? 0
    if (last > lastStepBeforeSchemas) return false
    const made = (name: PgSchema.TableName | PgSchema.FunctionName) => createdBy[name] <= last
    const tables = (yield* sql<{ readonly name: PgSchema.TableName }>`
      SELECT c.relname AS name FROM pg_class c
      WHERE c.relnamespace = 'public'::regnamespace AND c.relkind = 'r' AND c.relname IN ${sql.in(PgSchema.tableNames)}
    `).filter((table) => made(table.name))
    for (const { name } of tables) yield* sql`ALTER TABLE ${sql(`public.${name}`)} SET SCHEMA ${sql(schema)}`
    const functions = (yield* sql<{ readonly name: PgSchema.FunctionName; readonly signature: string }>`
      SELECT p.proname AS name, format('%I.%I(%s)', 'public', p.proname, pg_get_function_identity_arguments(p.oid)) AS signature
      FROM pg_proc p
      WHERE p.pronamespace = 'public'::regnamespace AND p.proname IN ${sql.in(PgSchema.functionNames)}
    `).filter((fn) => made(fn.name))
    // A signature is PostgreSQL's own rendering of an existing function, quoted by format().
    for (const { signature } of functions) yield* sql.unsafe(`ALTER FUNCTION ${signature} SET SCHEMA "${schema}"`)
    yield* Effect.logInfo(
      `Moved Coursekit's ${tables.length} tables and ${functions.length} functions (steps 1 to ${last}) from public into schema ${schema}`
    )
    return true
  })

/**
 * Applies pending migrations in Coursekit's schema (`PgSchema`), creating the schema when
 * missing and moving a layout from before schemas into it first; returns the ids and
 * names it applied. Runs in one transaction: a failure leaves the database as it was.
 * Its `SET LOCAL search_path` lasts to the end of that transaction, so run it in a
 * transaction of its own (as `layerMigrations` does), not inside one of yours.
 */
export const migrate: Effect.Effect<
  ReadonlyArray<readonly [id: number, name: string]>,
  Migrator.MigrationError | SqlError.SqlError,
  SqlClient.SqlClient
> = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const schema = yield* PgSchema.PgSchema
  return yield* sql.withTransaction(Effect.gen(function*() {
    // Instances of any schema starting at once queue here, so that the schema's creation
    // and a move of the old layout happen once.
    yield* sql`SELECT pg_advisory_xact_lock(hashtextextended('coursekit/migrations', 0))`
    // Asked first: CREATE SCHEMA IF NOT EXISTS needs the CREATE privilege even when the
    // schema exists, and a DBA may have made it for a role without that privilege.
    const [found] = yield* sql<{ readonly missing: boolean }>`SELECT to_regnamespace(${schema}) IS NULL AS missing`
    if (found?.missing === true) yield* sql`CREATE SCHEMA ${sql(schema)}`
    yield* adoptPublicLayout(schema)
    // The steps' unqualified names resolve in the schema (and nowhere else), for this
    // transaction only; pg_temp last, so no temporary table can stand in for one of ours.
    yield* sql`SET LOCAL search_path TO ${sql(schema)}, pg_temp`
    return yield* runMigrator({ loader: Migrator.fromRecord(migrations), table: `${schema}.${migrationsTable}` })
  }))
})

/**
 * A layer that migrates the database once when it is built. Migrations run without the
 * session's `statement_timeout` (the request deadline): a step may rewrite a large table.
 * Then the courses written by plain SQL since the last start get their search documents
 * (`PgCourseSearch.indexMissing`: one query when there are none). Never shared between
 * builds (`Layer.fresh`): a database layer built around an application that builds
 * Coursekit in another schema still migrates that schema too. (The repositories' layers
 * are shared within one build as any layer is, so two schemas are two builds: one
 * handler, or one `ManagedRuntime`, each.)
 */
export const layerMigrations = Layer.fresh(Layer.effectDiscard(Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql.withTransaction(Effect.andThen(sql`SET LOCAL statement_timeout = 0`, migrate))
  yield* indexMissing
})))
