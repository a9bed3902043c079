/**
 * The versioned schema of Coursekit's PostgreSQL tables, one file per step under
 * `migrations/`, applied in id order at start. PostgreSQL and the embedded PGlite run
 * the same steps. Concurrent starts are safe: the migrator locks its table.
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
import { indexMissing } from "./PgCourseSearch.ts"

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
  "0012_catalogue_version_per_statement": cataloguePerStatement
}

/** Table where applied migrations are recorded. */
export const migrationsTable = "coursekit_migrations"

// The plain migrator: no schema dump, so it needs no file system or child processes.
const runMigrator = Migrator.make({})

/** Applies pending migrations; returns the ids and names it applied. */
export const migrate: Effect.Effect<
  ReadonlyArray<readonly [id: number, name: string]>,
  Migrator.MigrationError | SqlError.SqlError,
  SqlClient.SqlClient
> = runMigrator({ loader: Migrator.fromRecord(migrations), table: migrationsTable })

/**
 * A layer that migrates the database once when it is built. Migrations run without the
 * session's `statement_timeout` (the request deadline): a step may rewrite a large table.
 * Then the courses written by plain SQL since the last start get their search documents
 * (`PgCourseSearch.indexMissing`: one query when there are none).
 */
export const layerMigrations = Layer.effectDiscard(Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql.withTransaction(Effect.andThen(sql`SET LOCAL statement_timeout = 0`, migrate))
  yield* indexMissing
}))
